package mpi

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	sched "nocsim/coll"
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// The Cray X1 algorithms (coll_cray.go): each test asserts the behaviour
// that defines one of them in Nicholson & Goozen's section 4, on the
// messages the network carried.

// crayMsg is one network message; what names it by the collective
// structure it writes or the handler it starts.
type crayMsg struct {
	src, dst int
	what     string
	words    int
	at       des.Time
}

// Message kinds.
const (
	cmResume  = "resume store"
	cmClimb   = "climb reply"
	cmSlot    = "start store"
	cmFlag    = "getBlock flag"
	cmBlock   = "block"
	cmGet     = "getBlock"
	cmCheckIn = "check-in"
	cmFadd    = "fetch-add"
	cmOther   = "other"
)

// crayJob runs prog on P ranks with cfg and classifies every message.
func crayJob(t *testing.T, P int, cfg Config, prog func(r *Rank)) (*World, []crayMsg) {
	t.Helper()
	cfg.Procs = P
	wd := 4
	if P > 16 {
		wd = 8
	}
	w := job(t, wd, wd, cfg, nil)
	var msgs []crayMsg
	w.M.OnSent = func(p *endpoint.Packet, at des.Time) {
		m := crayMsg{src: int(p.Src), dst: int(p.Dst), words: int(p.Len) - 2, at: at, what: cmOther}
		if p.Kind == endpoint.KindThread {
			switch endpoint.HandlerID(p.DstAddr) {
			case 0: // getBlock: the native handlers are registered first
				m.what = cmGet
			case w.h.crayCheckIn:
				m.what = cmCheckIn
			case w.h.crayFadd:
				m.what = cmFadd
			}
		} else if p.Kind == endpoint.KindData {
			base := w.cray[m.dst].Addr
			switch off := int(p.DstAddr) - int(base); {
			case off == crayResume && m.words == 1:
				m.what = cmResume
			case off == crayClimb && m.words == 1:
				m.what = cmClimb
			case off == crayDone && m.words == 1:
				m.what = cmFlag
			case off == craySlots+craySlotWords*m.src && m.words == 3:
				m.what = cmSlot
			default:
				m.what = cmBlock
			}
		}
		msgs = append(msgs, m)
	}
	w.Launch(prog)
	if err := w.Run(); err != nil {
		t.Fatalf("P=%d: %v", P, err)
	}
	if err := w.CheckQuiet(); err != nil {
		t.Fatalf("P=%d: %v", P, err)
	}
	return w, msgs
}

func crayCount(msgs []crayMsg, what string) int {
	n := 0
	for _, m := range msgs {
		if m.what == what {
			n++
		}
	}
	return n
}

func crayCfg(op, alg string) Config {
	cfg := DefaultConfig()
	cfg.SetAlgorithm(op, alg)
	return cfg
}

func TestCrayRegistry(t *testing.T) {
	for _, oa := range [][2]string{{"barrier", "tree4_scatter"}, {"bcast", "pull_rma"}, {"scatter", "pull_rma"}, {"alltoall", "pull_scan"}} {
		i := slices.IndexFunc(sched.Algorithms(), func(a *sched.Algorithm) bool { return a.Op == oa[0] && a.Name == oa[1] })
		if i < 0 {
			t.Errorf("%s %s not registered", oa[0], oa[1])
			continue
		}
		a := sched.Algorithms()[i]
		if !a.Native || !sched.IsNative(oa[0], oa[1]) || !strings.Contains(a.Source, "Nicholson & Goozen, Cray X1 MPI §4") || a.Messages == "" {
			t.Errorf("%+v: want Native, the Cray paper's section 4 as source, and a message count", a)
		}
	}
	if sched.IsNative("barrier", "tree4") || sched.IsNative("bcast", "pull") {
		t.Error("the MPI-message algorithms are not native")
	}
}

// crayBarrierCount is the registry's count for tree4_scatter with ranks
// arriving in rank order: P-1 release stores, and per 4-way group of n >= 2
// participants n-1 fetch-adds at level 0 (the word's holder, the group's
// first rank, arrives first and adds locally) or n above (the
// participants are the last ranks of their subgroups, never the holder),
// plus the reply to the last.
func crayBarrierCount(P int) (fadds, replies int) {
	for span := 1; span < P; span *= 4 {
		for holder := 0; holder < P; holder += 4 * span {
			n := min(4, (P-holder+span-1)/span)
			if n < 2 {
				continue
			}
			replies++
			fadds += n
			if span == 1 {
				fadds--
			}
		}
	}
	return
}

