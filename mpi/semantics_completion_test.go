package mpi

// Semantics tests (see semantics_test.go): completion calls and progress.

import (
	"fmt"
	"strings"
	"testing"

	"nocsim/mpi/datatype"
	"nocsim/mpi/group"
	"nocsim/mpi/mpierr"
)

// TestSemPollingLoopsMakeProgress polls with Test, Testall and Iprobe,
// computing between the calls, while the peer starts its side of the
// exchange late. MPI's progress rule: once the peer's matching call is
// made, repeated Test (Testall, Iprobe) calls must eventually succeed. The
// loops are bounded at far more simulated time than the exchange needs, so
// a library that never progresses fails instead of hanging; the program
// then finishes the exchange with Wait.
func TestSemPollingLoopsMakeProgress(t *testing.T) {
	const delay, maxPolls, pollCompute = 20_000, 400, 500
	type poller func(r *Rank, c *Comm, n int) (polls int, ok bool)
	pollTest := func(q *Request, r *Rank) (int, bool) {
		for polls := 0; polls < maxPolls; polls++ {
			ok, _, err := r.Test(q)
			if err != nil {
				t.Error(err)
			}
			if ok {
				return polls, true
			}
			r.Compute(pollCompute)
		}
		r.Wait(q)
		return maxPolls, false
	}
	cases := []struct {
		name   string
		sender bool // the poller is the sender (rank 0); else the receiver (rank 1)
		poll   poller
	}{
		{"Isend+Test", true, func(r *Rank, c *Comm, n int) (int, bool) {
			b := r.MustAlloc(n)
			semFill(b, n, 0, 0)
			q, err := r.Isend(b, n, datatype.Byte, 1, 1, c)
			if err != nil {
				t.Error(err)
				return 0, true
			}
			return pollTest(q, r)
		}},
		{"Issend+Test", true, func(r *Rank, c *Comm, n int) (int, bool) {
			b := r.MustAlloc(n)
			semFill(b, n, 0, 0)
			q, err := r.Issend(b, n, datatype.Byte, 1, 1, c)
			if err != nil {
				t.Error(err)
				return 0, true
			}
			return pollTest(q, r)
		}},
		{"Irecv+Test", false, func(r *Rank, c *Comm, n int) (int, bool) {
			b := r.MustAlloc(n)
			q, err := r.Irecv(b, n, datatype.Byte, 0, 1, c)
			if err != nil {
				t.Error(err)
				return 0, true
			}
			polls, ok := pollTest(q, r)
			if k := semBad(b.Bytes, n, 0, 0); k >= 0 {
				t.Errorf("received byte %d wrong", k)
			}
			return polls, ok
		}},
		{"Irecv+Testall", false, func(r *Rank, c *Comm, n int) (int, bool) {
			b := r.MustAlloc(n)
			q, err := r.Irecv(b, n, datatype.Byte, 0, 1, c)
			if err != nil {
				t.Error(err)
				return 0, true
			}
			for polls := 0; polls < maxPolls; polls++ {
				if ok, _, _ := r.Testall([]*Request{q}); ok {
					return polls, true
				}
				r.Compute(pollCompute)
			}
			r.Wait(q)
			return maxPolls, false
		}},
		{"Iprobe", false, func(r *Rank, c *Comm, n int) (int, bool) {
			b := r.MustAlloc(n)
			defer func() {
				if _, err := r.Recv(b, n, datatype.Byte, 0, 1, c); err != nil {
					t.Error(err)
				}
			}()
			for polls := 0; polls < maxPolls; polls++ {
				if st, ok := r.Iprobe(0, 1, c); ok {
					if st.Bytes != n || st.Tag != 1 || st.Source != 0 {
						t.Errorf("Iprobe: %+v", st)
					}
					return polls, true
				}
				r.Compute(pollCompute)
			}
			return maxPolls, false
		}},
	}
	for _, proto := range Protocols {
		for _, cs := range cases {
			for _, n := range []int{40, 400} {
				t.Run(fmt.Sprintf("%s/%s/%d", proto, cs.name, n), func(t *testing.T) {
					w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
					var polls int
					var ok bool
					var peerAt int64
					w.Launch(func(r *Rank) {
						c := r.CommWorld()
						poller := 1
						if cs.sender {
							poller = 0
						}
						if r.Rank() == poller {
							polls, ok = cs.poll(r, c, n)
							return
						}
						r.Compute(delay)
						peerAt = int64(r.Now())
						b := r.MustAlloc(n)
						if cs.sender {
							if _, err := r.Recv(b, n, datatype.Byte, 0, 1, c); err != nil {
								t.Error(err)
							}
							return
						}
						semFill(b, n, 0, 0)
						if err := r.Send(b, n, datatype.Byte, 1, 1, c); err != nil {
							t.Error(err)
						}
					})
					semRun(t, w)
					if !ok {
						t.Errorf("%s polled %d times (%d cycles of computation between calls) and never completed, though the peer made its matching call at cycle %d",
							cs.name, polls, maxPolls*pollCompute, peerAt)
					}
				})
			}
		}
	}
}

