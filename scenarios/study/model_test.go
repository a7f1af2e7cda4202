package study

import (
	"testing"

	"nocsim/coll"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// Parameters fitted from the simulator's own microbenchmarks choose, for
// short and medium messages, an algorithm the simulation shows to be the
// fastest or within 10% of it (docs/logp.md lists the large-message points
// where contention makes the model choose wrong).
func TestModelChoiceWithinTenPercent(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	cal, err := Calibrate(&sc, []int{8, 64, 128, 512, 1024, 4096}, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := cal.Report.Params
	if err := p.Validate(); err != nil {
		t.Fatalf("fitted parameters: %v", err)
	}
	for _, op := range []string{"bcast", "reduce", "allreduce", "scan", "barrier"} {
		var algs []string // the model chooses among the MPI-message algorithms only
		for _, a := range AlgorithmsFor(op) {
			if !coll.IsNative(op, a) {
				algs = append(algs, a)
			}
		}
		sw := &CollSweep{Op: op, Algs: algs, Procs: []int{16}, Sizes: []int{8, 1024}}
		rows, err := sw.Run(&sc, scenarios.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := PredictRows(p, rows); err != nil {
			t.Fatal(err)
		}
		for _, size := range sw.Sizes {
			var best, pick *report.CollRow
			for i := range rows {
				r := &rows[i]
				if r.SizeBytes != size {
					continue
				}
				if !r.Correct {
					t.Fatalf("%s %s: wrong result", op, r.Algorithm)
				}
				if best == nil || r.Cycles < best.Cycles {
					best = r
				}
				if pick == nil || r.Predicted < pick.Predicted {
					pick = r
				}
			}
			if excess := float64(pick.Cycles-best.Cycles) / float64(best.Cycles); excess > 0.10 {
				t.Errorf("%s, P=16, %d bytes: the model picks %s (%d cycles), %.0f%% slower than %s (%d)",
					op, size, pick.Algorithm, pick.Cycles, 100*excess, best.Algorithm, best.Cycles)
			}
		}
	}
}
