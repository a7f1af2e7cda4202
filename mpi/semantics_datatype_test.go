package mpi

// Semantics tests (see semantics_test.go): derived datatypes.

import (
	"fmt"
	"strings"
	"testing"

	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// ---------------------------------------------------------------------------
// 9. Derived datatypes through the network.

// semSeg is bytes [off, off+n) of one element, in typemap order.
type semSeg struct{ off, n int }

type semTypeCase struct {
	name  string
	build func() (*datatype.Datatype, error)
	segs  []semSeg // one element, in typemap order, worked out by hand
	count int
	align int // the largest basic type's size: the extent is padded to it
}

func (c semTypeCase) lbub() (lb, ub int) {
	lb, ub = c.segs[0].off, c.segs[0].off+c.segs[0].n
	for _, s := range c.segs {
		lb, ub = min(lb, s.off), max(ub, s.off+s.n)
	}
	return
}

// extent is the data's extent rounded up to the alignment (MPI-3.1 4.1.6).
func (c semTypeCase) extent() int {
	lb, ub := c.lbub()
	return (ub - lb + c.align - 1) / c.align * c.align
}

// layout is every byte offset of count elements, in order.
func (c semTypeCase) layout() []int {
	var offs []int
	for i := 0; i < c.count; i++ {
		for _, s := range c.segs {
			for k := 0; k < s.n; k++ {
				offs = append(offs, i*c.extent()+s.off+k)
			}
		}
	}
	return offs
}

func (c semTypeCase) span() int {
	_, ub := c.lbub()
	return (c.count-1)*c.extent() + ub
}

func semRange(off, n, stride, each int) []semSeg {
	var s []semSeg
	for i := 0; i < n; i++ {
		s = append(s, semSeg{off + i*stride, each})
	}
	return s
}

func semTypeCases() []semTypeCase {
	inner := func() (*datatype.Datatype, error) { return datatype.TypeVector(2, 1, 2, datatype.Int32) } // (0,4) (8,4), extent 12
	return []semTypeCase{
		{"contiguous", func() (*datatype.Datatype, error) { return datatype.TypeContiguous(5, datatype.Int32) },
			[]semSeg{{0, 20}}, 3, 4},
		{"contiguous-of-vector", func() (*datatype.Datatype, error) {
			v, err := inner()
			if err != nil {
				return nil, err
			}
			return datatype.TypeContiguous(3, v)
		}, []semSeg{{0, 4}, {8, 4}, {12, 4}, {20, 4}, {24, 4}, {32, 4}}, 2, 4},
		{"vector", func() (*datatype.Datatype, error) { return datatype.TypeVector(4, 2, 5, datatype.Int32) },
			semRange(0, 4, 20, 8), 2, 4},
		{"vector-words-1", func() (*datatype.Datatype, error) { return datatype.TypeVector(40, 1, 3, datatype.Int32) },
			semRange(0, 40, 12, 4), 1, 4},
		{"vector-words-2", func() (*datatype.Datatype, error) { return datatype.TypeVector(40, 1, 3, datatype.Int32) },
			semRange(0, 40, 12, 4), 2, 4},
		{"hvector", func() (*datatype.Datatype, error) { return datatype.TypeCreateHvector(3, 1, 24, datatype.Float64) },
			semRange(0, 3, 24, 8), 3, 8},
		{"hvector-words", func() (*datatype.Datatype, error) { return datatype.TypeCreateHvector(50, 1, 12, datatype.Float32) },
			semRange(0, 50, 12, 4), 1, 4},
		{"indexed", func() (*datatype.Datatype, error) {
			return datatype.TypeIndexed([]int{2, 1, 3}, []int{0, 4, 9}, datatype.Int32)
		},
			[]semSeg{{0, 8}, {16, 4}, {36, 12}}, 2, 4},
		{"indexed-block", func() (*datatype.Datatype, error) {
			return datatype.TypeCreateIndexedBlock(2, []int{1, 5, 8}, datatype.Float32)
		},
			[]semSeg{{4, 8}, {20, 8}, {32, 8}}, 3, 4},
		{"indexed-block-words", func() (*datatype.Datatype, error) {
			return datatype.TypeCreateIndexedBlock(1, []int{2, 5, 8, 11}, datatype.Int32)
		},
			semRange(8, 4, 12, 4), 1, 4},
		{"hindexed", func() (*datatype.Datatype, error) {
			return datatype.TypeCreateHindexed([]int{3, 1}, []int{20, 0}, datatype.Int32)
		},
			[]semSeg{{20, 12}, {0, 4}}, 2, 4},
		{"struct", func() (*datatype.Datatype, error) {
			return datatype.TypeCreateStruct([]int{1, 2, 1}, []int{0, 8, 24}, []*datatype.Datatype{datatype.Float64, datatype.Int32, datatype.Byte})
		}, []semSeg{{0, 8}, {8, 8}, {24, 1}}, 3, 8},
		{"struct-of-vector", func() (*datatype.Datatype, error) {
			v, err := inner()
			if err != nil {
				return nil, err
			}
			return datatype.TypeCreateStruct([]int{2, 1}, []int{0, 40}, []*datatype.Datatype{v, datatype.Float64})
		}, []semSeg{{0, 4}, {8, 4}, {12, 4}, {20, 4}, {40, 8}}, 4, 8},
	}
}

func TestSemDatatypesOverNetwork(t *testing.T) {
	const sentinel = 0xee
	cases := semTypeCases()
	for _, proto := range Protocols {
		for _, vdma := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/vector_dma=%v", proto, vdma), func(t *testing.T) {
				cfg := semProcs(cfgFor(proto), 2)
				cfg.VectorDMA = vdma
				w := job(t, 2, 2, cfg, nil)
				types := make([]*datatype.Datatype, len(cases))
				for i, cs := range cases {
					dt, err := cs.build()
					if err == nil {
						err = dt.Commit()
					}
					if err != nil {
						t.Fatalf("%s: %v", cs.name, err)
					}
					types[i] = dt
				}
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					for i, cs := range cases {
						dt, offs, span := types[i], cs.layout(), cs.span()
						size := len(offs)
						if r.Rank() == 0 {
							b := r.MustAlloc(span)
							semFill(b, span, 0, i)
							// Send, then Ssend (rendezvous even under eager,
							// so the vector DMA path is taken when enabled).
							if err := r.Send(b, cs.count, dt, 1, 0, c); err != nil {
								t.Errorf("%s: Send: %v", cs.name, err)
							}
							if err := r.Ssend(b, cs.count, dt, 1, 1, c); err != nil {
								t.Errorf("%s: Ssend: %v", cs.name, err)
							}
							continue
						}
						// (a) the same type: exactly the typemap's bytes land.
						in := map[int]bool{}
						for _, o := range offs {
							in[o] = true
						}
						b := r.MustAlloc(span + 16)
						semSet(b.Bytes, sentinel)
						st, err := r.Recv(b, cs.count, dt, 0, 0, c)
						if err != nil || st.Bytes != size || GetCount(st, dt) != cs.count {
							t.Errorf("%s: Recv same type: %+v, %v; want %d bytes, %d elements", cs.name, st, err, size, cs.count)
						}
						for k := range b.Bytes {
							want := byte(sentinel)
							if in[k] {
								want = semByte(0, i, k)
							}
							if b.Bytes[k] != want {
								t.Errorf("%s: same-type receive: byte %d = %#x, want %#x (in typemap: %v)", cs.name, k, b.Bytes[k], want, in[k])
								break
							}
						}
						// (b) as bytes: the typemap's bytes, packed in order.
						p := r.MustAlloc(size + 8)
						semSet(p.Bytes, sentinel)
						st, err = r.Recv(p, size, datatype.Byte, 0, 1, c)
						if err != nil || st.Bytes != size {
							t.Errorf("%s: Recv bytes: %+v, %v", cs.name, st, err)
						}
						for k, o := range offs {
							if p.Bytes[k] != semByte(0, i, o) {
								t.Errorf("%s: packed byte %d = %#x, want byte %d of the send buffer (%#x)", cs.name, k, p.Bytes[k], o, semByte(0, i, o))
								break
							}
						}
						for k := size; k < p.Len(); k++ {
							if p.Bytes[k] != sentinel {
								t.Errorf("%s: byte receive wrote byte %d past the message", cs.name, k)
								break
							}
						}
						r.Free(b)
						r.Free(p)
					}
					// Zero elements of a derived type: an empty message.
					vt := types[2]
					b := r.MustAlloc(3 * 68)
					if r.Rank() == 0 {
						if err := r.Send(b, 0, vt, 1, 9, c); err != nil {
							t.Errorf("Send of 0 elements: %v", err)
						}
						return
					}
					semSet(b.Bytes, sentinel)
					st, err := r.Recv(b, 3, vt, 0, 9, c)
					if err != nil || st.Bytes != 0 || GetCount(st, vt) != 0 {
						t.Errorf("Recv of an empty message: %+v, %v", st, err)
					}
					for k, v := range b.Bytes {
						if v != sentinel {
							t.Errorf("an empty message changed byte %d", k)
							break
						}
					}
				})
				semRun(t, w)
			})
		}
	}
}

