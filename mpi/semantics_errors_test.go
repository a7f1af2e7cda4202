package mpi

// Semantics tests (see semantics_test.go): erroneous programs and arguments.

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"nocsim/mpi/datatype"
	"nocsim/mpi/group"
	"nocsim/mpi/mpierr"
)

// ---------------------------------------------------------------------------
// 6. Ready send without a posted receive.

func TestSemRsendWithoutReceiveIsErroneous(t *testing.T) {
	for _, proto := range Protocols {
		for _, n := range []int{16, 400} {
			for _, nb := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%d/nonblocking=%v", proto, n, nb), func(t *testing.T) {
					w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
					w.Launch(func(r *Rank) {
						c := r.CommWorld()
						b := r.MustAlloc(n)
						if r.Rank() == 1 {
							// Waiting in a receive for another tag, so the
							// library handles the ready send as it arrives.
							r.Recv(b, n, datatype.Byte, 0, 50, c)
							r.Recv(b, n, datatype.Byte, 0, 3, c)
							return
						}
						if nb {
							if q, err := r.Irsend(b, n, datatype.Byte, 1, 3, c); err == nil {
								r.Send(b, n, datatype.Byte, 1, 50, c)
								r.Wait(q)
							}
							return
						}
						r.Rsend(b, n, datatype.Byte, 1, 3, c)
						r.Send(b, n, datatype.Byte, 1, 50, c)
					})
					err := w.Run()
					if err == nil {
						t.Fatal("run succeeded; a ready send before its receive is erroneous")
					}
					if msg := err.Error(); !strings.Contains(msg, "MPI_Rsend") || !strings.Contains(msg, "erroneous") {
						t.Errorf("error %q does not name MPI_Rsend as erroneous", msg)
					}
				})
			}
		}
	}
}

// ---------------------------------------------------------------------------
// 7. Deadlock reports.

func TestSemDeadlockSsendPair(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				b := r.MustAlloc(64)
				peer := 1 - r.Rank()
				r.Ssend(b, 64, datatype.Byte, peer, 4, c)
				r.Recv(b, 64, datatype.Byte, peer, 4, c)
			})
			err := w.Run()
			var dl *DeadlockError
			if !errors.As(err, &dl) {
				t.Fatalf("run: %v, want a *DeadlockError", err)
			}
			for _, want := range []string{
				"rank 0 in MPI_Ssend(dest=1", "rank 1 in MPI_Ssend(dest=0",
				"unmatched: rank 0 MPI_Ssend(dest=1, tag=4", "unmatched: rank 1 MPI_Ssend(dest=0, tag=4",
			} {
				if !strings.Contains(dl.Report, want) {
					t.Errorf("report lacks %q:\n%s", want, dl.Report)
				}
			}
		})
	}
}

