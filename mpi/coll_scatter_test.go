package mpi

import (
	"testing"

	"nocsim/mpi/datatype"
)

// Scatter and gather cases: per-rank counts in the root's and the other
// side's types, and whether the root works in place.
type rtRegCase struct {
	rootT, rankT rtType
	rootN, rankN int
	inPlace      bool
}

func rtRegCases(P int) []rtRegCase {
	all := []rtRegCase{
		{rtB, rtB, 0, 0, false},
		{rtB, rtB, 1, 1, false}, // blocks off word boundaries
		{rtB, rtB, 3, 3, false},
		{rtI32, rtB, 2, 8, false},
		{rtVec, rtI32, 2, 4, false},
		{rtI32, rtVec, 4, 2, false},
		{rtI32, rtI32, 3, 3, true},
		{rtB, rtB, 5, 5, true},
		{rtB, rtB, 4100, 4100, false}, // above coll_long_bytes
	}
	if P == 64 {
		return []rtRegCase{all[2], all[4], all[6]}
	}
	return all
}

func TestRootedScatter(t *testing.T) {
	rtForAlgs(t, "scatter", func(t *testing.T, cfg Config, P int) {
		rtRun(t, P, cfg, func(r *Rank, c *Comm) {
			k := &rtCheck{t: t}
			me, call := r.Rank(), uint64(0)
			for _, root := range rtRoots(P) {
				for _, cs := range rtRegCases(P) {
					call++
					per := cs.rootN * cs.rootT.size()
					all := rtData(call, P*per)
					var sbuf datatype.Buffer
					var sexp []rtExpect
					if me == root {
						sbuf = rtBuf(r, P*cs.rootN*cs.rootT.ext())
						rtPut(cs.rootT, all, sbuf.Bytes, 0, nil)
						sexp = []rtExpect{{cs.rootT, 0, all}}
					}
					tt := cs.rankT
					rcount := cs.rankN
					if me == root {
						tt, rcount = cs.rootT, cs.rootN
					}
					rbuf := rtBuf(r, rcount*tt.ext())
					arg := rbuf
					if me == root && cs.inPlace {
						arg = InPlace
					}
					err := r.Scatter(sbuf, cs.rootN, cs.rootT.dt, arg, rcount, tt.dt, root, c)
					want := []rtExpect{{tt, 0, all[me*per : (me+1)*per]}}
					if arg.Bytes == nil {
						want = nil
					}
					if err == nil {
						err = rtVerify(rbuf.Bytes, want)
					}
					if err == nil && me == root {
						err = rtVerify(sbuf.Bytes, sexp)
					}
					if err != nil {
						k.errorf("rank %d root %d %+v: %v", me, root, cs, err)
					}
					r.Free(rbuf)
					if me == root {
						r.Free(sbuf)
					}
				}
			}
		})
	})
}

func TestRootedGather(t *testing.T) {
	rtForAlgs(t, "gather", func(t *testing.T, cfg Config, P int) {
		rtRun(t, P, cfg, func(r *Rank, c *Comm) {
			k := &rtCheck{t: t}
			me, call := r.Rank(), uint64(0)
			for _, root := range rtRoots(P) {
				for _, cs := range rtRegCases(P) {
					call++
					per := cs.rootN * cs.rootT.size()
					mine := rtData(call<<8|uint64(me), per)
					tt, scount := cs.rankT, cs.rankN
					if me == root {
						tt, scount = cs.rootT, cs.rootN
					}
					sbuf := rtBuf(r, scount*tt.ext())
					rtPut(tt, mine, sbuf.Bytes, 0, nil)
					arg := sbuf
					var rbuf datatype.Buffer
					if me == root {
						rbuf = rtBuf(r, P*cs.rootN*cs.rootT.ext())
						if cs.inPlace {
							arg = InPlace
							rtPut(cs.rootT, mine, rbuf.Bytes, root*cs.rootN*cs.rootT.ext(), nil)
						}
					}
					err := r.Gather(arg, scount, tt.dt, rbuf, cs.rootN, cs.rootT.dt, root, c)
					if err == nil {
						err = rtVerify(sbuf.Bytes, []rtExpect{{tt, 0, mine}})
					}
					if err == nil && me == root {
						var want []rtExpect
						for i := range P {
							want = append(want, rtExpect{cs.rootT, i * cs.rootN * cs.rootT.ext(), rtData(call<<8|uint64(i), per)})
						}
						err = rtVerify(rbuf.Bytes, want)
					}
					if err != nil {
						k.errorf("rank %d root %d %+v: %v", me, root, cs, err)
					}
					r.Free(sbuf)
					if me == root {
						r.Free(rbuf)
					}
				}
			}
		})
	})
}

// Vector cases: counts and displacements (in elements of the root's type)
// for every rank; the other ranks use rankT, scaled to the same bytes.
type rtVecCase struct {
	name         string
	rootT, rankT rtType
	counts       []int
	displs       []int
	inPlace      bool
}

func (v rtVecCase) rankCount(i int) int { return v.counts[i] * v.rootT.size() / v.rankT.size() }

func (v rtVecCase) extent() int {
	n := 0
	for i, c := range v.counts {
		n = max(n, (v.displs[i]+c)*v.rootT.ext())
	}
	return n
}