// TestSemScatterOnReceive sends contiguous Int32s and receives them into a
// strided vector (and a struct), which must scatter them.
func TestSemScatterOnReceive(t *testing.T) {
	const sentinel = 0xee
	for _, proto := range Protocols {
		for _, vdma := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/vector_dma=%v", proto, vdma), func(t *testing.T) {
				cfg := semProcs(cfgFor(proto), 2)
				cfg.VectorDMA = vdma
				w := job(t, 2, 2, cfg, nil)
				var recvTypes []semTypeCase
				for _, cs := range semTypeCases() {
					if cs.name == "vector-words-1" || cs.name == "vector" || cs.name == "indexed-block" {
						recvTypes = append(recvTypes, cs)
					}
				}
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					for i, cs := range recvTypes {
						offs := cs.layout()
						n := len(offs)
						if r.Rank() == 0 {
							b := r.MustAlloc(n)
							semFill(b, n, 0, 20+i)
							if err := r.Send(b, n/4, datatype.Int32, 1, i, c); err != nil {
								t.Error(err)
							}
							continue
						}
						dt, err := cs.build()
						if err == nil {
							err = dt.Commit()
						}
						if err != nil {
							t.Error(err)
							return
						}
						b := r.MustAlloc(cs.span() + 8)
						semSet(b.Bytes, sentinel)
						st, err := r.Recv(b, cs.count, dt, 0, i, c)
						if err != nil || st.Bytes != n {
							t.Errorf("%s: %+v, %v", cs.name, st, err)
						}
						want := make([]byte, b.Len())
						semSet(want, sentinel)
						for k, o := range offs {
							want[o] = semByte(0, 20+i, k)
						}
						for k := range want {
							if b.Bytes[k] != want[k] {
								t.Errorf("%s: byte %d = %#x, want %#x", cs.name, k, b.Bytes[k], want[k])
								break
							}
						}
					}
				})
				semRun(t, w)
			})
		}
	}
}