func TestSemDeadlockRecvCycle(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, semProcs(cfgFor(proto), 3), nil)
			w.Launch(func(r *Rank) {
				b := r.MustAlloc(8)
				r.Recv(b, 8, datatype.Byte, (r.Rank()+1)%3, 0, r.CommWorld())
			})
			err := w.Run()
			var dl *DeadlockError
			if !errors.As(err, &dl) {
				t.Fatalf("run: %v, want a *DeadlockError", err)
			}
			for i := 0; i < 3; i++ {
				want := fmt.Sprintf("rank %d in MPI_Recv(source=%d", i, (i+1)%3)
				if !strings.Contains(dl.Report, want) {
					t.Errorf("report lacks %q:\n%s", want, dl.Report)
				}
			}
			if strings.Contains(dl.Report, "unmatched") {
				t.Errorf("report lists unmatched sends, but nothing was sent:\n%s", dl.Report)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// 13. Argument errors.

func TestSemArgumentErrors(t *testing.T) {
	uncommitted, err := datatype.TypeVector(2, 1, 2, datatype.Int32)
	if err != nil {
		t.Fatal(err)
	}
	freed, err := datatype.TypeContiguous(2, datatype.Int32)
	if err == nil {
		err = freed.Commit()
	}
	if err == nil {
		err = freed.Free()
	}
	if err != nil {
		t.Fatal(err)
	}
	vec3, err := datatype.TypeVector(3, 1, 4, datatype.Int32) // span 36 bytes
	if err == nil {
		err = vec3.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
	type call func(r *Rank, b datatype.Buffer, c *Comm) error
	send := func(n int, dt *datatype.Datatype, dst, tag int) call {
		return func(r *Rank, b datatype.Buffer, c *Comm) error { return r.Send(b, n, dt, dst, tag, c) }
	}
	isend := func(n int, dt *datatype.Datatype, dst, tag int) call {
		return func(r *Rank, b datatype.Buffer, c *Comm) error {
			q, err := r.Isend(b, n, dt, dst, tag, c)
			if q != nil {
				return fmt.Errorf("request %v returned with error %v", q, err)
			}
			return err
		}
	}
	recv := func(n int, dt *datatype.Datatype, src, tag int) call {
		return func(r *Rank, b datatype.Buffer, c *Comm) error { _, err := r.Recv(b, n, dt, src, tag, c); return err }
	}
	irecv := func(n int, dt *datatype.Datatype, src, tag int) call {
		return func(r *Rank, b datatype.Buffer, c *Comm) error {
			q, err := r.Irecv(b, n, dt, src, tag, c)
			if q != nil {
				return fmt.Errorf("request %v returned with error %v", q, err)
			}
			return err
		}
	}
	const p = 3
	cases := []struct {
		name string
		want mpierr.Class
		f    call
	}{
		{"Send dest=P", mpierr.ErrRank, send(1, datatype.Int32, p, 0)},
		{"Send dest=-1", mpierr.ErrRank, send(1, datatype.Int32, -1, 0)},
		{"Send dest=ANY_SOURCE", mpierr.ErrRank, send(1, datatype.Int32, AnySource, 0)},
		{"Isend dest=P+5", mpierr.ErrRank, isend(1, datatype.Int32, p+5, 0)},
		{"Recv source=P", mpierr.ErrRank, recv(1, datatype.Int32, p, 0)},
		{"Recv source=-5", mpierr.ErrRank, recv(1, datatype.Int32, -5, 0)},
		{"Irecv source=P", mpierr.ErrRank, irecv(1, datatype.Int32, p, 0)},
		{"Send tag=-1", mpierr.ErrArg, send(1, datatype.Int32, 1, -1)},
		{"Send tag=ANY_TAG", mpierr.ErrArg, send(1, datatype.Int32, 1, AnyTag)},
		{"Recv tag=-3", mpierr.ErrArg, recv(1, datatype.Int32, 1, -3)},
		{"Isend tag=-7", mpierr.ErrArg, isend(1, datatype.Int32, 1, -7)},
		{"Send tag=MPI_TAG_UB+1", mpierr.ErrArg, send(1, datatype.Int32, 1, TagUB+1)},
		{"Isend tag=2^32+5", mpierr.ErrArg, isend(1, datatype.Int32, 1, 1<<32+5)},
		{"Recv tag=MPI_TAG_UB+1", mpierr.ErrArg, recv(1, datatype.Int32, 1, TagUB+1)},
		{"Send count=-1", mpierr.ErrCount, send(-1, datatype.Int32, 1, 0)},
		{"Recv count=-1", mpierr.ErrCount, recv(-1, datatype.Int32, 1, 0)},
		{"Irecv count=-2", mpierr.ErrCount, irecv(-2, datatype.Byte, 1, 0)},
		{"Send uncommitted", mpierr.ErrType, send(1, uncommitted, 1, 0)},
		{"Recv uncommitted", mpierr.ErrType, recv(1, uncommitted, 1, 0)},
		{"Send freed type", mpierr.ErrType, send(1, freed, 1, 0)},
		{"Send nil type", mpierr.ErrType, send(1, nil, 1, 0)},
		{"Send 10 int32 from 36 bytes", mpierr.ErrBuffer, send(10, datatype.Int32, 1, 0)},
		{"Recv 10 int32 into 36 bytes", mpierr.ErrBuffer, recv(10, datatype.Int32, 1, 0)},
		{"Isend 2 vectors from 36 bytes", mpierr.ErrBuffer, isend(2, vec3, 1, 0)},
		{"Irecv 5 float64 into 36 bytes", mpierr.ErrBuffer, irecv(5, datatype.Float64, 1, 0)},
		{"Send nil comm", mpierr.ErrArg, func(r *Rank, b datatype.Buffer, c *Comm) error { return r.Send(b, 1, datatype.Int32, 1, 0, nil) }},
		{"Bsend unattached", mpierr.ErrBuffer, func(r *Rank, b datatype.Buffer, c *Comm) error { return r.Bsend(b, 1, datatype.Int32, 1, 0, c) }},
		{"Bsend too big", mpierr.ErrBuffer, func(r *Rank, b datatype.Buffer, c *Comm) error {
			if err := r.BufferAttach(r.MustAlloc(16)); err != nil {
				return err
			}
			defer r.BufferDetach()
			return r.Bsend(b, 9, datatype.Int32, 1, 0, c)
		}},
		{"BufferAttach twice", mpierr.ErrBuffer, func(r *Rank, b datatype.Buffer, c *Comm) error {
			if err := r.BufferAttach(r.MustAlloc(16)); err != nil {
				return err
			}
			defer r.BufferDetach()
			return r.BufferAttach(r.MustAlloc(16))
		}},
		{"Wait nil", mpierr.ErrArg, func(r *Rank, b datatype.Buffer, c *Comm) error { _, err := r.Wait(nil); return err }},
		{"Probe source=P", mpierr.ErrRank, func(r *Rank, b datatype.Buffer, c *Comm) error { _, err := r.Probe(p, 0, c); return err }},
		{"Probe tag=-4", mpierr.ErrArg, func(r *Rank, b datatype.Buffer, c *Comm) error { _, err := r.Probe(1, -4, c); return err }},
		{"Iprobe source=P", mpierr.ErrRank, func(r *Rank, b datatype.Buffer, c *Comm) error {
			st, ok := r.Iprobe(p, 0, c)
			if ok {
				return errors.New("Iprobe of an invalid rank found a message")
			}
			return st.Err
		}},
		{"Sendrecv dest=P", mpierr.ErrRank, func(r *Rank, b datatype.Buffer, c *Comm) error {
			_, err := r.Sendrecv(b, 1, datatype.Int32, p, 0, b, 1, datatype.Int32, 1, 0, c)
			return err
		}},
	}
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, semProcs(cfgFor(proto), p), nil)
			finished := 0
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				b := r.MustAlloc(36)
				// Collective calls with bad arguments, on every rank.
				if _, err := r.CommSplit(c, -5, 0); semClass(err) != mpierr.ErrArg {
					t.Errorf("CommSplit color -5: %v, want %v", err, mpierr.ErrArg)
				}
				bad, _ := group.NewGroup([]int{0, 99})
				if _, err := r.CommCreate(c, bad); semClass(err) != mpierr.ErrGroup {
					t.Errorf("CommCreate with a group not in the communicator: %v, want %v", err, mpierr.ErrGroup)
				}
				if r.Rank() == 0 {
					for _, cs := range cases {
						err := cs.f(r, b, c)
						if got := semClass(err); got != cs.want {
							t.Errorf("%s: %v (class %v), want class %v", cs.name, err, got, cs.want)
						}
					}
				}
				// Nothing the errors left behind disturbs a real exchange.
				if r.Rank() == 0 {
					for dst := 1; dst < p; dst++ {
						b.SetInt32(0, int32(dst*11))
						if err := r.Send(b, 1, datatype.Int32, dst, 0, c); err != nil {
							t.Error(err)
						}
					}
				} else {
					st, err := r.Recv(b, 9, datatype.Int32, AnySource, AnyTag, c)
					if err != nil || st.Source != 0 || st.Bytes != 4 || int(b.Int32(0)) != 11*r.Rank() {
						t.Errorf("rank %d after the errors: %+v, %v, %d", r.Rank(), st, err, b.Int32(0))
					}
				}
				finished++
			})
			semRun(t, w)
			if finished != p {
				t.Errorf("%d of %d ranks finished", finished, p)
			}
		})
	}
}

