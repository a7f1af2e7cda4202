package mpi

// Semantics tests (see semantics_test.go): point-to-point sends and
// receives: send modes and when sends complete, Sendrecv, truncation,
// sends to self, sizes about the eager threshold.

import (
	"fmt"
	"testing"

	"nocsim/endpoint"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// ---------------------------------------------------------------------------
// 4. Send modes.

type semSender func(r *Rank, b datatype.Buffer, n, dest, tag int, c *Comm) (*Request, error)

var semModes = []struct {
	name     string
	ready    bool // needs the receive posted
	buffered bool
	send     semSender
}{
	{"Send", false, false, func(r *Rank, b datatype.Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return nil, r.Send(b, n, datatype.Byte, d, tg, c)
	}},
	{"Ssend", false, false, func(r *Rank, b datatype.Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return nil, r.Ssend(b, n, datatype.Byte, d, tg, c)
	}},
	{"Rsend", true, false, func(r *Rank, b datatype.Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return nil, r.Rsend(b, n, datatype.Byte, d, tg, c)
	}},
	{"Bsend", false, true, func(r *Rank, b datatype.Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return nil, r.Bsend(b, n, datatype.Byte, d, tg, c)
	}},
	{"Isend", false, false, func(r *Rank, b datatype.Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return r.Isend(b, n, datatype.Byte, d, tg, c)
	}},
	{"Issend", false, false, func(r *Rank, b datatype.Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return r.Issend(b, n, datatype.Byte, d, tg, c)
	}},
	{"Irsend", true, false, func(r *Rank, b datatype.Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return r.Irsend(b, n, datatype.Byte, d, tg, c)
	}},
	{"Ibsend", false, true, func(r *Rank, b datatype.Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return r.Ibsend(b, n, datatype.Byte, d, tg, c)
	}},
}

// TestSemSendModes sends with every mode to a pre-posted receive (posted
// before a token tells the sender to go, as Rsend needs), overwrites the
// send buffer once the send is complete and checks the receiver still got
// the original data.
func TestSemSendModes(t *testing.T) {
	for _, proto := range Protocols {
		for _, m := range semModes {
			for _, n := range []int{40, 400} {
				t.Run(fmt.Sprintf("%s/%s/%d", proto, m.name, n), func(t *testing.T) {
					w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
					w.Launch(func(r *Rank) {
						c := r.CommWorld()
						tok := r.MustAlloc(4)
						if r.Rank() == 1 {
							buf := r.MustAlloc(n)
							q, err := r.Irecv(buf, n, datatype.Byte, 0, 5, c)
							if err != nil {
								t.Error(err)
								return
							}
							if err := r.Send(tok, 1, datatype.Int32, 0, 99, c); err != nil {
								t.Error(err)
								return
							}
							st, err := r.Wait(q)
							if err != nil || st.Source != 0 || st.Tag != 5 || st.Bytes != n {
								t.Errorf("Wait: %+v, %v", st, err)
							}
							if k := semBad(buf.Bytes, n, 0, 1); k >= 0 {
								t.Errorf("byte %d is not what was sent (send buffer reused after completion?)", k)
							}
							return
						}
						var attach datatype.Buffer
						if m.buffered {
							attach = r.MustAlloc(n + 64)
							if err := r.BufferAttach(attach); err != nil {
								t.Error(err)
								return
							}
						}
						if _, err := r.Recv(tok, 1, datatype.Int32, 1, 99, c); err != nil {
							t.Error(err)
							return
						}
						b := r.MustAlloc(n)
						semFill(b, n, 0, 1)
						q, err := m.send(r, b, n, 1, 5, c)
						if err != nil {
							t.Errorf("%s: %v", m.name, err)
							return
						}
						if q != nil {
							if _, err := r.Wait(q); err != nil {
								t.Errorf("Wait on %s: %v", m.name, err)
							}
						}
						semSet(b.Bytes, 0xff) // the send is complete: the buffer is ours
						if m.buffered {
							got, err := r.BufferDetach()
							if err != nil || got.Addr != attach.Addr || got.Len() != attach.Len() {
								t.Errorf("BufferDetach = %d bytes at %d, %v; want %d bytes at %d", got.Len(), got.Addr, err, attach.Len(), attach.Addr)
							}
						}
					})
					semRun(t, w)
				})
			}
		}
	}
}

// TestSemCompletionSemantics checks when sends complete against a receive
// posted late: synchronous sends not before the receive is posted, buffered
// sends (and short eager standard sends) at once.
func TestSemCompletionSemantics(t *testing.T) {
	const delay = 30_000
	cases := []struct {
		name string
		run  func(r *Rank, b datatype.Buffer, n int, c *Comm) error
		// sync: completes only after the receive is posted; early: before it.
		sync, early func(proto string, n int) bool
	}{
		{"Ssend", func(r *Rank, b datatype.Buffer, n int, c *Comm) error {
			return r.Ssend(b, n, datatype.Byte, 1, 5, c)
		}, func(string, int) bool { return true }, func(string, int) bool { return false }},
		{"Issend+Wait", func(r *Rank, b datatype.Buffer, n int, c *Comm) error {
			q, err := r.Issend(b, n, datatype.Byte, 1, 5, c)
			if err != nil {
				return err
			}
			_, err = r.Wait(q)
			return err
		}, func(string, int) bool { return true }, func(string, int) bool { return false }},
		{"Bsend", func(r *Rank, b datatype.Buffer, n int, c *Comm) error {
			if err := r.BufferAttach(r.MustAlloc(n + 16)); err != nil {
				return err
			}
			return r.Bsend(b, n, datatype.Byte, 1, 5, c)
		}, func(string, int) bool { return false }, func(string, int) bool { return true }},
		{"Ibsend+Wait", func(r *Rank, b datatype.Buffer, n int, c *Comm) error {
			if err := r.BufferAttach(r.MustAlloc(n + 16)); err != nil {
				return err
			}
			q, err := r.Ibsend(b, n, datatype.Byte, 1, 5, c)
			if err != nil {
				return err
			}
			_, err = r.Wait(q)
			return err
		}, func(string, int) bool { return false }, func(string, int) bool { return true }},
		{"Send", func(r *Rank, b datatype.Buffer, n int, c *Comm) error {
			return r.Send(b, n, datatype.Byte, 1, 5, c)
		}, func(string, int) bool { return false }, func(p string, n int) bool { return p == "eager" && n <= semEagerBytes }},
	}
	for _, proto := range Protocols {
		for _, cs := range cases {
			for _, n := range []int{40, 400} {
				t.Run(fmt.Sprintf("%s/%s/%d", proto, cs.name, n), func(t *testing.T) {
					w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
					var posted, done int64 = -1, -1
					w.Launch(func(r *Rank) {
						c := r.CommWorld()
						b := r.MustAlloc(n)
						if r.Rank() == 1 {
							r.Compute(delay)
							posted = int64(r.Now())
							st, err := r.Recv(b, n, datatype.Byte, 0, 5, c)
							if err != nil || st.Bytes != n {
								t.Errorf("Recv: %+v, %v", st, err)
							}
							if k := semBad(b.Bytes, n, 0, 3); k >= 0 {
								t.Errorf("byte %d wrong", k)
							}
							return
						}
						semFill(b, n, 0, 3)
						err := cs.run(r, b, n, c)
						done = int64(r.Now())
						if err != nil {
							t.Error(err)
						}
					})
					semRun(t, w)
					if cs.sync(proto, n) && done <= posted {
						t.Errorf("%s completed at cycle %d, before the receive was posted at %d", cs.name, done, posted)
					}
					if cs.early(proto, n) && done >= posted {
						t.Errorf("%s completed at cycle %d, not before the receive was posted at %d", cs.name, done, posted)
					}
				})
			}
		}
	}
}

// TestSemSendrecvRing: every rank exchanges with both neighbours of a ring
// at once; blocking Sendrecv must not deadlock.
func TestSemSendrecvRing(t *testing.T) {
	for _, proto := range Protocols {
		for _, p := range []int{5, 8} {
			for _, n := range []int{64, 600} {
				t.Run(fmt.Sprintf("%s/P%d/%d", proto, p, n), func(t *testing.T) {
					w := job(t, 4, 2, semProcs(cfgFor(proto), p), nil)
					done := 0
					w.Launch(func(r *Rank) {
						c := r.CommWorld()
						me := r.Rank()
						right, left := (me+1)%p, (me+p-1)%p
						sb, rb := r.MustAlloc(n), r.MustAlloc(n)
						for round, dir := range []struct{ to, from, tag int }{{right, left, 7}, {left, right, 8}} {
							semFill(sb, n, me, round)
							semSet(rb.Bytes, 0)
							st, err := r.Sendrecv(sb, n, datatype.Byte, dir.to, dir.tag, rb, n, datatype.Byte, dir.from, dir.tag, c)
							if err != nil || st.Source != dir.from || st.Tag != dir.tag || st.Bytes != n {
								t.Errorf("rank %d round %d: %+v, %v", me, round, st, err)
								continue
							}
							if k := semBad(rb.Bytes, n, dir.from, round); k >= 0 {
								t.Errorf("rank %d round %d: byte %d is not rank %d's", me, round, k, dir.from)
							}
						}
						done++
					})
					semRun(t, w)
					if done != p {
						t.Errorf("%d of %d ranks finished", done, p)
					}
				})
			}
		}
	}
}

// ---------------------------------------------------------------------------
// 5. Truncation.

func TestSemTruncation(t *testing.T) {
	const sentinel = 0xee
	cases := []struct{ msg, capacity int }{
		{200, 64}, // rendezvous everywhere
		{100, 40}, // eager under eager
		{50, 30},  // capacity not a whole number of words
		{400, 130},
	}
	for _, proto := range Protocols {
		for _, cs := range cases {
			t.Run(fmt.Sprintf("%s/%d-into-%d", proto, cs.msg, cs.capacity), func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					if r.Rank() == 0 {
						b := r.MustAlloc(cs.msg)
						for seq, tag := range []int{5, 6} {
							semFill(b, cs.msg, 0, seq)
							if err := r.Send(b, cs.msg, datatype.Byte, 1, tag, c); err != nil {
								t.Errorf("sender, message %d: %v", seq, err)
							}
						}
						semFill(b, 16, 0, 9)
						if err := r.Send(b, 16, datatype.Byte, 1, 7, c); err != nil {
							t.Error(err)
						}
						return
					}
					check := func(how string, buf datatype.Buffer, st Status, err error, seq, tag int) {
						if semClass(err) != mpierr.ErrTruncate {
							t.Errorf("%s: error %v, want class %v", how, err, mpierr.ErrTruncate)
						}
						if st.Source != 0 || st.Tag != tag || st.Bytes != cs.capacity {
							t.Errorf("%s: status %+v, want source 0 tag %d bytes %d", how, st, tag, cs.capacity)
						}
						if k := semBad(buf.Bytes, cs.capacity, 0, seq); k >= 0 {
							t.Errorf("%s: byte %d of the part that fits is wrong", how, k)
						}
						for i := cs.capacity; i < buf.Len(); i++ {
							if buf.Bytes[i] != sentinel {
								t.Errorf("%s: byte %d, past the %d-byte receive, was overwritten (%#x)", how, i, cs.capacity, buf.Bytes[i])
								break
							}
						}
					}
					// The Irecv is posted before anything arrives; the Recv
					// may find its message waiting or not.
					buf, buf2 := r.MustAlloc(cs.capacity+16), r.MustAlloc(cs.capacity+16)
					semSet(buf.Bytes, sentinel)
					semSet(buf2.Bytes, sentinel)
					q, err := r.Irecv(buf2, cs.capacity, datatype.Byte, 0, 6, c)
					if err != nil {
						t.Error(err)
						return
					}
					st, err := r.Recv(buf, cs.capacity, datatype.Byte, 0, 5, c)
					check("Recv", buf, st, err, 0, 5)
					st, err = r.Wait(q)
					check("Irecv+Wait", buf2, st, err, 1, 6)
					// The job goes on.
					small := r.MustAlloc(16)
					st, err = r.Recv(small, 16, datatype.Byte, 0, 7, c)
					if err != nil || st.Bytes != 16 || semBad(small.Bytes, 16, 0, 9) >= 0 {
						t.Errorf("message after the truncations: %+v, %v", st, err)
					}
				})
				semRun(t, w)
			})
		}
	}
}

