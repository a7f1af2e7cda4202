package logp_test

import (
	"math"
	"testing"

	"nocsim/logp"
	"nocsim/logp/collgen"
	"nocsim/logp/loggops"
)

// Every registered algorithm's form against the tier on its generated
// schedule (reductions without compute: the forms leave the reduction's
// flops out), P = 2..100, three sizes, exactly: a closed form must be exact to stand in for the
// tier (the forms evaluated on the tier are it by construction, which this
// checks the plumbing of: segments, elements, blocks).
func TestClosedFormsOnGeneratedSchedules(t *testing.T) {
	for _, op := range collgen.Ops {
		if op == "exscan" {
			continue // no closed form
		}
		for _, alg := range collgen.Algorithms(op) {
			key := op + "/" + alg
			t.Run(key, func(t *testing.T) {
				t.Parallel()
				checkOnGenerated(t, op, alg)
			})
		}
	}
}

// checkOnGenerated compares op/alg's form with the tier on collgen's
// schedules.
func checkOnGenerated(t *testing.T, op, alg string) {
	key := op + "/" + alg
	for _, seg := range tierParams {
		p := logp.Params{P: 100, Segments: []logp.Segment{seg}}
		opt := collgen.DefaultOptions()
		opt.FlopCycles = 0
		opt.OptimalL, opt.OptimalO, opt.OptimalG = p.OptimalLogP(1)
		for P := 2; P <= 100; P++ {
			for _, m := range []int{8, 1000, 4104} { // 4104: past MeshLongBytes
				x, err := p.Predict(op, alg, P, m)
				if err != nil {
					t.Fatalf("%s P=%d m=%d: %v", key, P, m, err)
				}
				s, err := collgen.Generate(op, alg, P, int64(m), opt)
				if err != nil {
					t.Fatalf("%s P=%d m=%d: %v", key, P, m, err)
				}
				res, err := loggops.Simulate(s, tierOf(seg), loggops.Options{})
				if err != nil {
					t.Fatalf("%s P=%d m=%d: %v", key, P, m, err)
				}
				if math.Abs(x.Cycles-res.Max) > 1e-9*res.Max {
					t.Errorf("%s %+v P=%d m=%d: form %v, tier %v", key, seg, P, m, x.Cycles, res.Max)
				}
			}
		}
	}
}

// A calibrated machine has a segment per protocol: a message's size picks
// its L, o and g, so messages of one collective pay different costs (the
// scatter's, the fold's and the ring's). Every closed form equals the tier
// on collgen's schedules there too, sizes around the 256-byte boundary.
func TestClosedFormsOnTwoSegments(t *testing.T) {
	segs := []logp.Segment{
		{MaxBytes: 256, L: 20, Os: 30, Or: 25, Gap: 40, G: 0.5},
		{L: 90, Os: 50, Or: 45, Gap: 60, G: 0.5, O: 0.25},
	}
	p := logp.Params{P: 100, Segments: segs}
	tier := loggops.Params{S: math.MaxUint64}
	for _, s := range segs {
		tier.Segments = append(tier.Segments, loggops.Segment{MaxBytes: uint64(s.MaxBytes), L: s.L, Os: s.Os, Or: s.Or, Gap: s.Gap, G: s.G, O: s.O})
	}
	opt := collgen.DefaultOptions()
	opt.FlopCycles = 0
	for _, op := range collgen.Ops {
		if op == "exscan" {
			continue // no closed form
		}
		for _, alg := range collgen.Algorithms(op) {
			for P := 2; P <= 32; P++ {
				for _, m := range []int{128, 264, 1000, 4096} {
					// The optimal tree is built for the message's segment.
					opt.OptimalL, opt.OptimalO, opt.OptimalG = p.OptimalLogP(m)
					x, err := p.Predict(op, alg, P, m)
					if err != nil {
						t.Fatal(err)
					}
					s, err := collgen.Generate(op, alg, P, int64(m), opt)
					if err != nil {
						t.Fatal(err)
					}
					res, err := loggops.Simulate(s, tier, loggops.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if math.Abs(x.Cycles-res.Max) > 1e-9*res.Max {
						t.Errorf("%s/%s P=%d m=%d: closed form %v, tier %v", op, alg, P, m, x.Cycles, res.Max)
					}
				}
			}
		}
	}
}