// TestSemWaitanyWaitallTestall: rank 0 has nine requests in flight
// (sends and receives to three peers that answer at different times).
func TestSemWaitanyWaitallTestall(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, cfgFor(proto), nil)
			sizeTo := func(dst, tag int) int { return 40 + 180*(tag-1) + dst }
			sizeFrom := func(src int) int { return 100 * src }
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				me := r.Rank()
				if me != 0 {
					r.Compute(int64(3000 * me))
					for tag := 1; tag <= 2; tag++ {
						b := r.MustAlloc(sizeTo(me, tag))
						st, err := r.Recv(b, sizeTo(me, tag), datatype.Byte, 0, tag, c)
						if err != nil || st.Bytes != sizeTo(me, tag) {
							t.Errorf("rank %d tag %d: %+v %v", me, tag, st, err)
						} else if k := semBad(b.Bytes, st.Bytes, 0, 10*me+tag); k >= 0 {
							t.Errorf("rank %d tag %d: byte %d wrong", me, tag, k)
						}
					}
					b := r.MustAlloc(sizeFrom(me))
					semFill(b, sizeFrom(me), me, 3)
					if err := r.Send(b, sizeFrom(me), datatype.Byte, 0, 3, c); err != nil {
						t.Error(err)
					}
					// Testall phase.
					r.Compute(5000)
					semFill(b, sizeFrom(me), me, 4)
					if err := r.Send(b, sizeFrom(me), datatype.Byte, 0, 4, c); err != nil {
						t.Error(err)
					}
					// Waitall phase.
					b5 := r.MustAlloc(64)
					if st, err := r.Recv(b5, 64, datatype.Byte, 0, 5, c); err != nil || st.Bytes != 64 {
						t.Errorf("rank %d tag 5: %+v %v", me, st, err)
					} else if k := semBad(b5.Bytes, 64, 0, 50+me); k >= 0 {
						t.Errorf("rank %d tag 5: byte %d wrong", me, k)
					}
					return
				}
				type slot struct {
					send         bool
					peer, tag, n int
					buf          datatype.Buffer
				}
				var slots []slot
				var qs []*Request
				for dst := 1; dst <= 3; dst++ {
					for tag := 1; tag <= 2; tag++ {
						n := sizeTo(dst, tag)
						b := r.MustAlloc(n)
						semFill(b, n, 0, 10*dst+tag)
						q, err := r.Isend(b, n, datatype.Byte, dst, tag, c)
						if err != nil {
							t.Error(err)
							return
						}
						slots, qs = append(slots, slot{true, dst, tag, n, b}), append(qs, q)
					}
				}
				for src := 3; src >= 1; src-- {
					b := r.MustAlloc(400)
					q, err := r.Irecv(b, 400, datatype.Byte, src, 3, c)
					if err != nil {
						t.Error(err)
						return
					}
					slots, qs = append(slots, slot{false, src, 3, sizeFrom(src), b}), append(qs, q)
				}
				seen := map[int]int{}
				for i := 0; i < len(qs); i++ {
					idx, st, err := r.Waitany(qs)
					if err != nil {
						t.Errorf("Waitany: %v", err)
					}
					if idx < 0 || idx >= len(qs) {
						t.Errorf("Waitany call %d returned index %d", i, idx)
						return
					}
					seen[idx]++
					if s := slots[idx]; !s.send {
						if st.Source != s.peer || st.Tag != 3 || st.Bytes != s.n {
							t.Errorf("Waitany index %d: status %+v, want source %d tag 3 bytes %d", idx, st, s.peer, s.n)
						} else if k := semBad(s.buf.Bytes, s.n, s.peer, 3); k >= 0 {
							t.Errorf("Waitany index %d: byte %d wrong", idx, k)
						}
					}
				}
				for i := range qs {
					if seen[i] != 1 {
						t.Errorf("Waitany returned index %d %d times", i, seen[i])
					}
				}
				if idx, _, err := r.Waitany(qs); idx != group.Undefined || err != nil {
					t.Errorf("Waitany with every request complete = %d, %v; want MPI_UNDEFINED", idx, err)
				}

				// Testall, polled.
				qs = qs[:0]
				var bufs []datatype.Buffer
				for src := 1; src <= 3; src++ {
					b := r.MustAlloc(400)
					q, err := r.Irecv(b, 400, datatype.Byte, src, 4, c)
					if err != nil {
						t.Error(err)
						return
					}
					qs, bufs = append(qs, q), append(bufs, b)
				}
				// The loop yields the processor explicitly (suspendThread)
				// so handler threads run: this checks Testall's results;
				// TestSemPollingLoopsMakeProgress checks progress without
				// the yield.
				polls := 0
				for polls < 2000 {
					ok, sts, err := r.Testall(qs)
					if err != nil {
						t.Error(err)
					}
					if ok {
						for i, st := range sts {
							src := i + 1
							if st.Source != src || st.Tag != 4 || st.Bytes != sizeFrom(src) {
								t.Errorf("Testall status %d: %+v", i, st)
							} else if k := semBad(bufs[i].Bytes, sizeFrom(src), src, 4); k >= 0 {
								t.Errorf("Testall request %d: byte %d wrong", i, k)
							}
						}
						break
					}
					if sts != nil {
						t.Errorf("Testall false with statuses %v", sts)
					}
					polls++
					r.Compute(300)
					r.Thread().Suspend()
				}
				if polls == 2000 {
					t.Errorf("Testall never completed")
					r.Waitall(qs)
				}
				if polls == 0 {
					t.Errorf("Testall complete at the first poll; the peers wait 5000 cycles before sending")
				}

				// Waitall.
				qs = qs[:0]
				for dst := 1; dst <= 3; dst++ {
					b := r.MustAlloc(64)
					semFill(b, 64, 0, 50+dst)
					q, err := r.Isend(b, 64, datatype.Byte, dst, 5, c)
					if err != nil {
						t.Error(err)
						return
					}
					qs = append(qs, q)
				}
				// A nil request (MPI_REQUEST_NULL) is skipped.
				qs = append(qs[:1], append([]*Request{nil}, qs[1:]...)...)
				if sts, err := r.Waitall(qs); err != nil || len(sts) != 4 || sts[1] != (Status{}) {
					t.Errorf("Waitall with a nil request: %v, %v", sts, err)
				}
			})
			semRun(t, w)
		})
	}
}