// TestSemShortMessageLeavesRestOfReceiveBuffer: MPI modifies only the bytes
// of a message shorter than its receive buffer (MPI-3.1 section 3.2.4).
func TestSemShortMessageLeavesRestOfReceiveBuffer(t *testing.T) {
	for _, proto := range Protocols {
		for _, n := range []int{5, 131} {
			t.Run(fmt.Sprintf("%s/%d", proto, n), func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
				capacity := (n + 3) &^ 3
				var got []byte
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					if r.Rank() == 0 {
						b := r.MustAlloc(capacity)
						semSet(b.Bytes, 0xaa) // bytes after the message
						semFill(b, n, 0, 0)
						if err := r.Send(b, n, datatype.Byte, 1, 1, c); err != nil {
							t.Error(err)
						}
						return
					}
					b := r.MustAlloc(capacity)
					semSet(b.Bytes, 0xee)
					st, err := r.Recv(b, capacity, datatype.Byte, 0, 1, c)
					if err != nil || st.Bytes != n {
						t.Errorf("Recv: %+v, %v", st, err)
					}
					if k := semBad(b.Bytes, n, 0, 0); k >= 0 {
						t.Errorf("byte %d wrong", k)
					}
					got = append(got, b.Bytes[n:]...)
				})
				semRun(t, w)
				for i, v := range got {
					if v != 0xee {
						t.Errorf("a %d-byte message into a %d-byte receive changed byte %d past its end to %#x (the sender's memory after its buffer)", n, capacity, n+i, v)
					}
				}
			})
		}
	}
}

