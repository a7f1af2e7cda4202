package mpi

import (
	"errors"
	"fmt"
	"testing"

	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// A persistent send and receive bound once move a different message at
// every Start, word for word, under every protocol and at sizes that take
// the eager, rendezvous and copied (odd-size) paths; Startall starts an
// exchange in both directions at once.
func TestSemPersistentRequests(t *testing.T) {
	const rounds = 6
	for _, proto := range Protocols {
		for _, n := range []int{8, 37, semEagerBytes + 4, 3000} {
			t.Run(fmt.Sprintf("%s/%d", proto, n), func(t *testing.T) {
				w := job(t, 2, 1, cfgFor(proto), nil)
				w.Launch(func(r *Rank) {
					c, me := r.CommWorld(), r.Rank()
					peer := 1 - me
					sb, rb := r.MustAlloc(n), r.MustAlloc(n)
					ps, err := r.SendInit(sb, n, datatype.Byte, peer, 7, c)
					if err != nil {
						t.Error(err)
						return
					}
					pr, err := r.RecvInit(rb, n, datatype.Byte, peer, 7, c)
					if err != nil {
						t.Error(err)
						return
					}
					if ps.Request() != nil || pr.Request() != nil {
						t.Error("a request is active before its first Start")
					}
					// One direction: rank 0 sends, rank 1 receives.
					for k := 0; k < rounds; k++ {
						if me == 0 {
							semFill(sb, n, 0, k)
							if err := r.Start(ps); err != nil {
								t.Error(err)
								return
							}
							if _, err := r.Wait(ps.Request()); err != nil {
								t.Error(err)
							}
							continue
						}
						semSet(rb.Bytes[:n], 0)
						if err := r.Start(pr); err != nil {
							t.Error(err)
							return
						}
						st, err := r.Wait(pr.Request())
						if err != nil || st.Bytes != n || st.Source != 0 || st.Tag != 7 {
							t.Errorf("round %d: %+v %v", k, st, err)
						} else if b := semBad(rb.Bytes, n, 0, k); b >= 0 {
							t.Errorf("round %d: byte %d of %d wrong", k, b, n)
						}
					}
					// Both directions at once, started together.
					both := []*Prequest{pr, ps}
					for k := rounds; k < 2*rounds; k++ {
						semFill(sb, n, me, k)
						if err := r.Startall(both); err != nil {
							t.Error(err)
							return
						}
						sts, err := r.Waitall(Requests(both))
						if err != nil || sts[0].Bytes != n {
							t.Errorf("rank %d round %d: %+v %v", me, k, sts, err)
						} else if b := semBad(rb.Bytes, n, peer, k); b >= 0 {
							t.Errorf("rank %d round %d: byte %d wrong", me, k, b)
						}
					}
					starts := 0
					for _, s := range r.Stats() {
						if s.Op == "MPI_Start" {
							starts = s.Count
						}
					}
					if starts != rounds+2*rounds {
						t.Errorf("rank %d: %d MPI_Start calls counted, want %d", me, starts, 3*rounds)
					}
				})
				if err := w.Run(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// Start refuses an active request, a freed one, another rank's and nil,
// with MPI_ERR_ARG; bad arguments are refused at init.
func TestSemPersistentErrors(t *testing.T) {
	w := job(t, 2, 1, cfgFor("scmp"), nil)
	var p0 *Prequest
	w.Launch(func(r *Rank) {
		c := r.CommWorld()
		b := r.MustAlloc(64)
		isArg := func(what string, err error) {
			var e *mpierr.Error
			if !errors.As(err, &e) || e.Class != mpierr.ErrArg {
				t.Errorf("%s: %v, want MPI_ERR_ARG", what, err)
			}
		}
		if _, err := r.SendInit(b, 64, datatype.Byte, 5, 0, c); err == nil {
			t.Error("SendInit to rank 5 of 2 accepted")
		}
		if _, err := r.RecvInit(b, 65, datatype.Byte, 0, 0, c); err == nil {
			t.Error("RecvInit of 65 bytes into 64 accepted")
		}
		if r.Rank() == 1 {
			r.Compute(100)
			if p0 == nil {
				t.Error("rank 0 has not made its request yet")
			}
			isArg("another rank's", r.Start(p0))
			isArg("nil", r.Start(nil))
			if _, err := r.Recv(b, 64, datatype.Byte, 0, 1, c); err != nil {
				t.Error(err)
			}
			return
		}
		p, err := r.SendInit(b, 64, datatype.Byte, 1, 1, c)
		if err != nil {
			t.Fatal(err)
		}
		p0 = p
		r.Compute(1000) // rank 1 tries p0 meanwhile
		if err := r.Start(p); err != nil {
			t.Error(err)
		}
		isArg("active", r.Start(p))
		if _, err := r.Wait(p.Request()); err != nil {
			t.Error(err)
		}
		if err := r.RequestFree(p); err != nil {
			t.Error(err)
		}
		isArg("freed", r.Start(p))
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
}
