package logp_test

import (
	"math"
	"testing"

	"nocsim/logp"
	"nocsim/logp/collgen"
	"nocsim/logp/loggops"
)

// exchangeMachines are machines beyond tierParams that exercise the
// exchange algorithms' replays: a send interface far slower than the
// processor (G large: a ring's rank takes the next step's message before
// its own send), no latency or no overhead (ties everywhere), a
// rendezvous-free machine with every parameter 0 but o_r.
var exchangeMachines = []logp.Segment{
	{L: 10, Os: 0, Or: 3, Gap: 0, G: 0.75, O: 1.25},
	{L: 0, Os: 0, Or: 2, Gap: 5, G: 2.5, O: 0.25},
	{L: 0, Os: 2, Or: 0, Gap: 3, G: 0.75},
	{Or: 1},
}

// The algorithms replayed rank by rank (predict_exchange.go,
// predict_replay.go) equal the tier on collgen's schedules on these
// machines too, sizes 0 to 1000 bytes, P = 2..24; the two that are not
// reductions also at sizes that are not whole words (their blocks and
// chunks are padded to words: a run's message is not a multiple of the
// block).
func TestExchangeFormsOnOddMachines(t *testing.T) {
	algs := [][2]string{
		{"allreduce", "recursive_doubling"}, {"allreduce", "reduce_scatter_allgather"}, {"allreduce", "ring"},
		{"reduce", "reduce_scatter_gather"}, {"reduce", "ring"}, {"reduce_scatter", "recursive_halving"},
		{"reduce_scatter", "reduce_scatterv"}, {"reduce_scatter", "ring"}, {"scan", "recursive_doubling"},
		{"allgather", "recursive_doubling"}, {"bcast", "scatter_allgather"},
	}
	opt := collgen.DefaultOptions()
	opt.FlopCycles = 0
	for _, seg := range exchangeMachines {
		p := logp.Params{P: 100, Segments: []logp.Segment{seg}}
		for _, a := range algs {
			for P := 2; P <= 24; P++ {
				sizes := []int{0, 8, 64, 1000}
				if !collgen.IsReduction(a[0]) {
					sizes = append(sizes, 1, 9, 103)
				}
				for _, m := range sizes {
					x, err := p.Predict(a[0], a[1], P, m)
					if err != nil {
						t.Fatal(err)
					}
					s, err := collgen.Generate(a[0], a[1], P, int64(m), opt)
					if err != nil {
						t.Fatal(err)
					}
					res, err := loggops.Simulate(s, tierOf(seg), loggops.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if math.Abs(x.Cycles-res.Max) > 1e-9*max(1, res.Max) {
						t.Errorf("%s/%s %+v P=%d m=%d: closed form %v, tier %v", a[0], a[1], seg, P, m, x.Cycles, res.Max)
					}
				}
			}
		}
	}
}