// TestSemSelfMessages: a rank may send to itself.
func TestSemSelfMessages(t *testing.T) {
	for _, proto := range Protocols {
		for _, n := range []int{40, 400} {
			t.Run(fmt.Sprintf("%s/%d", proto, n), func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 3), nil)
				done := 0
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					me := r.Rank()
					sb, rb := r.MustAlloc(n), r.MustAlloc(n)
					semFill(sb, n, me, 1)
					q, err := r.Isend(sb, n, datatype.Byte, me, 1, c)
					if err != nil {
						t.Error(err)
						return
					}
					st, err := r.Recv(rb, n, datatype.Byte, me, 1, c)
					if err != nil || st.Source != me || st.Bytes != n || semBad(rb.Bytes, n, me, 1) >= 0 {
						t.Errorf("rank %d: Isend/Recv to self: %+v, %v", me, st, err)
					}
					if _, err := r.Wait(q); err != nil {
						t.Error(err)
					}
					semFill(sb, n, me, 2)
					st, err = r.Sendrecv(sb, n, datatype.Byte, me, 2, rb, n, datatype.Byte, me, 2, c)
					if err != nil || st.Source != me || st.Tag != 2 || semBad(rb.Bytes, n, me, 2) >= 0 {
						t.Errorf("rank %d: Sendrecv with self: %+v, %v", me, st, err)
					}
					done++
				})
				semRun(t, w)
				if done != 3 {
					t.Errorf("%d of 3 ranks finished", done)
				}
			})
		}
	}
}