// TestCrayBarrierLastArriverReleases: there is no master. Whichever rank
// arrives last (rank order, reverse order, a middle rank last) sends every
// other rank its resume store, P-1 of them, and nobody else sends one; no
// rank leaves before the last one arrives; with ranks arriving in rank
// order the fetch-adds and replies are the registry's count.
func TestCrayBarrierLastArriverReleases(t *testing.T) {
	const gap = 3000
	orders := map[string]func(i, P int) int{
		"rank order":    func(i, P int) int { return i },
		"reverse order": func(i, P int) int { return P - 1 - i },
		"middle last": func(i, P int) int {
			if i == P/2 {
				return 1
			}
			return 0
		},
	}
	if f, r := crayBarrierCount(16); f+r+15 != 36 {
		t.Errorf("P=16: %d fetch-adds and %d replies + 15 stores, the registry says 36 in all", f, r)
	}
	for _, P := range []int{2, 3, 4, 5, 8, 13, 16, 17, 21, 64} {
		for name, slot := range orders {
			if P == 64 && name == "reverse order" {
				// Rank 0 holds a word at every level and computes while
				// nine fetch-adds come in: with 8 thread contexts the
				// ninth waits in the network, and is applied after rank
				// 0's own: its sender is then the last arriver.
				continue
			}
			t.Run(fmt.Sprintf("P=%d/%s", P, name), func(t *testing.T) {
				t.Parallel()
				enter, leave := make([]des.Time, P), make([]des.Time, P)
				last := 0
				for i := range P {
					if slot(i, P) > slot(last, P) {
						last = i
					}
				}
				_, msgs := crayJob(t, P, crayCfg("barrier", "tree4_scatter"), func(r *Rank) {
					r.Compute(int64(slot(r.Rank(), P)) * gap)
					enter[r.Rank()] = r.Now()
					if err := r.Barrier(r.CommWorld()); err != nil {
						t.Error(err)
					}
					leave[r.Rank()] = r.Now()
				})
				if slices.Min(leave) < slices.Max(enter) {
					t.Errorf("a rank left at %d, before the last arrival at %d", slices.Min(leave), slices.Max(enter))
				}
				got := map[int]bool{}
				for _, m := range msgs {
					if m.what == cmResume {
						if m.src != last {
							t.Errorf("rank %d sent a resume store; the last arriver is rank %d", m.src, last)
						}
						got[m.dst] = true
					}
				}
				if n := crayCount(msgs, cmResume); n != P-1 || len(got) != P-1 || got[last] {
					t.Errorf("%d resume stores to %d ranks (to the releaser: %v), want one to each of the other %d", n, len(got), got[last], P-1)
				}
				if n := crayCount(msgs, cmOther) + crayCount(msgs, cmBlock); n != 0 {
					t.Errorf("%d messages that are neither fetch-adds, replies nor resume stores", n)
				}
				if name == "rank order" {
					f, r := crayBarrierCount(P)
					if gf, gr := crayCount(msgs, cmFadd), crayCount(msgs, cmClimb); gf != f || gr != r {
						t.Errorf("%d fetch-adds and %d replies, want %d and %d", gf, gr, f, r)
					}
				}
			})
		}
	}
}

