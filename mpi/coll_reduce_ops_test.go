package mpi

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"nocsim/mpi/datatype"
)

// TestReducePredefinedOps runs every predefined op through Allreduce
// (short and long, so both default algorithms) against Go arithmetic.
func TestReducePredefinedOps(t *testing.T) {
	t.Parallel()
	type typ struct {
		dt   *datatype.Datatype
		gen  func(rng *rand.Rand) float64 // values, kept exact in every type
		enc  func(b []byte, i int, v float64)
		dec  func(b []byte, i int) float64
		fold map[*datatype.Op]func(a, b float64) float64
	}
	ints := func(wrap func(int64) int64) map[*datatype.Op]func(a, b float64) float64 {
		f := func(g func(a, b int64) int64) func(a, b float64) float64 {
			return func(a, b float64) float64 { return float64(wrap(g(int64(a), int64(b)))) }
		}
		b2 := func(v bool) int64 {
			if v {
				return 1
			}
			return 0
		}
		return map[*datatype.Op]func(a, b float64) float64{
			datatype.OpSum:  f(func(a, b int64) int64 { return a + b }),
			datatype.OpProd: f(func(a, b int64) int64 { return a * b }),
			datatype.OpMax:  f(func(a, b int64) int64 { return max(a, b) }),
			datatype.OpMin:  f(func(a, b int64) int64 { return min(a, b) }),
			datatype.OpLand: f(func(a, b int64) int64 { return b2(a != 0 && b != 0) }),
			datatype.OpLor:  f(func(a, b int64) int64 { return b2(a != 0 || b != 0) }),
			datatype.OpLxor: f(func(a, b int64) int64 { return b2((a != 0) != (b != 0)) }),
			datatype.OpBand: f(func(a, b int64) int64 { return a & b }),
			datatype.OpBor:  f(func(a, b int64) int64 { return a | b }),
			datatype.OpBxor: f(func(a, b int64) int64 { return a ^ b }),
		}
	}
	smallInt := func(rng *rand.Rand) float64 {
		if rng.IntN(4) == 0 {
			return 0 // so logical ops see both truth values
		}
		return float64(rng.IntN(41) - 20)
	}
	types := []typ{
		{datatype.Int32, smallInt, func(b []byte, i int, v float64) { put32(b, 4*i, int64(v)) }, func(b []byte, i int) float64 { return float64(get32(b, 4*i)) },
			ints(func(v int64) int64 { return int64(int32(v)) })},
		{datatype.Int64, func(rng *rand.Rand) float64 { return float64(rng.IntN(7) - 3) }, func(b []byte, i int, v float64) { le.PutUint64(b[8*i:], uint64(int64(v))) }, func(b []byte, i int) float64 { return float64(int64(le.Uint64(b[8*i:]))) },
			ints(func(v int64) int64 { return v })},
		{datatype.Uint32, func(rng *rand.Rand) float64 { return float64(rng.IntN(3) * rng.IntN(20)) }, func(b []byte, i int, v float64) { le.PutUint32(b[4*i:], uint32(v)) },
			func(b []byte, i int) float64 { return float64(le.Uint32(b[4*i:])) }, ints(func(v int64) int64 { return int64(uint32(v)) })},
		{datatype.Float64, func(rng *rand.Rand) float64 { return []float64{0.5, 1, 2, -1, -0.25, 4}[rng.IntN(6)] },
			func(b []byte, i int, v float64) { le.PutUint64(b[8*i:], math.Float64bits(v)) },
			func(b []byte, i int) float64 { return math.Float64frombits(le.Uint64(b[8*i:])) },
			map[*datatype.Op]func(a, b float64) float64{
				datatype.OpSum: func(a, b float64) float64 { return a + b }, datatype.OpProd: func(a, b float64) float64 { return a * b },
				datatype.OpMax: math.Max, datatype.OpMin: math.Min,
			}},
	}
	ops := []*datatype.Op{datatype.OpSum, datatype.OpProd, datatype.OpMax, datatype.OpMin, datatype.OpLand, datatype.OpLor, datatype.OpLxor, datatype.OpBand, datatype.OpBor, datatype.OpBxor}
	for _, P := range []int{5, 16} {
		for _, count := range []int{7, 700} {
			t.Run(fmt.Sprintf("P=%d/count=%d", P, count), func(t *testing.T) {
				t.Parallel()
				type call struct {
					ty  typ
					op  *datatype.Op
					in  [][]float64
					got [][]byte
				}
				var calls []*call
				for ti, ty := range types {
					for oi, op := range ops {
						if ty.fold[op] == nil {
							continue
						}
						c := &call{ty: ty, op: op, in: make([][]float64, P), got: make([][]byte, P)}
						for i := range P {
							rng := rand.New(rand.NewPCG(uint64(ti*100+oi), uint64(i)))
							for range count {
								c.in[i] = append(c.in[i], ty.gen(rng))
							}
						}
						calls = append(calls, c)
					}
				}
				// MAXLOC/MINLOC on the pair types, with ties.
				type lcall struct {
					dt    *datatype.Datatype
					op    *datatype.Op
					val   [][]float64
					idx   [][]int32
					got   [][]byte
					vsize int
				}
				var lcalls []*lcall
				for _, dt := range []*datatype.Datatype{datatype.Float64Int32, datatype.Float32Int32, datatype.TwoInt32} {
					for _, op := range []*datatype.Op{datatype.OpMaxloc, datatype.OpMinloc} {
						c := &lcall{dt: dt, op: op, val: make([][]float64, P), idx: make([][]int32, P), got: make([][]byte, P), vsize: dt.Size() - 4}
						for i := range P {
							rng := rand.New(rand.NewPCG(uint64(len(lcalls)), uint64(i)))
							for range count {
								c.val[i] = append(c.val[i], float64(rng.IntN(4)-1)) // many ties
								c.idx[i] = append(c.idx[i], int32(rng.IntN(3*P)))
							}
						}
						lcalls = append(lcalls, c)
					}
				}
				putPair := func(c *lcall, b []byte, k int, v float64, ix int32) {
					at := k * c.dt.Size()
					switch c.vsize {
					case 8:
						le.PutUint64(b[at:], math.Float64bits(v))
					default:
						if c.dt == datatype.Float32Int32 {
							le.PutUint32(b[at:], math.Float32bits(float32(v)))
						} else {
							le.PutUint32(b[at:], uint32(int32(v)))
						}
					}
					le.PutUint32(b[at+c.vsize:], uint32(ix))
				}
				redJob(t, P, DefaultConfig(), func(r *Rank) {
					me, comm := r.Rank(), r.CommWorld()
					for _, c := range calls {
						n := count * c.ty.dt.Size()
						s, b := r.MustAlloc(n), r.MustAlloc(n)
						for k, v := range c.in[me] {
							c.ty.enc(s.Bytes, k, v)
						}
						if err := r.Allreduce(s, b, count, c.ty.dt, c.op, comm); err != nil {
							t.Error(err)
						}
						c.got[me] = slices.Clone(b.Bytes)
						r.Free(s)
						r.Free(b)
					}
					for _, c := range lcalls {
						n := count * c.dt.Size()
						b := r.MustAlloc(n)
						for k := range count {
							putPair(c, b.Bytes, k, c.val[me][k], c.idx[me][k])
						}
						if err := r.Allreduce(InPlace, b, count, c.dt, c.op, comm); err != nil {
							t.Error(err)
						}
						c.got[me] = slices.Clone(b.Bytes)
						r.Free(b)
					}
				})
				for _, c := range calls {
					for k := range count {
						want := c.in[0][k]
						for i := 1; i < P; i++ {
							want = c.ty.fold[c.op](want, c.in[i][k])
						}
						for i := range P {
							if got := c.ty.dec(c.got[i], k); got != want {
								t.Fatalf("%s %s element %d rank %d: got %v want %v", c.op.Name(), c.ty.dt.Name(), k, i, got, want)
							}
						}
					}
				}
				for _, c := range lcalls {
					want := make([]byte, count*c.dt.Size())
					for k := range count {
						v, ix := c.val[0][k], c.idx[0][k]
						for i := 1; i < P; i++ {
							w, jx := c.val[i][k], c.idx[i][k]
							better := w > v
							if c.op == datatype.OpMinloc {
								better = w < v
							}
							if better || w == v && jx < ix {
								v, ix = w, jx
							}
						}
						putPair(c, want, k, v, ix)
					}
					for i := range P {
						if !bytes.Equal(c.got[i], want) {
							t.Fatalf("%s on %d-byte pairs, rank %d: wrong result", c.op.Name(), c.dt.Size(), i)
						}
					}
				}
			})
		}
	}
}
