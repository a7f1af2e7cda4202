package logp

import (
	"errors"
	"maps"
	"math"
	"math/bits"
	"nocsim/coll"
	"slices"
	"strings"
	"testing"
)

// machine is a two-segment machine whose rendezvous segment costs at least
// as much as the eager one in every parameter, so every prediction must
// grow with the message size.
var machine = Params{P: 64, AvgHops: 2.5, Segments: []Segment{
	{MaxBytes: 256, L: 20, Lh: 2, Os: 30, Or: 25, Gap: 40, G: 0.5},
	{L: 90, Lh: 2, Os: 50, Or: 45, Gap: 60, G: 0.5},
}}

// hand is a one-segment machine for hand-computed values: over AvgHops = 2
// hops L is 12, so a 0-byte message takes 3 + 12 + 4 = 19 cycles and a
// 9-byte one 19 + 8*0.5 = 23.
var hand = Params{P: 64, AvgHops: 2, Segments: []Segment{{L: 10, Lh: 1, Os: 3, Or: 4, Gap: 5, G: 0.5}}}

// logp returns a one-segment LogP machine (o_s = o_r = o, no hops, G = 0
// unless given) for the formulas of the slides.
func logpMachine(L, o, g, G float64) Params {
	return Params{P: 64, Segments: []Segment{{L: L, Os: o, Or: o, Gap: g, G: G}}}
}