func rtVecCases(P int) []rtVecCase {
	seq := func(f func(i int) int) []int {
		out := make([]int, P)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	// Irregular sizes (some empty), blocks in reverse order with gaps.
	irregular := func(rootT, rankT rtType, unit int, inPlace bool) rtVecCase {
		counts := seq(func(i int) int { return (3*i + 1) % 5 * unit })
		displs := make([]int, P)
		next := 1
		for i := P - 1; i >= 0; i-- {
			displs[i] = next
			next += counts[i] + 1 + i%2
		}
		return rtVecCase{"irregular " + rootT.name, rootT, rankT, counts, displs, inPlace}
	}
	last3 := seq(func(i int) int { return 4 })
	last3[P-1] = 3
	all := []rtVecCase{
		irregular(rtB, rtB, 1, false),
		irregular(rtI32, rtB, 1, true),
		irregular(rtVec, rtI32, 1, false),
		irregular(rtB, rtVec, 8, false),
		{"regular", rtI32, rtI32, seq(func(int) int { return 2 }), seq(func(i int) int { return 2 * i }), false},
		{"regular, last part word", rtB, rtB, last3, seq(func(i int) int { return 4 * i }), false},
		{"part words at word offsets", rtB, rtB, seq(func(int) int { return 3 }), seq(func(i int) int { return 4 * i }), false},
		{"all empty", rtI32, rtI32, seq(func(int) int { return 0 }), seq(func(int) int { return 0 }), false},
		{"large", rtI32, rtI32, seq(func(i int) int { return 1100 + i }), seq(func(i int) int { return 1200 * i }), false},
	}
	if P == 64 {
		return []rtVecCase{all[0], all[2], all[4]}
	}
	return all
}

func TestRootedScatterv(t *testing.T) {
	rtForAlgs(t, "scatter", func(t *testing.T, cfg Config, P int) {
		rtRun(t, P, cfg, func(r *Rank, c *Comm) {
			k := &rtCheck{t: t}
			me, call := r.Rank(), uint64(0)
			for _, root := range rtRoots(P) {
				for _, cs := range rtVecCases(P) {
					call++
					data := make([][]byte, P)
					for i := range P {
						data[i] = rtData(call<<8|uint64(i), cs.counts[i]*cs.rootT.size())
					}
					var sbuf datatype.Buffer
					var sexp []rtExpect
					if me == root {
						sbuf = rtBuf(r, cs.extent())
						for i := range P {
							sexp = append(sexp, rtExpect{cs.rootT, cs.displs[i] * cs.rootT.ext(), data[i]})
						}
						for _, e := range sexp {
							rtPut(e.tt, e.packed, sbuf.Bytes, e.base, nil)
						}
					}
					tt, rcount := cs.rankT, cs.rankCount(me)
					if me == root {
						tt, rcount = cs.rootT, cs.counts[me]
					}
					rbuf := rtBuf(r, rcount*tt.ext())
					arg := rbuf
					want := []rtExpect{{tt, 0, data[me]}}
					if me == root && cs.inPlace {
						arg, want = InPlace, nil
					}
					err := r.Scatterv(sbuf, cs.counts, cs.displs, cs.rootT.dt, arg, rcount, tt.dt, root, c)
					if err == nil {
						err = rtVerify(rbuf.Bytes, want)
					}
					if err == nil && me == root {
						err = rtVerify(sbuf.Bytes, sexp)
					}
					if err != nil {
						k.errorf("rank %d root %d %s: %v", me, root, cs.name, err)
					}
					r.Free(rbuf)
					if me == root {
						r.Free(sbuf)
					}
				}
			}
		})
	})
}

func TestRootedGatherv(t *testing.T) {
	rtForAlgs(t, "gather", func(t *testing.T, cfg Config, P int) {
		rtRun(t, P, cfg, func(r *Rank, c *Comm) {
			k := &rtCheck{t: t}
			me, call := r.Rank(), uint64(0)
			for _, root := range rtRoots(P) {
				for _, cs := range rtVecCases(P) {
					call++
					data := func(i int) []byte { return rtData(call<<8|uint64(i), cs.counts[i]*cs.rootT.size()) }
					tt, scount := cs.rankT, cs.rankCount(me)
					if me == root {
						tt, scount = cs.rootT, cs.counts[me]
					}
					sbuf := rtBuf(r, scount*tt.ext())
					rtPut(tt, data(me), sbuf.Bytes, 0, nil)
					arg := sbuf
					var rbuf datatype.Buffer
					if me == root {
						rbuf = rtBuf(r, cs.extent())
						if cs.inPlace {
							arg = InPlace
							rtPut(cs.rootT, data(me), rbuf.Bytes, cs.displs[me]*cs.rootT.ext(), nil)
						}
					}
					err := r.Gatherv(arg, scount, tt.dt, rbuf, cs.counts, cs.displs, cs.rootT.dt, root, c)
					if err == nil {
						err = rtVerify(sbuf.Bytes, []rtExpect{{tt, 0, data(me)}})
					}
					if err == nil && me == root {
						var want []rtExpect
						for i := range P {
							want = append(want, rtExpect{cs.rootT, cs.displs[i] * cs.rootT.ext(), data(i)})
						}
						err = rtVerify(rbuf.Bytes, want)
					}
					if err != nil {
						k.errorf("rank %d root %d %s: %v", me, root, cs.name, err)
					}
					r.Free(sbuf)
					if me == root {
						r.Free(rbuf)
					}
				}
			}
		})
	})
}
