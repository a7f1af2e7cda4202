package logp_test

import (
	"math"
	"strings"
	"testing"

	"nocsim/logp"
	"nocsim/logp/goal"
	"nocsim/logp/loggops"
)

// The closed forms against the LogGOPS tier: each algorithm's message
// pattern, as nocsim's MPI sends it (root 0), is written as a GOAL
// schedule and run by logp/loggops with the same parameters; the closed
// form must give the tier's finish exactly. tierBuilders is the table of
// (op, alg) -> schedule; the generators of logp/collgen can replace it
// entry by entry.

// sched builds one schedule; its helpers panic on misuse (a test bug).
type sched struct{ b *goal.Builder }

func newSched(P int) *sched { return &sched{goal.NewBuilder(P, 0)} }

func (s *sched) send(r, to, bytes int) int32 { return s.b.AddSend(r, to, uint64(bytes), 0) }
func (s *sched) recv(r, from, bytes int) int32 {
	return s.b.AddRecv(r, from, uint64(bytes), 0)
}

// after makes op a of rank r wait for every op in on.
func (s *sched) after(r int, a int32, on ...int32) {
	for _, o := range on {
		if o >= 0 {
			s.b.Require(r, a, o)
		}
	}
}

func (s *sched) done() *goal.Schedule {
	x, err := s.b.Schedule()
	if err != nil {
		panic(err)
	}
	return x
}

// binKids is mpi's rtKids: children farthest first.
func binKids(r, P int) []int {
	top := 1
	for top < P {
		top <<= 1
	}
	if r != 0 {
		top = r & -r
	}
	var out []int
	for m := top / 2; m >= 1; m /= 2 {
		if r+m < P {
			out = append(out, r+m)
		}
	}
	return out
}

func subtree(c, P int) int {
	if c == 0 {
		return P
	}
	return min(c&-c, P-c)
}

// binomialDown: receive from the parent, then send to every child.
func binomialDown(x *sched, P int, size func(c int) int) {
	for r := range P {
		got := int32(-1)
		if r != 0 {
			got = x.recv(r, r&(r-1), size(r))
		}
		for _, c := range binKids(r, P) {
			x.after(r, x.send(r, c, size(c)), got)
		}
	}
}

// binomialUp: receive every child's part (posted at once, as mpi's
// gather does; the reduction's blocking receives in turn handle messages
// on arrival all the same), then send to the parent.
func binomialUp(x *sched, P int, size func(c int) int, chain bool) (last []int32) {
	last = make([]int32, P)
	for r := range P {
		var got []int32
		kids := binKids(r, P)
		prev := int32(-1)
		for i := len(kids) - 1; i >= 0; i-- { // nearest first, as reduceBinomial
			v := x.recv(r, kids[i], size(kids[i]))
			if chain {
				x.after(r, v, prev)
			}
			prev = v
			got = append(got, v)
		}
		last[r] = prev
		if r != 0 {
			s := x.send(r, r&(r-1), size(r))
			x.after(r, s, got...)
			last[r] = s
		}
	}
	return last
}

// flatOut: the root sends to 1..P-1 in order.
func flatOut(P, m int) *goal.Schedule {
	x := newSched(P)
	for r := 1; r < P; r++ {
		x.send(0, r, m)
		x.recv(r, 0, m)
	}
	return x.done()
}

var tierBuilders = map[string]func(P, m int) *goal.Schedule{
	"bcast/flat": flatOut,
	"bcast/binomial": func(P, m int) *goal.Schedule {
		x := newSched(P)
		binomialDown(x, P, func(int) int { return m })
		return x.done()
	},
	"scatter/flat": flatOut,
	"scatter/binomial": func(P, m int) *goal.Schedule {
		x := newSched(P)
		binomialDown(x, P, func(c int) int { return subtree(c, P) * m })
		return x.done()
	},
	"gather/flat": func(P, m int) *goal.Schedule {
		x := newSched(P)
		for r := 1; r < P; r++ {
			x.recv(0, r, m)
			x.send(r, 0, m)
		}
		return x.done()
	},
	"gather/binomial": func(P, m int) *goal.Schedule {
		x := newSched(P)
		binomialUp(x, P, func(c int) int { return subtree(c, P) * m }, false)
		return x.done()
	},
	"reduce/binomial": func(P, m int) *goal.Schedule {
		x := newSched(P)
		binomialUp(x, P, func(int) int { return m }, true)
		return x.done()
	},
	"allreduce/reduce_bcast": func(P, m int) *goal.Schedule {
		x := newSched(P)
		last := binomialUp(x, P, func(int) int { return m }, true)
		for r := range P {
			got := last[r]
			if r != 0 {
				v := x.recv(r, r&(r-1), m)
				x.after(r, v, got)
				got = v
			}
			for _, c := range binKids(r, P) {
				x.after(r, x.send(r, c, m), got)
			}
		}
		return x.done()
	},
	"barrier/central": func(P, _ int) *goal.Schedule {
		x := newSched(P)
		var got []int32
		for r := 1; r < P; r++ {
			got = append(got, x.recv(0, r, 0))
			x.recv(r, 0, 0)
			x.send(r, 0, 0)
		}
		for r := 1; r < P; r++ {
			x.after(0, x.send(0, r, 0), got...)
		}
		return x.done()
	},
	"barrier/dissemination": func(P, _ int) *goal.Schedule {
		x := newSched(P)
		for r := range P {
			var prev []int32
			for d := 1; d < P; d <<= 1 {
				s, v := x.send(r, (r+d)%P, 0), x.recv(r, (r-d+P)%P, 0)
				x.after(r, s, prev...)
				x.after(r, v, prev...)
				prev = []int32{s, v}
			}
		}
		return x.done()
	},
	"allgather/ring": func(P, m int) *goal.Schedule {
		return exchanges(P, m, func(r, k int) (int, int) { return (r + 1) % P, (r - 1 + P) % P })
	},
	"alltoall/pairwise": func(P, m int) *goal.Schedule {
		return exchanges(P, m, func(r, k int) (int, int) { return (r + k) % P, (r - k + P) % P })
	},
	"allreduce/reduce_scatter_allgather": rabenseifnerAllreduce,
	"scan/chain": func(P, m int) *goal.Schedule {
		x := newSched(P)
		for r := range P {
			got := int32(-1)
			if r > 0 {
				got = x.recv(r, r-1, m)
			}
			if r < P-1 {
				x.after(r, x.send(r, r+1, m), got)
			}
		}
		return x.done()
	},
}

