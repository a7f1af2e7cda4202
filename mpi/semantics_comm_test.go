package mpi

// Semantics tests (see semantics_test.go): communicators.

import (
	"fmt"
	"slices"
	"testing"

	"nocsim/mpi/datatype"
	"nocsim/mpi/group"
	"nocsim/mpi/mpierr"
)

// ---------------------------------------------------------------------------
// 8. Communicators.

func TestSemCommDupIsolation(t *testing.T) {
	for _, proto := range Protocols {
		for _, dupFirst := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dup-sent-first=%v", proto, dupFirst), func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
				const n = 48
				w.Launch(func(r *Rank) {
					world := r.CommWorld()
					dup, err := r.CommDup(world)
					if err != nil {
						t.Error(err)
						return
					}
					if dup.Size() != 2 || dup.Rank() != r.Rank() {
						t.Errorf("dup: size %d rank %d", dup.Size(), dup.Rank())
					}
					if cmp := CommCompare(world, dup); cmp != group.Congruent {
						t.Errorf("CommCompare(world, dup) = %v, want MPI_CONGRUENT", cmp)
					}
					tok := r.MustAlloc(4)
					if r.Rank() == 0 {
						if _, err := r.Recv(tok, 1, datatype.Int32, 1, 9, world); err != nil {
							t.Error(err)
							return
						}
						wb, db := r.MustAlloc(n), r.MustAlloc(n)
						semFill(wb, n, 0, 1) // world payload
						semFill(db, n, 0, 2) // dup payload
						order := []struct {
							b datatype.Buffer
							c *Comm
						}{{wb, world}, {db, dup}}
						if dupFirst {
							order[0], order[1] = order[1], order[0]
						}
						var qs []*Request
						for _, o := range order {
							q, err := r.Isend(o.b, n, datatype.Byte, 1, 5, o.c)
							if err != nil {
								t.Error(err)
								return
							}
							qs = append(qs, q)
						}
						if _, err := r.Waitall(qs); err != nil {
							t.Error(err)
						}
						// An unreceived message on dup is invisible on world.
						semFill(db, n, 0, 3)
						if err := r.Send(db, n, datatype.Byte, 1, 6, dup); err != nil {
							t.Error(err)
						}
						return
					}
					wb, db := r.MustAlloc(n), r.MustAlloc(n)
					// The receive on the other communicator is posted first,
					// so a context-blind match would take the wrong message.
					first, second := dup, world
					firstB, secondB := db, wb
					if dupFirst {
						first, second, firstB, secondB = world, dup, wb, db
					}
					q1, err1 := r.Irecv(firstB, n, datatype.Byte, 0, 5, first)
					q2, err2 := r.Irecv(secondB, n, datatype.Byte, 0, 5, second)
					if err1 != nil || err2 != nil {
						t.Error(err1, err2)
						return
					}
					if err := r.Send(tok, 1, datatype.Int32, 0, 9, world); err != nil {
						t.Error(err)
						return
					}
					if _, err := r.Waitall([]*Request{q1, q2}); err != nil {
						t.Error(err)
					}
					if k := semBad(wb.Bytes, n, 0, 1); k >= 0 {
						t.Errorf("the MPI_COMM_WORLD receive did not get the world message (byte %d)", k)
					}
					if k := semBad(db.Bytes, n, 0, 2); k >= 0 {
						t.Errorf("the dup receive did not get the dup message (byte %d)", k)
					}
					st, err := r.Probe(0, 6, dup)
					if err != nil || st.Tag != 6 || st.Bytes != n {
						t.Errorf("Probe on dup: %+v, %v", st, err)
					}
					if st, ok := r.Iprobe(0, 6, world); ok {
						t.Errorf("Iprobe on world sees a dup message: %+v", st)
					}
					if st, ok := r.Iprobe(AnySource, AnyTag, world); ok {
						t.Errorf("Iprobe(ANY, ANY) on world sees a dup message: %+v", st)
					}
					if _, err := r.Recv(db, n, datatype.Byte, 0, 6, dup); err != nil || semBad(db.Bytes, n, 0, 3) >= 0 {
						t.Errorf("Recv on dup: %v", err)
					}
				})
				semRun(t, w)
			})
		}
	}
}

