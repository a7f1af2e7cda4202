package study

import (
	"math"
	"testing"

	"nocsim/logp"
	"nocsim/logp/collgen"
	"nocsim/logp/loggops"
	"nocsim/scenarios"
)

// TestTierSweepMeshWidth: the LogGOPS tier runs the mesh algorithms'
// trees on the mesh the sweep names (else on the smallest square), so its
// times are logp's forms for that mesh: 9 ranks on a 9x1 mesh (one row
// of nine) and on the 3x3 square (three rows of three) give different trees
// and times.
func TestTierSweepMeshWidth(t *testing.T) {
	seg := logp.Segment{L: 20, Os: 30, Or: 25, Gap: 40, G: 0.5}
	tier := loggops.Params{L: seg.L, Os: seg.Os, Or: seg.Or, Gap: seg.Gap, G: seg.G, S: math.MaxUint64}
	opt := collgen.DefaultOptions()
	opt.FlopCycles = 0
	var got [2]float64
	for i, mesh := range []string{"9x1", ""} {
		p := logp.Params{P: 9, Mesh: mesh, Segments: []logp.Segment{seg}}
		s := &TierSweep{Op: "bcast", Algs: []string{"mesh"}, Procs: []int{9}, Sizes: []int{1000},
			Params: FixedTierParams(tier), Opt: opt}
		if mesh != "" {
			s.MeshWidth = p.MeshWidth
		}
		rows, err := s.Run(scenarios.RunOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		want, err := p.Predict("bcast", "mesh", 9, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if rows[0].Cycles != want.Cycles {
			t.Errorf("mesh %q: tier %v cycles, form %v", mesh, rows[0].Cycles, want.Cycles)
		}
		got[i] = rows[0].Cycles
	}
	if got[0] == got[1] {
		t.Errorf("9x1 and 3x3 placements both take %v cycles: the width was not used", got[0])
	}
}
