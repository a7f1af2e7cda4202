package study

import (
	"sync"
	"testing"

	"nocsim/logp/collgen"
	"nocsim/logp/loggops"
	"nocsim/scenarios"
)

// TierSweep.Beat reports, within a point, the cycle its simulation has
// reached: a flat broadcast to 40,000 ranks (about 160,000 events) beats
// at least twice for its own point index, at cycles that never go past the
// point's finish; a small point (8 ranks) does not beat at all.
func TestTierSweepBeats(t *testing.T) {
	var mu sync.Mutex
	beats := map[int][]float64{}
	s := &TierSweep{Op: "bcast", Algs: []string{"flat"}, Procs: []int{8, 40000}, Sizes: []int{8},
		Params: FixedTierParams(loggops.New(6, 2, 4, 0, 0)), Opt: collgen.DefaultOptions(),
		Beat: func(i int, c float64) {
			mu.Lock()
			beats[i] = append(beats[i], c)
			mu.Unlock()
		}}
	rows, err := s.Run(scenarios.RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(beats[0]) != 0 || len(beats[1]) < 2 {
		t.Fatalf("beats per point %d and %d, want none for 8 ranks and at least 2 for 40,000", len(beats[0]), len(beats[1]))
	}
	for _, c := range beats[1] {
		if c < 0 || c > rows[1].Cycles {
			t.Errorf("beat at cycle %v, outside the point's 0..%v", c, rows[1].Cycles)
		}
	}
}