func TestSemCommSplit(t *testing.T) {
	const p = 7
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 4, 2, semProcs(cfgFor(proto), p), nil)
			// Model: color = rank%2, key = -rank, so each half is in
			// decreasing world-rank order.
			members := map[int][]int{}
			for wr := p - 1; wr >= 0; wr-- {
				members[wr%2] = append(members[wr%2], wr)
			}
			w.Launch(func(r *Rank) {
				world := r.CommWorld()
				me := r.Rank()
				c, err := r.CommSplit(world, me%2, -me)
				if err != nil || c == nil {
					t.Errorf("rank %d: CommSplit: %v, %v", me, c, err)
					return
				}
				want := members[me%2]
				wantRank := slices.Index(want, me)
				if c.Size() != len(want) || c.Rank() != wantRank || !slices.Equal(c.Group().Members(), want) {
					t.Errorf("rank %d: size %d rank %d members %v; want %d %d %v", me, c.Size(), c.Rank(), c.Group().Members(), len(want), wantRank, want)
					return
				}
				if cmp := CommCompare(c, world); cmp != group.Unequal {
					t.Errorf("CommCompare(half, world) = %v, want MPI_UNEQUAL", cmp)
				}
				if cmp := CommCompare(c, c); cmp != group.Ident {
					t.Errorf("CommCompare(c, c) = %v, want MPI_IDENT", cmp)
				}
				// Ring in the new communicator, by comm rank.
				n := len(want)
				to, from := (wantRank+1)%n, (wantRank+n-1)%n
				sb, rb := r.MustAlloc(4), r.MustAlloc(4)
				sb.SetInt32(0, int32(me))
				st, err := r.Sendrecv(sb, 1, datatype.Int32, to, 2, rb, 1, datatype.Int32, from, 2, c)
				if err != nil || st.Source != from || st.Tag != 2 || int(rb.Int32(0)) != want[from] {
					t.Errorf("rank %d: ring on split comm: %+v %v got world rank %d, want source %d (world %d)", me, st, err, rb.Int32(0), from, want[from])
				}
				// Wildcard source reports the comm rank.
				if wantRank == 0 {
					for i := 1; i < n; i++ {
						st, err := r.Recv(rb, 1, datatype.Int32, AnySource, 3, c)
						if err != nil || st.Source < 1 || st.Source >= n || int(rb.Int32(0)) != want[st.Source] {
							t.Errorf("ANY_SOURCE on split comm: %+v %v payload world rank %d", st, err, rb.Int32(0))
						}
					}
				} else if err := r.Send(sb, 1, datatype.Int32, 0, 3, c); err != nil {
					t.Error(err)
				}

				// Same members, same order: congruent; reversed: similar.
				same, err := r.CommSplit(world, 0, me)
				if err != nil || same == nil {
					t.Errorf("CommSplit same: %v", err)
					return
				}
				if cmp := CommCompare(world, same); cmp != group.Congruent {
					t.Errorf("CommCompare(world, split in order) = %v, want MPI_CONGRUENT", cmp)
				}
				rev, err := r.CommSplit(world, 5, p-me)
				if err != nil || rev == nil {
					t.Errorf("CommSplit reversed: %v", err)
					return
				}
				if rev.Rank() != p-1-me {
					t.Errorf("reversed split: rank %d, want %d", rev.Rank(), p-1-me)
				}
				if cmp := CommCompare(world, rev); cmp != group.Similar {
					t.Errorf("CommCompare(world, reversed) = %v, want MPI_SIMILAR", cmp)
				}

				// MPI_UNDEFINED opts out.
				color := 1
				if me == 0 || me == 3 {
					color = group.Undefined
				}
				u, err := r.CommSplit(world, color, 0)
				if err != nil {
					t.Errorf("rank %d: CommSplit with Undefined: %v", me, err)
					return
				}
				if color == group.Undefined {
					if u != nil {
						t.Errorf("rank %d: color MPI_UNDEFINED gave a communicator of size %d", me, u.Size())
					}
					return
				}
				var rest []int
				for i := 0; i < p; i++ {
					if i != 0 && i != 3 {
						rest = append(rest, i)
					}
				}
				if u == nil || u.Size() != len(rest) || u.Rank() != slices.Index(rest, me) {
					t.Errorf("rank %d: split without 0 and 3: %v", me, u)
				}
			})
			semRun(t, w)
		})
	}
}