func predict(t *testing.T, p Params, op, alg string, P, m int) Prediction {
	t.Helper()
	x, err := p.Predict(op, alg, P, m)
	if err != nil {
		t.Fatalf("Predict(%s, %s, P=%d, %d bytes): %v", op, alg, P, m, err)
	}
	return x
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

// Ops must name exactly the algorithms of coll's registry (the one list
// of names), so every algorithm has a prediction and a calibration can look
// each one up.
func TestOpsAreNocsimsAlgorithms(t *testing.T) {
	want := map[string][]string{}
	for _, a := range coll.Algorithms() {
		want[a.Op] = append(want[a.Op], a.Name)
	}
	if !maps.EqualFunc(Ops, want, slices.Equal) {
		t.Errorf("Ops = %v, want %v", Ops, want)
	}
}

// Every op x alg gives a non-negative time whose terms are non-negative,
// sum to it, and keep their names across sizes; one rank costs nothing.
func TestPredictEveryAlgorithm(t *testing.T) {
	for _, op := range slices.Sorted(maps.Keys(Ops)) {
		for _, alg := range Ops[op] {
			for _, P := range []int{1, 2, 3, 5, 8, 13, 64, 100} {
				var names []string
				for _, m := range []int{0, 1, 100, 256, 257, 4096, 100000} {
					x := predict(t, machine, op, alg, P, m)
					if P == 1 {
						if x.Cycles != 0 || len(x.Terms) != 0 {
							t.Errorf("%s/%s P=1: %+v, want 0 cycles and no terms", op, alg, x)
						}
						continue
					}
					var sum float64
					var got []string
					for _, term := range x.Terms {
						if !(term.Cycles >= 0) {
							t.Errorf("%s/%s P=%d m=%d: term %q = %v", op, alg, P, m, term.Name, term.Cycles)
						}
						sum += term.Cycles
						got = append(got, term.Name)
					}
					// An empty broadcast cut into chunks sends no chunk at all.
					nothing := m == 0 && op+"/"+alg == "bcast/scatter_allgather"
					if !(x.Cycles > 0 || nothing && x.Cycles == 0) || !near(sum, x.Cycles) {
						t.Errorf("%s/%s P=%d m=%d: %v cycles, terms sum to %v", op, alg, P, m, x.Cycles, sum)
					}
					if names == nil {
						names = got
					} else if !slices.Equal(names, got) {
						t.Errorf("%s/%s P=%d: terms %q at %d bytes, %q before", op, alg, P, got, m, names)
					}
				}
			}
		}
	}
}

// The reductions name the compute they leave out.
func TestPredictNamesReductionCompute(t *testing.T) {
	for _, op := range []string{"reduce", "allreduce", "reduce_scatter", "scan"} {
		for _, alg := range Ops[op] {
			x := predict(t, machine, op, alg, 8, 64)
			i := slices.IndexFunc(x.Terms, func(t Term) bool { return t.Name == "reduction compute (not modelled)" })
			if i < 0 || x.Terms[i].Cycles != 0 {
				t.Errorf("%s/%s: no 0-cycle \"reduction compute (not modelled)\" term in %+v", op, alg, x.Terms)
			}
		}
	}
}

// Except where one more byte shrinks the last chunk: scatter_allgather
// cuts m into P chunks of ceil(m/P) bytes rounded up to whole words, so at
// 129 bytes on 2 ranks the chunks are 68 and 61 bytes against 64 and 64 at
// 128, and the chunk that crosses the critical path twice is shorter (the
// LogGOPS tier on the MPI layer's schedule agrees: 213 -> 210 cycles on
// machine's eager segment).
// And where the MPI code's blocks are whole elements, each starting on
// a word (redSplit), and reduce_scatter's last block takes the remainder:
// a size that splits evenly can beat a smaller one that does not
// (reduce_scatter on 8 ranks: 64 bytes are eight 8-byte blocks, 63 bytes
// seven of 7 bytes and one of 14); and the Hillis-Steele scan, whose
// ranks take messages in the order they arrive: on "machine" at P = 13 a
// 1-byte scan takes 320 cycles and a 2-byte one 297, on the LogGOPS tier
// too (with the messages half a cycle longer, a rank's processor takes its
// sends and the messages that arrive early in another order).
func TestPredictMonotoneInBytes(t *testing.T) {
	sizes := []int{0, 1, 2, 3, 4, 7, 8, 63, 64, 127, 128, 129, 255, 256, 257, 1000, 4096, 65536, 1 << 20}
	notMonotone := map[string]bool{
		"allreduce/reduce_scatter_allgather": true, "allreduce/ring": true,
		"reduce/reduce_scatter_gather": true, "reduce_scatter/recursive_halving": true,
		"reduce_scatter/reduce_scatterv": true, "reduce_scatter/ring": true, "reduce/ring": true,
		"scan/recursive_doubling": true, "bcast/scatter_allgather": true,
	}
	for _, op := range slices.Sorted(maps.Keys(Ops)) {
		for _, alg := range Ops[op] {
			if notMonotone[op+"/"+alg] {
				continue
			}
			for _, P := range []int{2, 3, 5, 8, 13, 64} {
				prev := -1.0
				for _, m := range sizes {
					x := predict(t, machine, op, alg, P, m)
					if x.Cycles < prev {
						t.Errorf("%s/%s P=%d: %v cycles at %d bytes, less than %v for the size before", op, alg, P, x.Cycles, m, prev)
					}
					prev = x.Cycles
				}
			}
		}
	}
}

// Adding ranks never helps, except where a power of two needs no folding
// (the recursive doubling and halving algorithms fold the ranks above
// 2^floor(log2 P) in and out, which a power of two spares) or where one
// more rank shrinks the ceil(m/P)-byte blocks of a fixed vector. Over
// powers of two every algorithm must be non-decreasing.
func TestPredictMonotoneInP(t *testing.T) {
	exempt := map[string]bool{
		// fold ranks in and out unless P is a power of two
		"allgather/recursive_doubling": true, "allreduce/recursive_doubling": true,
		"reduce/reduce_scatter_gather": true, "reduce_scatter/recursive_halving": true,
		"allreduce/reduce_scatter_allgather": true,
		// split a fixed vector into ceil(m/P)-byte blocks
		"bcast/scatter_allgather": true, "allreduce/ring": true, "reduce/ring": true,
		"reduce_scatter/reduce_scatterv": true, "reduce_scatter/ring": true,
		// placed on the smallest square holding P ranks (no machine mesh
		// here), which widens with P: a 17th rank starts a 5x5 mesh whose
		// row and column trees are shallower than the 4x4's
		"bcast/mesh": true, "reduce/mesh": true, "allreduce/mesh": true, "barrier/mesh": true,
	}
	// The dimensional allreduce and barrier fold a short last row into a
	// full one and fold every row or column that is not a power of two:
	// a power of two that leaves the square ragged (8 on 3x3) is slower
	// than the next whole 2^k x 2^k mesh, so they are checked over those.
	square := map[string]bool{"allreduce/mesh": true, "barrier/mesh": true}
	for _, op := range slices.Sorted(maps.Keys(Ops)) {
		for _, alg := range Ops[op] {
			for _, m := range []int{8, 300, 100000} {
				prev, prevPow, prevP := -1.0, -1.0, 0
				for P := 2; P <= 256; P++ {
					if exempt[op+"/"+alg] && P&(P-1) != 0 {
						continue // only powers of two are checked: spare the O(P^2) rings
					}
					x := predict(t, machine, op, alg, P, m).Cycles
					if !exempt[op+"/"+alg] && x < prev {
						t.Errorf("%s/%s m=%d: %v cycles on %d ranks, less than %v on %d", op, alg, m, x, P, prev, P-1)
					}
					prev = x
					if P&(P-1) == 0 && (!square[op+"/"+alg] || bits.Len(uint(P))%2 == 1) {
						if x < prevPow {
							t.Errorf("%s/%s m=%d: %v cycles on %d ranks, less than %v on %d", op, alg, m, x, P, prevPow, prevP)
						}
						prevPow, prevP = x, P
					}
				}
			}
		}
	}
}

// Linear algorithms grow with P, logarithmic ones with log2 P: from 8 to
// 64 ranks the binomial and dissemination times double exactly (3 rounds
// to 6), the rings and the chain grow 63/7 = 9 times, and the flat
// broadcast grows by g per added rank.
func TestPredictScaling(t *testing.T) {
	p := logpMachine(10, 2, 4, 0)
	for _, c := range []struct {
		op, alg string
		ratio   float64
	}{
		{"bcast", "binomial", 2}, {"barrier", "dissemination", 2}, {"reduce", "binomial", 2},
		{"allreduce", "reduce_bcast", 2}, {"scan", "recursive_doubling", 2},
		{"allgather", "ring", 9}, {"alltoall", "pairwise", 9}, {"scan", "chain", 9},
	} {
		r := predict(t, p, c.op, c.alg, 64, 1).Cycles / predict(t, p, c.op, c.alg, 8, 1).Cycles
		if !near(r, c.ratio) {
			t.Errorf("%s/%s: Predict(64)/Predict(8) = %v, want %v", c.op, c.alg, r, c.ratio)
		}
	}
	for P := 2; P < 64; P++ {
		d := predict(t, p, "bcast", "flat", P+1, 1).Cycles - predict(t, p, "bcast", "flat", P, 1).Cycles
		if !near(d, 4) {
			t.Errorf("flat bcast: P=%d to %d adds %v cycles, want g = 4", P, P+1, d)
		}
	}
	if r := predict(t, p, "bcast", "flat", 64, 1).Cycles / predict(t, p, "bcast", "flat", 8, 1).Cycles; r < 5 {
		t.Errorf("flat bcast: Predict(64)/Predict(8) = %v, want the near-linear growth of (P-2)g (> 5)", r)
	}
	// Binomial: 33..64 ranks take 6 levels, but below 64 the tree's
	// branches are uneven, so its slowest branch is shorter than 64's.
	if a, b := predict(t, p, "bcast", "binomial", 33, 1).Cycles, predict(t, p, "bcast", "binomial", 64, 1).Cycles; !(a < b) {
		t.Errorf("binomial bcast on 33 ranks: %v, on 64: %v; 33 has no branch as long as 64's", a, b)
	}
}

// The slides' formulas: point-to-point L + 2o + (m-1)G, and the flat
// broadcast L + 2o + (P-2)g when g >= o, L + P*o when g = 0.
func TestPredictSlidesFormulas(t *testing.T) {
	for _, c := range []struct{ L, o, g, G float64 }{{6, 2, 4, 0}, {10, 3, 3, 0.25}, {5, 1, 7, 2}} {
		p := logpMachine(c.L, c.o, c.g, c.G)
		for _, m := range []int{1, 2, 100, 5000} {
			want := c.L + 2*c.o + float64(m-1)*c.G
			if got := p.PointToPoint(m, 0); !near(got, want) {
				t.Errorf("%+v: PointToPoint(%d) = %v, want L+2o+(m-1)G = %v", c, m, got, want)
			}
			// Every algorithm on two ranks is that one message (or
			// exchange), except those that send more than one.
			for _, a := range [][2]string{{"bcast", "flat"}, {"bcast", "binomial"}, {"scatter", "flat"}, {"gather", "binomial"}, {"alltoall", "pairwise"}, {"scan", "chain"}} {
				if got := predict(t, p, a[0], a[1], 2, m).Cycles; !near(got, want) {
					t.Errorf("%+v: %s/%s on 2 ranks of %d bytes = %v, want %v", c, a[0], a[1], m, got, want)
				}
			}
		}
		if c.G != 0 {
			continue
		}
		for P := 2; P <= 40; P++ {
			want := c.L + 2*c.o + float64(P-2)*c.g
			if got := predict(t, p, "bcast", "flat", P, 1).Cycles; !near(got, want) {
				t.Errorf("%+v: flat bcast on %d = %v, want L+2o+(P-2)g = %v", c, P, got, want)
			}
		}
	}
	p := logpMachine(6, 2, 0, 0)
	for P := 2; P <= 40; P++ {
		if got, want := predict(t, p, "bcast", "flat", P, 1).Cycles, 6+float64(P)*2; !near(got, want) {
			t.Errorf("g = 0: flat bcast on %d = %v, want L+P*o = %v", P, got, want)
		}
	}
}

// Values worked by hand on the machine "hand" (see its comment).
func TestPredictHandValues(t *testing.T) {
	for _, c := range []struct {
		op, alg string
		P, m    int
		want    float64
		why     string
	}{
		{"barrier", "central", 4, 0, 58, "2*19 + 2*(max(5,4) + max(5,3))"},
		{"barrier", "tree4", 6, 0, 76, "root handles 2, 3, 4 at 15, 20, 25 and 1 (after 5) at 34, done 38; releases 1 first, which releases 5 at 38+19: 57+19"},
		{"barrier", "dissemination", 5, 0, 57, "3 rounds of 19"},
		{"bcast", "flat", 5, 9, 50, "23 + 3*max(o_s+(m-1)O, g+(m-1)G) = 23 + 3*max(3, 5+4)"},
		{"bcast", "pull", 5, 9, 72, "requests in at 15; root: request 1 at 15, reply 1 at 19, requests 2, 3 at 22, 27, reply 2 at 31, request 4 at 34, replies 3, 4 at 40, 49 (g+8G = 9 apart): 49+23"},
		{"scatter", "binomial", 5, 9, 59.5, "root sends 9 B to 4, then 18 B to 2 at 9 (there at 36.5), which sends 9 B to 3: 36.5 + 23"},
		{"gather", "push", 4, 9, 60, "19 + 23 + 2*max(5, max(4+4, 5+4), 3+4)"},
		{"allgather", "recursive_doubling", 6, 9, 132, "rank 1: fold-in done 23; runs of 2 blocks (21 bytes: blocks start on a word) in at 38 from rank 3 (done 52) and rank 4; sends its 4 blocks (45 bytes) at 52, handles rank 4's at 55 (done 69); fold-out of 69 bytes when the send interface is free, 52+5+22 = 79: 79+15+38"},
		{"alltoall", "post_all", 4, 9, 46, "sends at 0, 9; block in at 15 (done 23); send at 23; blocks in at 24 (done 34) and 38: 38+8"},
		{"alltoall", "bruck", 5, 9, 78, "rounds of 2, 2, 1 blocks: 27.5 + 27.5 + 23"},
		{"reduce", "reduce_scatter_gather", 4, 64, 122, "halving 32+16 bytes, gather 16+32: 34.5 + 26.5 + 26.5 + 34.5"},
		{"allreduce", "ring", 4, 64, 159, "6 exchanges of 16 bytes: 6*26.5"},
		{"reduce_scatter", "reduce_scatterv", 4, 64, 152.5, "2*50.5 + 26.5 + 2*max(3, 5+7.5)"},
		{"scan", "chain", 4, 9, 69, "3*23"},
	} {
		if got := predict(t, hand, c.op, c.alg, c.P, c.m).Cycles; !near(got, c.want) {
			t.Errorf("%s/%s P=%d m=%d = %v, want %v (%s)", c.op, c.alg, c.P, c.m, got, c.want, c.why)
		}
	}
}

// A round followed by another cannot be shorter than g: with g far above
// a message's time the binomial bcast's root sends at 0, g and 2g, and the
// last message takes L+2o.
func TestPredictGapStall(t *testing.T) {
	p := logpMachine(1, 1, 100, 0)
	for _, c := range []struct {
		P    int
		want float64
	}{{2, 3}, {3, 103}, {8, 203}} {
		if got := predict(t, p, "bcast", "binomial", c.P, 1).Cycles; !near(got, c.want) {
			t.Errorf("binomial bcast on %d, g = 100 > L+2o = 3: %v cycles, want %v", c.P, got, c.want)
		}
	}
}

// Predict uses AvgHops: each message on the critical path pays h*Lh.
func TestPredictHops(t *testing.T) {
	p := hand
	p.AvgHops = 0
	q := hand
	q.AvgHops = 3
	d := predict(t, q, "bcast", "binomial", 16, 64).Cycles - predict(t, p, "bcast", "binomial", 16, 64).Cycles
	if !near(d, 4*3*1) {
		t.Errorf("3 hops more add %v cycles to a 4-round binomial bcast, want 4*3*Lh = 12", d)
	}
}

func TestPingPong(t *testing.T) {
	for _, m := range []int{0, 1, 100, 256, 257, 65536} {
		for _, h := range []float64{0, 1, 7.5} {
			x := machine.PingPong(m, h)
			if want := 2 * machine.PointToPoint(m, h); !near(x.Cycles, want) {
				t.Errorf("PingPong(%d, %v) = %v, want 2 x PointToPoint = %v", m, h, x.Cycles, want)
			}
			var sum float64
			for _, term := range x.Terms {
				sum += term.Cycles
			}
			if !near(sum, x.Cycles) {
				t.Errorf("PingPong(%d, %v): terms sum to %v, not %v", m, h, sum, x.Cycles)
			}
		}
	}
}

func TestPredictErrors(t *testing.T) {
	for _, c := range []struct {
		p       Params
		op, alg string
		P, m    int
		want    []string
	}{
		{machine, "bcst", "flat", 4, 8, []string{`"bcst"`, "allgather", "barrier", "scan"}},
		{machine, "bcast", "tree4", 4, 8, []string{`bcast algorithm "tree4"`, "binomial, flat, mesh, optimal, pull, pull_rma, scatter_allgather"}},
		{machine, "bcast", "flat", 0, 8, []string{"P = 0"}},
		{machine, "bcast", "flat", 4, -1, []string{"-1 bytes"}},
		{Params{P: 4}, "bcast", "flat", 4, 8, []string{"no segment"}},
		{Params{Segments: []Segment{{L: -1}}}, "bcast", "flat", 4, 8, []string{"L = -1"}},
	} {
		_, err := c.p.Predict(c.op, c.alg, c.P, c.m)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Predict(%q, %q, %d, %d): error %v, want one containing %q", c.op, c.alg, c.P, c.m, err, w)
			}
		}
	}
}

