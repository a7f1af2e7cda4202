package mpi

// Semantics tests (see semantics_test.go): many ranks and long messages.

import (
	"testing"

	"nocsim/endpoint"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// ---------------------------------------------------------------------------
// 10. Scale.

// semAllToAll has every rank send a distinct payload to every other with
// Isend/Irecv and Waitall.
func semAllToAll(t *testing.T, w *World, p int) {
	size := func(src, dst int) int { return []int{8, 100, 132, 260, 36}[(src+2*dst)%5] }
	seq := func(dst int) int { return 1000 + dst }
	ok := make([]bool, p)
	w.Launch(func(r *Rank) {
		c := r.CommWorld()
		me := r.Rank()
		var qs []*Request
		recvBuf := map[int]datatype.Buffer{}
		for k := 1; k < p; k++ {
			src := (me + p - k) % p
			b := r.MustAlloc(size(src, me))
			q, err := r.Irecv(b, size(src, me), datatype.Byte, src, 1, c)
			if err != nil {
				t.Error(err)
				return
			}
			recvBuf[src] = b
			qs = append(qs, q)
		}
		for k := 1; k < p; k++ {
			dst := (me + k) % p
			b := r.MustAlloc(size(me, dst))
			semFill(b, size(me, dst), me, seq(dst))
			q, err := r.Isend(b, size(me, dst), datatype.Byte, dst, 1, c)
			if err != nil {
				t.Error(err)
				return
			}
			qs = append(qs, q)
		}
		sts, err := r.Waitall(qs)
		if err != nil {
			t.Errorf("rank %d: Waitall: %v", me, err)
			return
		}
		good := true
		for k := 1; k < p; k++ {
			src := (me + p - k) % p
			st := sts[k-1]
			if st.Source != src || st.Tag != 1 || st.Bytes != size(src, me) {
				t.Errorf("rank %d from %d: status %+v", me, src, st)
				good = false
			} else if i := semBad(recvBuf[src].Bytes, size(src, me), src, seq(me)); i >= 0 {
				t.Errorf("rank %d from %d: byte %d wrong", me, src, i)
				good = false
			}
		}
		ok[me] = good
	})
	semRun(t, w)
	for i, g := range ok {
		if !g {
			t.Errorf("rank %d did not check all its data", i)
		}
	}
}

func TestSemAllToAll64(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			semAllToAll(t, job(t, 8, 8, cfgFor(proto), nil), 64)
		})
	}
}

func TestSemAllToAll13(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			semAllToAll(t, job(t, 4, 4, semProcs(cfgFor(proto), 13), nil), 13)
		})
	}
}

// TestSemLargeMessages moves messages longer than one DMA block
// (endpoint.MaxBlockWords words), contiguous and as a strided vector, and
// truncates one past the first block.
func TestSemLargeMessages(t *testing.T) {
	const n = 300_000 // bytes: 75000 words, two DMA blocks
	const elems = 70_000
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			cfg := semProcs(cfgFor(proto), 2)
			cfg.VectorDMA = true
			w := job(t, 2, 2, cfg, nil)
			vt, err := datatype.TypeVector(elems, 1, 2, datatype.Int32)
			if err == nil {
				err = vt.Commit()
			}
			if err != nil {
				t.Fatal(err)
			}
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				if r.Rank() == 0 {
					b := r.MustAlloc(n)
					semFill(b, n, 0, 1)
					for tag := 1; tag <= 2; tag++ {
						if err := r.Send(b, n, datatype.Byte, 1, tag, c); err != nil {
							t.Error(err)
						}
					}
					r.Free(b)
					v := r.MustAlloc(8 * elems)
					semFill(v, 8*elems, 0, 2)
					if err := r.Send(v, 1, vt, 1, 3, c); err != nil {
						t.Error(err)
					}
					return
				}
				b := r.MustAlloc(n)
				st, err := r.Recv(b, n, datatype.Byte, 0, 1, c)
				if err != nil || st.Bytes != n {
					t.Errorf("large Recv: %+v %v", st, err)
				} else if k := semBad(b.Bytes, n, 0, 1); k >= 0 {
					t.Errorf("large message: byte %d wrong", k)
				}
				const capacity = 270_000
				semSet(b.Bytes, 0xee)
				st, err = r.Recv(b, capacity, datatype.Byte, 0, 2, c)
				if semClass(err) != mpierr.ErrTruncate || st.Bytes != capacity {
					t.Errorf("truncated large Recv: %+v %v", st, err)
				}
				if k := semBad(b.Bytes, capacity, 0, 1); k >= 0 {
					t.Errorf("truncated large message: byte %d wrong", k)
				}
				if b.Bytes[capacity] != 0xee || b.Bytes[n-1] != 0xee {
					t.Errorf("truncated large message wrote past the receive")
				}
				p := r.MustAlloc(4 * elems)
				st, err = r.Recv(p, 4*elems, datatype.Byte, 0, 3, c)
				if err != nil || st.Bytes != 4*elems {
					t.Errorf("large vector: %+v %v", st, err)
					return
				}
				for j := 0; j < elems; j++ {
					for k := 0; k < 4; k++ {
						if p.Bytes[4*j+k] != semByte(0, 2, 8*j+k) {
							t.Errorf("large vector: element %d byte %d wrong", j, k)
							return
						}
					}
				}
			})
			semRun(t, w)
		})
	}
}

// TestSemAllToAllOneThreadContext repeats the 13-rank all-to-all with a
// single handler context per tile, so THREAD messages queue in the NIUs.
func TestSemAllToAllOneThreadContext(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			semAllToAll(t, job(t, 4, 4, semProcs(cfgFor(proto), 13), func(c *endpoint.CPUSpec) { c.ThreadContexts = 1 }), 13)
		})
	}
}