// TestSemEagerThresholdEdges sends sizes around eager_bytes, for the
// smallest and largest allowed thresholds, to a busy receiver.
func TestSemEagerThresholdEdges(t *testing.T) {
	largest := 4 * (endpoint.DefaultSpec().QueueFlits - 2 - 6) // THREAD message: 2 head flits, 6 header words
	for _, eb := range []int{0, 1, semEagerBytes, largest} {
		t.Run(fmt.Sprint(eb), func(t *testing.T) {
			cfg := semProcs(cfgFor("eager"), 2)
			cfg.EagerBytes = eb
			w := job(t, 2, 2, cfg, nil)
			var sizes []int
			for _, n := range []int{0, 1, eb - 1, eb, eb + 1, eb, eb, eb, eb, eb, eb, eb, eb, eb, eb, eb} {
				if n >= 0 {
					sizes = append(sizes, n)
				}
			}
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				if r.Rank() == 0 {
					var qs []*Request
					for i, n := range sizes {
						b := r.MustAlloc(n)
						semFill(b, n, 0, i)
						q, err := r.Isend(b, n, datatype.Byte, 1, 1, c)
						if err != nil {
							t.Error(err)
							return
						}
						qs = append(qs, q)
					}
					if _, err := r.Waitall(qs); err != nil {
						t.Error(err)
					}
					return
				}
				r.Compute(50_000)
				b := r.MustAlloc(largest + 8)
				for i, n := range sizes {
					st, err := r.Recv(b, largest+8, datatype.Byte, 0, 1, c)
					if err != nil || st.Bytes != n || semBad(b.Bytes, n, 0, i) >= 0 {
						t.Errorf("message %d (%d bytes): %+v, %v", i, n, st, err)
					}
				}
			})
			semRun(t, w)
		})
	}
}
