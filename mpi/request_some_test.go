package mpi

import (
	"fmt"
	"slices"
	"testing"

	"nocsim/mpi/datatype"
	"nocsim/mpi/group"
)

// Waitsome returns exactly the requests that have completed when it
// returns, each once over successive calls, with their data; with none
// active it reports Undefined. Ranks 1 and 2 send at once; rank 3 only
// after rank 0's first Waitsome has returned (it waits for a go message),
// so that call can never report it.
func TestSemWaitsome(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, cfgFor(proto), nil)
			const n = 300
			w.Launch(func(r *Rank) {
				c, me := r.CommWorld(), r.Rank()
				if me != 0 {
					b := r.MustAlloc(n)
					if me == 3 {
						if _, err := r.Recv(b, 4, datatype.Byte, 0, 9, c); err != nil {
							t.Error(err)
						}
					}
					semFill(b, n, me, 1)
					if err := r.Send(b, n, datatype.Byte, 0, 1, c); err != nil {
						t.Error(err)
					}
					return
				}
				qs := make([]*Request, 4) // index 0 stays nil: MPI_REQUEST_NULL
				bufs := make([]datatype.Buffer, 4)
				for src := 1; src <= 3; src++ {
					bufs[src] = r.MustAlloc(n)
					var err error
					if qs[src], err = r.Irecv(bufs[src], n, datatype.Byte, src, 1, c); err != nil {
						t.Fatal(err)
					}
				}
				r.Compute(20000)
				reported := map[int]int{}
				for call := 0; len(reported) < 3; call++ {
					was := make([]bool, 4)
					for i, q := range qs {
						was[i] = active(q)
					}
					out, idx, sts, err := r.Waitsome(qs)
					if err != nil || out < 1 || out != len(idx) || len(sts) != len(idx) || !slices.IsSorted(idx) {
						t.Fatalf("call %d: outcount %d, indices %v, %d statuses, %v", call, out, idx, len(sts), err)
					}
					// Exactly the completed set: no simulated time passes
					// between the return and this check.
					for i, q := range qs {
						in := slices.Contains(idx, i)
						if in != (was[i] && q != nil && q.arrived()) {
							t.Errorf("call %d: request %d reported %v, active before %v, arrived %v", call, i, in, was[i], q != nil && q.arrived())
						}
					}
					for k, i := range idx {
						reported[i]++
						if sts[k].Source != i || sts[k].Bytes != n {
							t.Errorf("request %d: status %+v", i, sts[k])
						} else if b := semBad(bufs[i].Bytes, n, i, 1); b >= 0 {
							t.Errorf("request %d: byte %d wrong", i, b)
						}
					}
					if call == 0 {
						if slices.Contains(idx, 3) {
							t.Error("the first Waitsome reported rank 3's message, not yet sent")
						}
						go4 := r.MustAlloc(4)
						if err := r.Send(go4, 4, datatype.Byte, 3, 9, c); err != nil {
							t.Error(err)
						}
					}
				}
				for i := 1; i <= 3; i++ {
					if reported[i] != 1 {
						t.Errorf("request %d reported %d times", i, reported[i])
					}
				}
				if out, idx, _, _ := r.Waitsome(qs); out != group.Undefined || idx != nil {
					t.Errorf("no active request: outcount %d, indices %v; want Undefined", out, idx)
				}
			})
			if err := w.Run(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Testsome and Testany do not block: with a receive whose sender waits for
// a go message they report nothing (Testsome outcount 0, Testany flag
// false) and return, which a blocking call could not (the run would
// deadlock). After the go, polling them completes the receive once.
func TestSemTestsomeTestany(t *testing.T) {
	for _, proto := range Protocols {
		for _, which := range []string{"Testsome", "Testany"} {
			t.Run(fmt.Sprintf("%s/%s", proto, which), func(t *testing.T) {
				w := job(t, 2, 1, cfgFor(proto), nil)
				const n = 200
				w.Launch(func(r *Rank) {
					c, me := r.CommWorld(), r.Rank()
					b := r.MustAlloc(n)
					if me == 1 {
						if _, err := r.Recv(b, 4, datatype.Byte, 0, 9, c); err != nil {
							t.Error(err)
						}
						semFill(b, n, 1, 2)
						if err := r.Send(b, n, datatype.Byte, 0, 2, c); err != nil {
							t.Error(err)
						}
						return
					}
					q, err := r.Irecv(b, n, datatype.Byte, 1, 2, c)
					if err != nil {
						t.Fatal(err)
					}
					qs := []*Request{nil, q}
					poll := func() (done bool, idx int, st Status) {
						if which == "Testsome" {
							out, ids, sts, err := r.Testsome(qs)
							if err != nil || out != len(ids) {
								t.Errorf("Testsome: %d %v %v", out, ids, err)
							}
							if out > 0 {
								return true, ids[0], sts[0]
							}
							return false, group.Undefined, Status{}
						}
						i, flag, st, err := r.Testany(qs)
						if err != nil {
							t.Error(err)
						}
						return flag, i, st
					}
					for k := 0; k < 3; k++ {
						if done, idx, _ := poll(); done || idx != group.Undefined {
							t.Errorf("%s before the send: done %v index %d, want none", which, done, idx)
						}
					}
					if err := r.Send(r.MustAlloc(4), 4, datatype.Byte, 1, 9, c); err != nil {
						t.Error(err)
					}
					polls := 0
					for {
						polls++
						if polls > 100000 {
							t.Fatalf("%s never saw the message", which)
						}
						done, idx, st := poll()
						if !done {
							r.Compute(50)
							continue
						}
						if idx != 1 || st.Bytes != n || semBad(b.Bytes, n, 1, 2) >= 0 {
							t.Errorf("%s: index %d, status %+v, data right %v", which, idx, st, semBad(b.Bytes, n, 1, 2) < 0)
						}
						break
					}
					// Nothing active any more.
					if out, _, _, _ := r.Testsome(qs); out != group.Undefined {
						t.Errorf("Testsome with nothing active: %d, want Undefined", out)
					}
					if i, flag, _, _ := r.Testany(qs); !flag || i != group.Undefined {
						t.Errorf("Testany with nothing active: index %d flag %v, want Undefined, true", i, flag)
					}
				})
				if err := w.Run(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// GetProcessorName names each rank's tile by its mesh coordinates: rank i
// runs on tile i, column i mod W, row i div W.
func TestGetProcessorName(t *testing.T) {
	w := job(t, 4, 3, cfgFor("scmp"), nil)
	names := make([]string, 12)
	w.Launch(func(r *Rank) { names[r.Rank()] = r.GetProcessorName() })
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	for i, got := range names {
		if want := fmt.Sprintf("node(%d,%d)", i%4, i/4); got != want || len(got) > MaxProcessorName {
			t.Errorf("rank %d: %q, want %q", i, got, want)
		}
	}
}