// tierPow2Only are the entries whose closed form is exact at powers of
// two only (none now: Rabenseifner's allreduce, the last, is replayed
// rank by rank and exact at every P).
var tierPow2Only = map[string]bool{}

// exchanges: P-1 steps; in step k (1-based) rank r sends to and receives
// from the ranks peers names, both posted once step k-1 is complete.
func exchanges(P, m int, peers func(r, k int) (to, from int)) *goal.Schedule {
	x := newSched(P)
	for r := range P {
		var prev []int32
		for k := 1; k < P; k++ {
			to, from := peers(r, k)
			s, v := x.send(r, to, m), x.recv(r, from, m)
			x.after(r, s, prev...)
			x.after(r, v, prev...)
			prev = []int32{s, v}
		}
	}
	return x.done()
}

// tierParams are LogGOPS machines, from LogP's (O = G = 0) to ones where
// g or the per-byte terms dominate.
var tierParams = []logp.Segment{
	{L: 6, Os: 2, Or: 2, Gap: 4},
	{L: 10, Os: 3, Or: 4, Gap: 5, G: 0.5},
	{L: 1, Os: 1, Or: 1, Gap: 100},
	{L: 20, Os: 5, Or: 1, Gap: 2, G: 0.1, O: 0.3},
	{L: 3, Os: 2, Or: 7, Gap: 1, G: 0.25, O: 1},
}

func tierOf(s logp.Segment) loggops.Params {
	return loggops.Params{L: s.L, Os: s.Os, Or: s.Or, Gap: s.Gap, G: s.G, O: s.O, S: math.MaxUint64}
}

func TestClosedFormsMatchTier(t *testing.T) {
	sizes := []int{1, 100, 1000}
	for name, build := range tierBuilders {
		op, alg, _ := strings.Cut(name, "/")
		for _, seg := range tierParams {
			p := logp.Params{P: 100, Segments: []logp.Segment{seg}}
			for _, m := range sizes {
				bad := 0
				for P := 2; P <= 100 && bad < 3; P++ {
					if tierPow2Only[name] && P&(P-1) != 0 {
						continue
					}
					res, err := loggops.Simulate(build(P, m), tierOf(seg), loggops.Options{})
					if err != nil {
						t.Fatalf("%s P=%d: %v", name, P, err)
					}
					x, err := p.Predict(op, alg, P, m)
					if err != nil {
						t.Fatal(err)
					}
					if math.Abs(x.Cycles-res.Max) > 1e-9*max(1, res.Max) {
						t.Errorf("%s %+v m=%d P=%d: closed form %v, tier %v", name, seg, m, P, x.Cycles, res.Max)
						bad++
					}
				}
			}
		}
	}
}

// The figure: binomial broadcast at P = 12 with L = 6, o = 2,
// g = 4 and 1-byte messages takes 34 cycles (LogGOPSim), not the 4 rounds
// of 10 that ceil(log2 P) would charge.
func TestBinomialBcastP12(t *testing.T) {
	p := logp.Params{P: 12, Segments: []logp.Segment{{L: 6, Os: 2, Or: 2, Gap: 4}}}
	x, err := p.Predict("bcast", "binomial", 12, 1)
	if err != nil || x.Cycles != 34 {
		t.Errorf("binomial bcast P=12: %v cycles (%v), want 34", x.Cycles, err)
	}
}