func TestSemCommCreate(t *testing.T) {
	const p = 6
	incl := []int{5, 1, 3} // world ranks, in new-comm order
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 3, 2, semProcs(cfgFor(proto), p), nil)
			got := make([]int, p)
			w.Launch(func(r *Rank) {
				world := r.CommWorld()
				me := r.Rank()
				g, err := group.GroupIncl(world.Group(), incl)
				if err != nil {
					t.Error(err)
					return
				}
				c, err := r.CommCreate(world, g)
				if err != nil {
					t.Errorf("rank %d: CommCreate: %v", me, err)
					return
				}
				want := slices.Index(incl, me)
				if want < 0 {
					if c != nil {
						t.Errorf("rank %d is not in the group but got a communicator", me)
					}
					got[me] = -1
					return
				}
				if c == nil || c.Size() != len(incl) || c.Rank() != want || !slices.Equal(c.Group().Members(), incl) {
					t.Errorf("rank %d: communicator %v, want rank %d of %v", me, c, want, incl)
					return
				}
				// Comm rank 0 gathers the world ranks from comm ranks 1, 2.
				b := r.MustAlloc(4)
				if want == 0 {
					for i := 1; i < len(incl); i++ {
						st, err := r.Recv(b, 1, datatype.Int32, i, 1, c)
						if err != nil || st.Source != i || int(b.Int32(0)) != incl[i] {
							t.Errorf("from comm rank %d: %+v %v payload %d", i, st, err, b.Int32(0))
						}
					}
				} else {
					b.SetInt32(0, int32(me))
					if err := r.Send(b, 1, datatype.Int32, 0, 1, c); err != nil {
						t.Error(err)
					}
				}
				got[me] = c.Rank()
			})
			semRun(t, w)
			want := []int{-1, 1, -1, 2, -1, 0}
			if !slices.Equal(got, want) {
				t.Errorf("comm ranks by world rank %v, want %v", got, want)
			}
		})
	}
}

func TestSemCommFree(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
			w.Launch(func(r *Rank) {
				world := r.CommWorld()
				dup, err := r.CommDup(world)
				if err != nil {
					t.Error(err)
					return
				}
				if err := r.CommFree(dup); err != nil {
					t.Errorf("CommFree: %v", err)
				}
				b := r.MustAlloc(8)
				if err := r.Send(b, 2, datatype.Int32, 1-r.Rank(), 0, dup); semClass(err) != mpierr.ErrArg {
					t.Errorf("Send on a freed communicator: %v, want %v", err, mpierr.ErrArg)
				}
				if _, err := r.Recv(b, 2, datatype.Int32, 1-r.Rank(), 0, dup); semClass(err) != mpierr.ErrArg {
					t.Errorf("Recv on a freed communicator: %v, want %v", err, mpierr.ErrArg)
				}
				if q, err := r.Isend(b, 2, datatype.Int32, 1-r.Rank(), 0, dup); semClass(err) != mpierr.ErrArg || q != nil {
					t.Errorf("Isend on a freed communicator: %v, %v", q, err)
				}
				if _, err := r.CommDup(dup); semClass(err) != mpierr.ErrArg {
					t.Errorf("CommDup of a freed communicator: %v", err)
				}
				if err := r.CommFree(dup); err == nil {
					t.Errorf("CommFree twice succeeded")
				}
				if err := r.CommFree(world); semClass(err) != mpierr.ErrArg {
					t.Errorf("CommFree(MPI_COMM_WORLD): %v", err)
				}
				// World still works.
				if r.Rank() == 0 {
					b.SetInt32(0, 77)
					if err := r.Send(b, 1, datatype.Int32, 1, 1, world); err != nil {
						t.Error(err)
					}
				} else if _, err := r.Recv(b, 1, datatype.Int32, 0, 1, world); err != nil || b.Int32(0) != 77 {
					t.Errorf("world after the frees: %v, %d", err, b.Int32(0))
				}
			})
			semRun(t, w)
		})
	}
}