// TestSemTypeBeforeBufferStart: a datatype with a negative lower bound
// reaches before the start of any Buffer, which the library cannot
// address (Pack and Unpack report ErrBuffer). Like every other buffer
// that is too small, it must be refused when the call is made: a receive
// must not wait for (and consume) a message it cannot store, and failed
// sends must not keep memory.
func TestSemTypeBeforeBufferStart(t *testing.T) {
	negLB, err := datatype.TypeCreateHindexed([]int{1}, []int{-4}, datatype.Int32) // lb -4, ub 0
	if err == nil {
		err = negLB.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
	const count = 100_000 // 400 KB a message; the heap is 4 MB
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				tok := r.MustAlloc(4)
				if r.Rank() == 1 {
					if _, err := r.Recv(tok, 1, datatype.Int32, 0, 9, c); err != nil {
						t.Error(err)
						return
					}
					b := r.MustAlloc(16)
					semFill(b, 16, 1, 0)
					if err := r.Send(b, 16, datatype.Byte, 0, 4, c); err != nil {
						t.Error(err)
					}
					return
				}
				big := r.MustAlloc(4 * count)
				for i := 0; i < 20; i++ {
					q, err := r.Isend(big, count, negLB, 1, 4, c)
					if q != nil || semClass(err) != mpierr.ErrBuffer {
						t.Errorf("Isend %d of a type before the buffer: %v, %v; want %v", i, q, err, mpierr.ErrBuffer)
						break
					}
				}
				if b, err := r.Alloc(1 << 20); err != nil {
					t.Errorf("after 20 refused Isends of %d bytes, 1 MB of a 4 MB heap cannot be had: %v", 4*count, err)
				} else {
					r.Free(b)
				}
				// Nothing has been sent to rank 0 yet: the receive must
				// fail at once, not wait.
				if _, err := r.Recv(big, 1, negLB, 1, 4, c); semClass(err) != mpierr.ErrBuffer {
					t.Errorf("Recv of a type before the buffer: %v, want %v", err, mpierr.ErrBuffer)
				}
				if err := r.Send(tok, 1, datatype.Int32, 1, 9, c); err != nil {
					t.Error(err)
					return
				}
				b := r.MustAlloc(16)
				if st, err := r.Recv(b, 16, datatype.Byte, 1, 4, c); err != nil || st.Bytes != 16 || semBad(b.Bytes, 16, 1, 0) >= 0 {
					t.Errorf("the next receive: %+v, %v", st, err)
				}
			})
			err := w.Run()
			if err != nil {
				msg := err.Error()
				if i := strings.Index(msg, "\n  unmatched"); i > 0 {
					msg = msg[:i]
				}
				t.Errorf("run: %s", msg)
			}
		})
	}
}