// The optimal broadcast is a lower bound for the tree broadcasts: on a
// LogP machine (o_s = o_r = o, G = 0, o <= g) neither the flat nor the
// binomial prediction may beat it, and on two ranks all three are one
// message.
func TestOptimalBroadcastBoundsPredictions(t *testing.T) {
	for _, c := range []struct{ L, o, g float64 }{{6, 2, 4}, {1, 1, 10}, {20, 1, 1}, {0, 0, 0}} {
		p := logpMachine(c.L, c.o, c.g, 0)
		for P := 2; P <= 64; P++ {
			opt, _, _ := coll.OptimalBroadcast(P, c.L, c.o, c.g)
			for _, alg := range []string{"flat", "binomial"} {
				if x := predict(t, p, "bcast", alg, P, 1).Cycles; x < opt-1e-9 || P == 2 && !near(x, opt) {
					t.Errorf("%+v P=%d: %s bcast %v cycles, optimal %v", c, P, alg, x, opt)
				}
			}
		}
	}
}

// The algorithms of quadratic growth predicted on the tier are refused
// past MaxQuadraticProcs (they would run for hours), naming the tier; the
// others still answer there.
func TestPredictRefusesQuadraticFormsAtLargeP(t *testing.T) {
	p := Params{P: 16, Segments: []Segment{{L: 125, Lh: 15, Os: 44, Or: 20, Gap: 177, G: 0.25}}}
	refused := 0
	for _, a := range coll.Algorithms() {
		if a.Growth != coll.Quadratic || closedForms[a.Op][a.Name] != nil {
			continue
		}
		refused++
		_, err := p.Predict(a.Op, a.Name, MaxQuadraticProcs+1, 8)
		var big *TooManyRanksError
		if !errors.As(err, &big) || !strings.Contains(err.Error(), "--tier loggops") {
			t.Errorf("%s/%s at P=%d: %v, want a TooManyRanksError naming the tier", a.Op, a.Name, MaxQuadraticProcs+1, err)
		}
	}
	if refused < 4 {
		t.Errorf("%d quadratic algorithms on the tier, want the rings and the scatter-allgather broadcast", refused)
	}
	if _, err := p.Predict("bcast", "binomial", 65536, 8); err != nil {
		t.Errorf("binomial bcast at 65536 ranks: %v", err)
	}
}