// TestSemCommOpsProcsBelowTiles: with fewer ranks than tiles the context
// server (the highest-numbered tile) is not a rank; communicators still
// work.
func TestSemCommOpsProcsBelowTiles(t *testing.T) {
	const p = 13
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 4, 4, semProcs(cfgFor(proto), p), nil)
			w.Launch(func(r *Rank) {
				world := r.CommWorld()
				me := r.Rank()
				dup, err := r.CommDup(world)
				if err != nil {
					t.Error(err)
					return
				}
				c, err := r.CommSplit(dup, me%3, -me)
				if err != nil || c == nil {
					t.Errorf("rank %d: split: %v", me, err)
					return
				}
				var members []int
				for i := p - 1; i >= 0; i-- {
					if i%3 == me%3 {
						members = append(members, i)
					}
				}
				my := slices.Index(members, me)
				if c.Size() != len(members) || c.Rank() != my {
					t.Errorf("rank %d: split size %d rank %d, want %d %d", me, c.Size(), c.Rank(), len(members), my)
					return
				}
				n := len(members)
				sb, rb := r.MustAlloc(4), r.MustAlloc(4)
				sb.SetInt32(0, int32(me))
				st, err := r.Sendrecv(sb, 1, datatype.Int32, (my+1)%n, 0, rb, 1, datatype.Int32, (my+n-1)%n, 0, c)
				if err != nil || st.Source != (my+n-1)%n || int(rb.Int32(0)) != members[(my+n-1)%n] {
					t.Errorf("rank %d: ring: %+v %v %d", me, st, err, rb.Int32(0))
				}
			})
			semRun(t, w)
		})
	}
}

// TestSemLibraryTrafficInvisible: wildcard receives posted on
// MPI_COMM_WORLD before CommDup, CommSplit and CommCreate must not catch
// the library's own messages for them.
func TestSemLibraryTrafficInvisible(t *testing.T) {
	const p = 6
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 3, 2, semProcs(cfgFor(proto), p), nil)
			w.Launch(func(r *Rank) {
				world := r.CommWorld()
				me := r.Rank()
				rb := r.MustAlloc(64)
				q, err := r.Irecv(rb, 64, datatype.Byte, AnySource, AnyTag, world)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := r.CommDup(world); err != nil {
					t.Error(err)
				}
				if _, err := r.CommSplit(world, me%2, me); err != nil {
					t.Error(err)
				}
				g, _ := group.GroupIncl(world.Group(), []int{0, 2, 4})
				if _, err := r.CommCreate(world, g); err != nil {
					t.Error(err)
				}
				// (The collectives are not barriers: a neighbour's user
				// message may already have arrived, so only what the
				// receive got is checked.)
				sb := r.MustAlloc(12)
				semFill(sb, 12, me, 77)
				if err := r.Send(sb, 12, datatype.Byte, (me+1)%p, 77, world); err != nil {
					t.Error(err)
				}
				left := (me + p - 1) % p
				st, err := r.Wait(q)
				if err != nil || st.Source != left || st.Tag != 77 || st.Bytes != 12 || semBad(rb.Bytes, 12, left, 77) >= 0 {
					t.Errorf("rank %d: wildcard receive got %+v, %v; want rank %d's tag-77 message", me, st, err, left)
				}
			})
			semRun(t, w)
		})
	}
}