// TestSemSendrecvErrorLeavesNoReceive: a Sendrecv that fails on its send
// half (invalid destination) must not leave its receive half posted,
// where it would swallow a later message meant for another receive.
func TestSemSendrecvErrorLeavesNoReceive(t *testing.T) {
	// A send type reaching before the buffer start passes the span check
	// and fails only when the send packs it.
	negLB, err := datatype.TypeCreateHindexed([]int{1}, []int{-4}, datatype.Int32)
	if err == nil {
		err = negLB.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		dest  int
		dt    *datatype.Datatype
		count int
		class mpierr.Class
	}{
		{"invalid-dest", 5, datatype.Byte, 16, mpierr.ErrRank},
		{"send-type-before-buffer", 1, negLB, 1, mpierr.ErrBuffer},
	}
	for _, proto := range Protocols {
		for _, cs := range cases {
			t.Run(proto+"/"+cs.name, func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					if r.Rank() == 1 {
						b := r.MustAlloc(16)
						semFill(b, 16, 1, 0)
						if err := r.Send(b, 16, datatype.Byte, 0, 4, c); err != nil {
							t.Error(err)
						}
						return
					}
					sb, orphan := r.MustAlloc(16), r.MustAlloc(16)
					if _, err := r.Sendrecv(sb, cs.count, cs.dt, cs.dest, 4, orphan, 16, datatype.Byte, 1, 4, c); semClass(err) != cs.class {
						t.Errorf("Sendrecv: %v, want class %v", err, cs.class)
					}
					b := r.MustAlloc(16)
					var got Status
					q, err := r.Irecv(b, 16, datatype.Byte, 1, 4, c)
					if err != nil {
						t.Error(err)
						return
					}
					// Bounded wait, so a swallowed message fails the test
					// rather than deadlocking the job.
					for i := 0; i < 200; i++ {
						ok, st, err := r.Test(q)
						if err != nil {
							t.Error(err)
						}
						if ok {
							got = st
							break
						}
						r.Compute(100)
						r.Thread().Suspend()
					}
					if got.Bytes != 16 || semBad(b.Bytes, 16, 1, 0) >= 0 {
						t.Errorf("the message for Recv(1, 4) never arrived; the failed Sendrecv's buffer holds %x", orphan.Bytes)
					}
				})
				err := w.Run()
				var dl *DeadlockError
				if err != nil && !errors.As(err, &dl) {
					t.Errorf("run: %v", err)
				}
			})
		}
	}
}