// TestSemNullRequests: nil requests (MPI_REQUEST_NULL) in the completion
// calls: Waitall, Testall and Waitany skip them; Wait reports an error;
// Test must not crash the rank (it may report completion or an error).
func TestSemNullRequests(t *testing.T) {
	w := job(t, 2, 2, semProcs(cfgFor("scmp"), 2), nil)
	w.Launch(func(r *Rank) {
		if r.Rank() != 0 {
			return
		}
		if sts, err := r.Waitall([]*Request{nil, nil}); err != nil || len(sts) != 2 {
			t.Errorf("Waitall(nil, nil) = %v, %v", sts, err)
		}
		if ok, _, err := r.Testall([]*Request{nil}); !ok || err != nil {
			t.Errorf("Testall(nil) = %v, %v", ok, err)
		}
		if idx, _, err := r.Waitany([]*Request{nil}); idx != group.Undefined || err != nil {
			t.Errorf("Waitany(nil) = %d, %v", idx, err)
		}
		if _, err := r.Wait(nil); semClass(err) != mpierr.ErrArg {
			t.Errorf("Wait(nil) = %v, want %v", err, mpierr.ErrArg)
		}
		ok, _, err := r.Test(nil)
		if !ok && semClass(err) != mpierr.ErrArg {
			t.Errorf("Test(nil) = %v, %v; want completion or %v", ok, err, mpierr.ErrArg)
		}
	})
	if err := w.Run(); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "\n"); i > 0 {
			msg = msg[:i]
		}
		t.Errorf("run: %s", msg)
	}
}

// TestSemWaitallReportsPerRequestErrors: Waitall and Testall return the
// first error and each request's own error in its status.
func TestSemWaitallReportsPerRequestErrors(t *testing.T) {
	for _, proto := range Protocols {
		for _, testall := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/testall=%v", proto, testall), func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					if r.Rank() == 0 {
						b := r.MustAlloc(200)
						for tag, n := range []int{16, 200, 16} {
							semFill(b, n, 0, tag)
							if err := r.Send(b, n, datatype.Byte, 1, tag, c); err != nil {
								t.Error(err)
							}
						}
						return
					}
					var qs []*Request
					bufs := []datatype.Buffer{r.MustAlloc(16), r.MustAlloc(64), r.MustAlloc(16)}
					for tag, b := range bufs {
						q, err := r.Irecv(b, b.Len(), datatype.Byte, 0, tag, c)
						if err != nil {
							t.Error(err)
							return
						}
						qs = append(qs, q)
					}
					var sts []Status
					var err error
					if testall {
						for ok := false; !ok; {
							ok, sts, err = r.Testall(qs)
							r.Compute(200)
						}
					} else {
						sts, err = r.Waitall(qs)
					}
					if semClass(err) != mpierr.ErrTruncate {
						t.Errorf("error %v, want %v", err, mpierr.ErrTruncate)
					}
					if len(sts) != 3 {
						t.Fatalf("statuses %v", sts)
					}
					for i, want := range []mpierr.Class{0, mpierr.ErrTruncate, 0} {
						if semClass(sts[i].Err) != want || (want == 0 && sts[i].Err != nil) {
							t.Errorf("status %d: error %v, want class %v", i, sts[i].Err, want)
						}
					}
					if sts[0].Bytes != 16 || sts[1].Bytes != 64 || sts[2].Bytes != 16 {
						t.Errorf("statuses %+v", sts)
					}
					for i, n := range []int{16, 64, 16} {
						if k := semBad(bufs[i].Bytes, n, 0, i); k >= 0 {
							t.Errorf("request %d: byte %d wrong", i, k)
						}
					}
				})
				semRun(t, w)
			})
		}
	}
}