// TestCrayBarrierOverlappingComms: barriers of two communicators that
// share the ranks holding their words run at once, and a world barrier
// after them; each counts its own arrivals.
func TestCrayBarrierOverlappingComms(t *testing.T) {
	const P = 13
	cfg := crayCfg("barrier", "tree4_scatter")
	cfg.Procs = P
	w := job(t, 4, 4, cfg, nil)
	enter := map[int][]des.Time{}
	leave := map[int][]des.Time{}
	w.Launch(func(r *Rank) {
		odd, err := r.CommSplit(r.CommWorld(), r.Rank()%2, -r.Rank())
		if err != nil {
			t.Error(err)
			return
		}
		all, err := r.CommSplit(r.CommWorld(), 0, r.Rank()%3)
		if err != nil {
			t.Error(err)
			return
		}
		for i, c := range []*Comm{odd, all, r.CommWorld()} {
			r.Compute(int64(r.Rank()*37%11) * 40)
			key := 100 * i // which barrier: the two halves' first, then the two whole ones
			if i == 0 {
				key += r.Rank() % 2
			}
			enter[key] = append(enter[key], r.Now())
			if err := r.Barrier(c); err != nil {
				t.Error(err)
			}
			leave[key] = append(leave[key], r.Now())
		}
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	for k := range enter {
		if slices.Min(leave[k]) < slices.Max(enter[k]) {
			t.Errorf("barrier %d: a rank left at %d, before the last arrival at %d", k, slices.Min(leave[k]), slices.Max(enter[k]))
		}
	}
}

// TestCrayBcastRootLeaves: with small data (< 32 bytes) the root's
// MPI_Bcast returns before any non-root's, "even before the non-root
// processors have transferred the data"; with more the root waits for its
// check-in count and returns after every non-root. The root itself sends
// only the P-1 start stores; every byte moves in a getBlock a non-root
// asked for; 5(P-1) messages in all (3(P-1) for 0 bytes: nothing to get).
func TestCrayBcastRootLeaves(t *testing.T) {
	for _, P := range []int{2, 5, 16, 64} {
		for _, root := range []int{0, P - 1} {
			for _, n := range []int{0, 8, 31, 32, 1000} {
				// (0 bytes: nothing to pull, so the non-roots leave as
				// soon as their flag is set, the root after its last
				// store: only the counts are checked.)
				t.Run(fmt.Sprintf("P=%d/root=%d/%dB", P, root, n), func(t *testing.T) {
					t.Parallel()
					leave := make([]des.Time, P)
					_, msgs := crayJob(t, P, crayCfg("bcast", "pull_rma"), func(r *Rank) {
						b := r.MustAlloc(max(n, 1))
						if r.Rank() == root {
							for i := range n {
								b.Bytes[i] = byte(i*7 + 1)
							}
						}
						if err := r.Bcast(b, n, datatype.Byte, root, r.CommWorld()); err != nil {
							t.Error(err)
						}
						leave[r.Rank()] = r.Now()
						for i := range n {
							if b.Bytes[i] != byte(i*7+1) {
								t.Errorf("rank %d byte %d: %d", r.Rank(), i, b.Bytes[i])
								break
							}
						}
					})
					others := slices.Delete(slices.Clone(leave), root, root+1)
					if 0 < n && n < craySmallBytes && leave[root] >= slices.Min(others) {
						t.Errorf("small data: the root left at %d, a non-root at %d: want the root first", leave[root], slices.Min(others))
					}
					if n >= craySmallBytes && leave[root] <= slices.Max(others) {
						t.Errorf("large data: the root left at %d, the last non-root at %d: want the root last", leave[root], slices.Max(others))
					}
					crayCheckPulls(t, msgs, P, root, func(int) int { return n })
				})
			}
		}
	}
}

// crayCheckPulls checks a pull from root by every other rank i of size(i)
// bytes: root's only own messages are a start store to each; each i sends
// root one getBlock (none for 0 bytes) and then one check-in; root's node
// answers each getBlock with the block, after the request, and the flag.
func crayCheckPulls(t *testing.T, msgs []crayMsg, P, root int, size func(i int) int) {
	t.Helper()
	want := 0
	for i := range P {
		if i == root {
			continue
		}
		var asked des.Time = -1
		var got []string
		for _, m := range msgs {
			switch {
			case m.src == root && m.dst == i:
				got = append(got, m.what)
				if m.what == cmBlock && (asked < 0 || m.at < asked || m.words != sched.Pad4(size(i))/4) {
					t.Errorf("rank %d: a %d-word block at %d; getBlock for %d bytes sent at %d", i, m.words, m.at, size(i), asked)
				}
			case m.src == i && m.dst == root:
				got = append(got, m.what)
				if m.what == cmGet {
					asked = m.at
				}
			case m.src == i || m.dst == i:
				t.Errorf("rank %d: %s between ranks %d and %d", i, m.what, m.src, m.dst)
			}
		}
		exp := []string{cmSlot, cmGet, cmBlock, cmFlag, cmCheckIn}
		if size(i) == 0 {
			exp = []string{cmSlot, cmCheckIn}
		}
		if !slices.Equal(got, exp) {
			t.Errorf("rank %d: messages with root %d %v, want %v", i, root, got, exp)
		}
		want += len(exp)
	}
	if len(msgs) != want {
		t.Errorf("%d messages, want %d", len(msgs), want)
	}
}

// TestCrayScatterNonRootsPull: the root stores each rank's block address
// and sets its start flag, and moves no block itself: each non-root pulls
// its own with a getBlock (for Scatterv, of its own size).
func TestCrayScatterNonRootsPull(t *testing.T) {
	for _, P := range []int{2, 5, 16} {
		for _, root := range []int{0, P - 1} {
			t.Run(fmt.Sprintf("P=%d/root=%d", P, root), func(t *testing.T) {
				t.Parallel()
				size := func(i int) int { return 4 * (i%3 + 1) }
				_, msgs := crayJob(t, P, crayCfg("scatter", "pull_rma"), func(r *Rank) {
					counts, displs := make([]int, P), make([]int, P)
					total := 0
					for i := range P {
						counts[i], displs[i] = size(i), total
						total += size(i)
					}
					sb := r.MustAlloc(total)
					for i := range sb.Bytes {
						sb.Bytes[i] = byte(i + 1)
					}
					rb := r.MustAlloc(size(r.Rank()))
					if err := r.Scatterv(sb, counts, displs, datatype.Byte, rb, size(r.Rank()), datatype.Byte, root, r.CommWorld()); err != nil {
						t.Error(err)
					}
					for j, v := range rb.Bytes[:size(r.Rank())] {
						if v != byte(displs[r.Rank()]+j+1) {
							t.Errorf("rank %d byte %d: %d", r.Rank(), j, v)
							break
						}
					}
				})
				crayCheckPulls(t, msgs, P, root, size)
			})
		}
	}
}

// TestCrayAlltoallScanOutOfOrder: receivers take blocks as the senders'
// start flags arrive, not in rank order. Rank P-1 enters first, then P-2,
// and so on, far apart: when rank me starts its scan (at me+1), the flags
// of the ranks above it are all set, and one pass takes them in rank
// order; the flags of the ranks below arrive one by one, highest first,
// and are taken as they come. So rank me pulls from me+1, ..., P-1, then me-1, ..., 0:
// never from rank 0 first (but rank 0 itself), where a loop over the
// ranks in order would start with rank 0 and wait for it. 5P(P-1)
// messages.
func TestCrayAlltoallScanOutOfOrder(t *testing.T) {
	const gap, blk = 4000, 12
	for _, P := range []int{3, 5, 8, 16} {
		t.Run(fmt.Sprintf("P=%d", P), func(t *testing.T) {
			t.Parallel()
			_, msgs := crayJob(t, P, crayCfg("alltoall", "pull_scan"), func(r *Rank) {
				me := r.Rank()
				sb, rb := r.MustAlloc(P*blk), r.MustAlloc(P*blk)
				for i := range sb.Bytes {
					sb.Bytes[i] = byte(me*31 + i)
				}
				r.Compute(int64(P-1-me) * gap)
				if err := r.Alltoall(sb, blk, datatype.Byte, rb, blk, datatype.Byte, r.CommWorld()); err != nil {
					t.Error(err)
				}
				for j := range P {
					for b := range blk {
						if rb.Bytes[j*blk+b] != byte(j*31+me*blk+b) {
							t.Errorf("rank %d: byte %d of block %d wrong", me, b, j)
							return
						}
					}
				}
			})
			for me := range P {
				var order []int
				for _, m := range msgs {
					if m.what == cmGet && m.src == me {
						order = append(order, m.dst)
					}
				}
				var want []int
				for i := me + 1; i < P; i++ {
					want = append(want, i) // set when it starts scanning: one pass, rank order
				}
				for i := me - 1; i >= 0; i-- {
					want = append(want, i) // then as they come
				}
				if !slices.Equal(order, want) {
					t.Errorf("rank %d pulls from %v, want %v", me, order, want)
				}
			}
			if n := len(msgs); n != 5*P*(P-1) {
				t.Errorf("%d messages, want 5P(P-1) = %d", n, 5*P*(P-1))
			}
			for _, what := range []string{cmSlot, cmGet, cmBlock, cmFlag, cmCheckIn} {
				if n := crayCount(msgs, what); n != P*(P-1) {
					t.Errorf("%d %s messages, want P(P-1) = %d", n, what, P*(P-1))
				}
			}
		})
	}
}

// TestCraySizeMismatchEndsCleanly: a rank whose receive is smaller than
// what it is sent reports a truncation, after pulling what fits and
// checking in, so the rank that exposed the data is not left waiting and
// the run ends.
func TestCraySizeMismatchEndsCleanly(t *testing.T) {
	const P = 5
	for _, op := range []string{"scatter", "alltoall"} {
		t.Run(op, func(t *testing.T) {
			alg := "pull_rma"
			if op == "alltoall" {
				alg = "pull_scan"
			}
			errs := make([]error, P)
			crayJob(t, P, crayCfg(op, alg), func(r *Rank) {
				me := r.Rank()
				counts, displs := make([]int, P), make([]int, P)
				for i := range P {
					counts[i], displs[i] = 8, 8*i
				}
				rcounts := slices.Clone(counts)
				if me == 2 {
					rcounts[0] = 4 // rank 2 expects 4 bytes where 8 come
				}
				sb, rb := r.MustAlloc(8*P), r.MustAlloc(8*P)
				if op == "scatter" {
					errs[me] = r.Scatterv(sb, counts, displs, datatype.Byte, rb, rcounts[0], datatype.Byte, 0, r.CommWorld())
				} else {
					errs[me] = r.Alltoallv(sb, counts, displs, datatype.Byte, rb, rcounts, displs, datatype.Byte, r.CommWorld())
				}
			})
			for i, err := range errs {
				var e *mpierr.Error
				if bad := errors.As(err, &e) && e.Class == mpierr.ErrTruncate; bad != (i == 2) || (err != nil) != (i == 2) {
					t.Errorf("rank %d: %v", i, err)
				}
			}
		})
	}
}
