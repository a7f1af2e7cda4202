package mpi

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi/datatype"
	"nocsim/mpi/group"
)

// thesisCfg is the thesis profile for P ranks.
func thesisCfg(P int) Config {
	cfg := DefaultConfig()
	cfg.Library = "thesis"
	cfg.Procs = P
	return cfg
}

// thesisMsg is one network message a job sent.
type thesisMsg struct {
	src, dst int
	kind     uint8
	handler  uint32 // THREAD: the handler; DATA: the destination address
	words    int    // data words (flits past head and address)
}

// thesisJob runs prog on P ranks (4x4 mesh up to 16, else 8x8) and
// returns every message the network carried, in the order they left.
func thesisJob(t *testing.T, cfg Config, P int, cpu func(*endpoint.CPUSpec), prog func(r *Rank)) (*World, []thesisMsg) {
	t.Helper()
	cfg.Procs = P
	wd := 4
	if P > 16 {
		wd = 8
	}
	w := job(t, wd, wd, cfg, cpu)
	var msgs []thesisMsg
	w.M.OnSent = func(p *endpoint.Packet, _ des.Time) {
		msgs = append(msgs, thesisMsg{int(p.Src), int(p.Dst), p.Kind, p.DstAddr, int(p.Len) - 2})
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

func thesisCount(msgs []thesisMsg, kind uint8) int {
	n := 0
	for _, m := range msgs {
		if m.kind == kind {
			n++
		}
	}
	return n
}

// halvingPairs is figure 4.3's pattern: in step k every rank that is a
// multiple of 2^(k-1) but not of 2^k sends to the multiple of 2^k just
// below it, until only rank 0 is left.
func halvingPairs(P int) [][2]int {
	var out [][2]int
	for h := 1; h < P; h <<= 1 {
		for r := h; r < P; r += 2 * h {
			out = append(out, [2]int{r, r - h})
		}
	}
	return out
}

// blockPairs are the (src, dst) of the DATA messages carrying data (the
// completion-flag writes carry one word), sorted.
func blockPairs(msgs []thesisMsg) [][2]int {
	var out [][2]int
	for _, m := range msgs {
		if m.kind == endpoint.KindData && m.words > 1 {
			out = append(out, [2]int{m.src, m.dst})
		}
	}
	slices.SortFunc(out, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return out
}

func sortedPairs(p [][2]int) [][2]int {
	out := slices.Clone(p)
	slices.SortFunc(out, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return out
}

// TestThesisMessages counts the THREAD and DATA messages of one barrier,
// broadcast and reduction under the thesis profile against chapter 4:
// the barrier is P-1 THREAD messages in to rank 0 and P-1 out, nothing
// else; every point-to-point message of the broadcast and the reduction
// is section 4.2.2's rendezvous (THREAD _MPI_Post_send, THREAD
// _MPI_Request_data, the DATA block and the DATA completion flag); the
// broadcast's messages all leave the root, and the reduction's follow
// figure 4.3.
func TestThesisMessages(t *testing.T) {
	for _, P := range []int{2, 4, 8, 16} {
		t.Run(fmt.Sprintf("barrier/P=%d", P), func(t *testing.T) {
			w, msgs := thesisJob(t, thesisCfg(P), P, nil, func(r *Rank) {
				if err := r.Barrier(r.CommWorld()); err != nil {
					t.Error(err)
				}
			})
			if got := thesisCount(msgs, endpoint.KindData); got != 0 {
				t.Errorf("%d DATA messages, want 0", got)
			}
			in, out := 0, 0
			for _, m := range msgs {
				switch {
				case m.kind == endpoint.KindThread && m.handler == uint32(w.h.barrierArrive) && m.dst == 0 && m.src != 0:
					in++
				case m.kind == endpoint.KindThread && m.handler == uint32(w.h.barrierRelease) && m.src == 0 && m.dst != 0:
					out++
				default:
					t.Errorf("unexpected message %+v", m)
				}
			}
			if in != P-1 || out != P-1 {
				t.Errorf("%d THREAD messages in to rank 0 and %d out, want %d and %d", in, out, P-1, P-1)
			}
		})
		for _, root := range []int{0, P - 1} {
			t.Run(fmt.Sprintf("bcast/P=%d/root=%d", P, root), func(t *testing.T) {
				_, msgs := thesisJob(t, thesisCfg(P), P, nil, func(r *Rank) {
					b := r.MustAlloc(8)
					if r.Rank() == root {
						b.SetFloat64(0, 2.5)
					}
					if err := r.Bcast(b, 1, datatype.Float64, root, r.CommWorld()); err != nil || b.Float64(0) != 2.5 {
						t.Errorf("rank %d: %v, got %v", r.Rank(), err, b.Float64(0))
					}
				})
				thread, data := thesisCount(msgs, endpoint.KindThread), thesisCount(msgs, endpoint.KindData)
				if thread != 2*(P-1) || data != 2*(P-1) {
					t.Errorf("%d THREAD and %d DATA messages, want %d and %d", thread, data, 2*(P-1), 2*(P-1))
				}
				var want [][2]int
				for i := range P {
					if i != root {
						want = append(want, [2]int{root, i})
					}
				}
				if got := blockPairs(msgs); !slices.Equal(got, sortedPairs(want)) {
					t.Errorf("data blocks %v, want %v (flat, from the root)", got, want)
				}
			})
			t.Run(fmt.Sprintf("reduce/P=%d/root=%d", P, root), func(t *testing.T) {
				_, msgs := thesisJob(t, thesisCfg(P), P, nil, func(r *Rank) {
					s, b := r.MustAlloc(8), r.MustAlloc(8)
					s.SetFloat64(0, float64(r.Rank()+1))
					if err := r.Reduce(s, b, 1, datatype.Float64, datatype.OpSum, root, r.CommWorld()); err != nil {
						t.Error(err)
					}
					if want := float64(P * (P + 1) / 2); r.Rank() == root && b.Float64(0) != want {
						t.Errorf("root got %v, want %v", b.Float64(0), want)
					}
				})
				want := halvingPairs(P)
				if root != 0 {
					want = append(want, [2]int{0, root}) // rank 0 forwards the result
				}
				thread, data := thesisCount(msgs, endpoint.KindThread), thesisCount(msgs, endpoint.KindData)
				if thread != 2*len(want) || data != 2*len(want) {
					t.Errorf("%d THREAD and %d DATA messages, want %d and %d", thread, data, 2*len(want), 2*len(want))
				}
				if got := blockPairs(msgs); !slices.Equal(got, sortedPairs(want)) {
					t.Errorf("data blocks %v, want figure 4.3's %v", got, sortedPairs(want))
				}
			})
		}
		t.Run(fmt.Sprintf("allreduce/P=%d", P), func(t *testing.T) {
			_, msgs := thesisJob(t, thesisCfg(P), P, nil, func(r *Rank) {
				s, b := r.MustAlloc(8), r.MustAlloc(8)
				s.SetFloat64(0, float64(r.Rank()+1))
				if err := r.Allreduce(s, b, 1, datatype.Float64, datatype.OpSum, r.CommWorld()); err != nil || b.Float64(0) != float64(P*(P+1)/2) {
					t.Errorf("rank %d: %v, got %v", r.Rank(), err, b.Float64(0))
				}
			})
			// Reduce to 0, then the flat Bcast from 0.
			want := halvingPairs(P)
			for i := 1; i < P; i++ {
				want = append(want, [2]int{0, i})
			}
			if got := blockPairs(msgs); !slices.Equal(got, sortedPairs(want)) {
				t.Errorf("data blocks %v, want %v", got, sortedPairs(want))
			}
			if thread := thesisCount(msgs, endpoint.KindThread); thread != 4*(P-1) {
				t.Errorf("%d THREAD messages, want %d", thread, 4*(P-1))
			}
		})
		t.Run(fmt.Sprintf("scan/P=%d", P), func(t *testing.T) {
			_, msgs := thesisJob(t, thesisCfg(P), P, nil, func(r *Rank) {
				s, b := r.MustAlloc(8), r.MustAlloc(8)
				s.SetFloat64(0, 1)
				if err := r.Scan(s, b, 1, datatype.Float64, datatype.OpSum, r.CommWorld()); err != nil || b.Float64(0) != float64(r.Rank()+1) {
					t.Errorf("rank %d: %v, got %v", r.Rank(), err, b.Float64(0))
				}
			})
			var want [][2]int
			for i := 1; i < P; i++ {
				want = append(want, [2]int{i - 1, i})
			}
			if got := blockPairs(msgs); !slices.Equal(got, want) {
				t.Errorf("data blocks %v, want the chain %v", got, want)
			}
		})
	}
}

// TestThesisCommDup checks MPI_Comm_dup's messages against section 4.2.3:
// rank 0's THREAD request to the last tile and its DATA answer, a barrier,
// one THREAD request to rank 0 and one DATA answer per other rank, and a
// last barrier; and that the new communicator works and is isolated.
func TestThesisCommDup(t *testing.T) {
	for _, P := range []int{2, 4, 16} {
		w, msgs := thesisJob(t, thesisCfg(P), P, nil, func(r *Rank) {
			d, err := r.CommDup(r.CommWorld())
			if err != nil {
				t.Error(err)
				return
			}
			if CommCompare(d, r.CommWorld()) != group.Congruent {
				t.Errorf("rank %d: the duplicate is not congruent to the world", r.Rank())
			}
		})
		server := len(w.M.Nodes) - 1
		var toServer, fromServer, asks, answers, arrive, release int
		for _, m := range msgs {
			switch {
			case m.kind == endpoint.KindThread && m.handler == uint32(w.h.ctxRequest) && m.src == 0 && m.dst == server:
				toServer++
			case m.kind == endpoint.KindData && m.src == server && m.dst == 0:
				fromServer++
			case m.kind == endpoint.KindThread && m.handler == uint32(w.h.ctxAsk) && m.dst == 0:
				asks++
			case m.kind == endpoint.KindData && m.src == 0:
				answers++
			case m.kind == endpoint.KindThread && m.handler == uint32(w.h.barrierArrive):
				arrive++
			case m.kind == endpoint.KindThread && m.handler == uint32(w.h.barrierRelease):
				release++
			default:
				t.Errorf("P=%d: unexpected message %+v", P, m)
			}
		}
		if toServer != 1 || fromServer != 1 || asks != P-1 || answers != P-1 || arrive != 2*(P-1) || release != 2*(P-1) {
			t.Errorf("P=%d: %d/%d context request/answer, %d/%d asks/answers at rank 0, %d/%d barrier arrivals/releases; want 1/1, %d/%d, %d/%d",
				P, toServer, fromServer, asks, answers, arrive, release, P-1, P-1, 2*(P-1), 2*(P-1))
		}
	}
	// Two duplicates get different contexts, and messages keep to theirs.
	_, _ = thesisJob(t, thesisCfg(4), 4, nil, func(r *Rank) {
		a, errA := r.CommDup(r.CommWorld())
		b, errB := r.CommDup(r.CommWorld())
		if errA != nil || errB != nil || a.ctx == b.ctx || a.ctx == r.CommWorld().ctx {
			t.Errorf("rank %d: contexts %d and %d (%v, %v)", r.Rank(), a.ctx, b.ctx, errA, errB)
			return
		}
		buf := r.MustAlloc(4)
		if r.Rank() == 0 {
			buf.SetInt32(0, 1)
			_ = r.Send(buf, 1, datatype.Int32, 1, 0, a)
			buf.SetInt32(0, 2)
			_ = r.Send(buf, 1, datatype.Int32, 1, 0, b)
		} else if r.Rank() == 1 {
			_, _ = r.Recv(buf, 1, datatype.Int32, 0, 0, a)
			if buf.Int32(0) != 1 {
				t.Errorf("message on the first duplicate: %d", buf.Int32(0))
			}
			_, _ = r.Recv(buf, 1, datatype.Int32, 0, 0, b)
			if buf.Int32(0) != 2 {
				t.Errorf("message on the second duplicate: %d", buf.Int32(0))
			}
		}
	})
}

// TestThesisSplitBarrier: under the thesis profile MPI_Comm_split ends in
// a barrier (section 4.2.3), and the split communicators work.
func TestThesisSplitBarrier(t *testing.T) {
	const P = 6
	w, msgs := thesisJob(t, thesisCfg(P), P, nil, func(r *Rank) {
		c, err := r.CommSplit(r.CommWorld(), r.Rank()%2, -r.Rank())
		if err != nil {
			t.Error(err)
			return
		}
		s, b := r.MustAlloc(4), r.MustAlloc(4)
		s.SetInt32(0, int32(r.Rank()))
		if err := r.Allreduce(s, b, 1, datatype.Int32, datatype.OpSum, c); err != nil {
			t.Error(err)
		}
		if want := map[int]int32{0: 0 + 2 + 4, 1: 1 + 3 + 5}[r.Rank()%2]; b.Int32(0) != want {
			t.Errorf("rank %d: sum over its half %d, want %d", r.Rank(), b.Int32(0), want)
		}
	})
	arrive := 0
	for _, m := range msgs {
		if m.kind == endpoint.KindThread && m.handler == uint32(w.h.barrierArrive) {
			arrive++
		}
	}
	if arrive != P-1 {
		t.Errorf("%d barrier arrivals, want %d (one barrier on the parent)", arrive, P-1)
	}
}

// thesisMakespan is the cycle the last rank finishes prog.
func thesisMakespan(t *testing.T, cfg Config, P int, callCycles int64, prog func(r *Rank)) int64 {
	t.Helper()
	w, _ := thesisJob(t, cfg, P, func(c *endpoint.CPUSpec) { c.CallCycles = callCycles }, prog)
	var end des.Time
	for _, r := range w.Ranks {
		at, _ := r.Finished()
		end = max(end, at)
	}
	return int64(end)
}

func thesisReduceProg(op string) func(r *Rank) {
	return func(r *Rank) {
		s, b := r.MustAlloc(64), r.MustAlloc(64)
		c := r.CommWorld()
		var err error
		switch op {
		case "allreduce":
			err = r.Allreduce(s, b, 8, datatype.Float64, datatype.OpSum, c)
		case "reduce":
			err = r.Reduce(s, b, 8, datatype.Float64, datatype.OpSum, 0, c)
		case "bcast":
			err = r.Bcast(b, 8, datatype.Float64, 0, c)
		case "reduce+bcast":
			if err = r.Reduce(s, b, 8, datatype.Float64, datatype.OpSum, 0, c); err == nil {
				err = r.Bcast(b, 8, datatype.Float64, 0, c)
			}
		}
		if err != nil {
			panic(err)
		}
	}
}

// TestThesisCallCharges: section 6.4's call structure is charged.
// On one rank no message moves, so an Allreduce's time is its calls: its
// own, Reduce's and Bcast's, three call_cycles where the default library
// charges one. On P ranks an Allreduce costs at least a Reduce followed by
// a Bcast (one program calling both, so that the Bcast's receivers are
// already waiting, as they are inside the Allreduce) plus the call of the
// Allreduce itself; the default library's reduce_bcast, which calls
// neither, costs less than the pair.
func TestThesisCallCharges(t *testing.T) {
	for _, lib := range []struct {
		name  string
		calls int64
	}{{"thesis", 3}, {"nocsim", 1}} {
		cfg := DefaultConfig()
		cfg.Library = lib.name
		if lib.name == "nocsim" {
			cfg.Allreduce = "reduce_bcast"
		}
		t1 := thesisMakespan(t, cfg, 1, 100, thesisReduceProg("allreduce"))
		t2 := thesisMakespan(t, cfg, 1, 1100, thesisReduceProg("allreduce"))
		if t2-t1 != 1000*lib.calls {
			t.Errorf("%s: a one-rank Allreduce grows by %d cycles per 1000 call_cycles, want %d calls' worth", lib.name, t2-t1, lib.calls*1000)
		}
	}
	for _, P := range []int{4, 16} {
		for _, call := range []int64{20, 200} {
			pair := thesisMakespan(t, thesisCfg(P), P, call, thesisReduceProg("reduce+bcast"))
			all := thesisMakespan(t, thesisCfg(P), P, call, thesisReduceProg("allreduce"))
			if all < pair+call {
				t.Errorf("P=%d call_cycles=%d: thesis Allreduce %d cycles, less than Reduce then Bcast %d + one call %d", P, call, all, pair, call)
			}
			cfg := DefaultConfig()
			cfg.Reduce, cfg.Bcast, cfg.Allreduce = "binomial", "binomial", "reduce_bcast"
			pair = thesisMakespan(t, cfg, P, call, thesisReduceProg("reduce+bcast"))
			all = thesisMakespan(t, cfg, P, call, thesisReduceProg("allreduce"))
			if all >= pair {
				t.Errorf("P=%d call_cycles=%d: default reduce_bcast Allreduce %d cycles, not below Reduce then Bcast %d", P, call, all, pair)
			}
		}
	}
}

// TestThesisBlockingCalls: under the thesis profile a blocking send is
// MPI_Send calling MPI_Isend (which calls the request helper) and
// MPI_Wait (section 4.2.2, 6.4): a ping's time grows with call_cycles by
// more calls than under the default library, on the sender's side before
// its THREAD message leaves.
func TestThesisBlockingCalls(t *testing.T) {
	firstSend := func(lib string, call int64) int64 {
		cfg := DefaultConfig()
		cfg.Library = lib
		cfg.Procs = 2
		w := job(t, 2, 1, cfg, func(c *endpoint.CPUSpec) { c.CallCycles = call })
		var first des.Time = -1
		w.M.OnSent = func(p *endpoint.Packet, now des.Time) {
			if first < 0 {
				first = p.Created
			}
		}
		w.Launch(func(r *Rank) {
			b := r.MustAlloc(8)
			if r.Rank() == 0 {
				_ = r.Send(b, 2, datatype.Int32, 1, 0, r.CommWorld())
			} else {
				_, _ = r.Recv(b, 2, datatype.Int32, 0, 0, r.CommWorld())
			}
		})
		if err := w.Run(); err != nil {
			t.Fatal(err)
		}
		return int64(first)
	}
	// Before the post-send THREAD message leaves, the sender has made the
	// MPI_Send call and, under the thesis, the inner MPI_Isend and the
	// request helper; createThread is a native call (native_call_cycles).
	for _, c := range []struct {
		lib   string
		calls int64
	}{{"nocsim", 1}, {"thesis", 3}} {
		d := firstSend(c.lib, 1000) - firstSend(c.lib, 0)
		if d != 1000*c.calls {
			t.Errorf("%s: the first message leaves %d cycles later with call_cycles 1000, want %d", c.lib, d, 1000*c.calls)
		}
	}
}

// TestThesisConfigRefusals: the profile refuses what the thesis's library
// did not have, naming both keys on one line.
func TestThesisConfigRefusals(t *testing.T) {
	cases := []struct {
		set  func(c *Config)
		want string
	}{
		{func(c *Config) { c.Bcast = "binomial" }, `bcast = "binomial": allowed auto with library = "thesis"`},
		{func(c *Config) { c.Barrier = "central" }, `barrier = "central": allowed auto with library = "thesis"`},
		{func(c *Config) { c.Protocol = "eager" }, `protocol = "eager": allowed scmp with library = "thesis"`},
		{func(c *Config) { c.VectorDMA = true }, `vector_dma = true: allowed false with library = "thesis"`},
	}
	for _, c := range cases {
		cfg := thesisCfg(4)
		c.set(&cfg)
		err := cfg.Validate(16, 64)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("got %v, want one line starting %q", err, c.want)
		}
		cfg.Library = "nocsim"
		if err := cfg.Validate(16, 64); err != nil {
			t.Errorf("the default library refused it: %v", err)
		}
	}
	cfg := DefaultConfig()
	cfg.Library = "mpich"
	if err := cfg.Validate(16, 64); err == nil || !strings.Contains(err.Error(), "library") {
		t.Errorf("library mpich: %v", err)
	}
}
