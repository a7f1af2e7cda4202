package thesis

import (
	"nocsim/scenarios"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestThesisTable51IsLinear checks the property CGUnknowns and
// CGIterations rest on: the thesis's native CG times fit
// T = a + b/P + c*nnz/P (least squares, gonum) within 2% on every row,
// which is what a fixed order and iteration count give (work on all of N,
// on a P-th of N, and on a P-th of the nonzeros); and a > 0, the work on
// all of N that sets N's size.
func TestThesisTable51IsLinear(t *testing.T) {
	rows := Tables["5.1"]
	A := mat.NewDense(len(rows), 3, nil)
	y := mat.NewVecDense(len(rows), nil)
	for i, r := range rows {
		p := float64(r.Procs)
		// Each row divided by its time: least squares on relative errors,
		// so the 500,000-nonzero rows do not outweigh the small ones.
		w := 1 / r.NativeK
		A.SetRow(i, []float64{w, w / p, w * float64(r.Nonzeros) / p})
		y.SetVec(i, 1)
	}
	var x mat.VecDense
	if err := x.SolveVec(A, y); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		p := float64(r.Procs)
		f := x.AtVec(0) + x.AtVec(1)/p + x.AtVec(2)*float64(r.Nonzeros)/p
		if e := (f - r.NativeK) / r.NativeK; e > 0.02 || e < -0.02 {
			t.Errorf("%d nonzeros, P=%d: the linear form gives %.0f, the thesis %.0f kcycles (%+.1f%%)", r.Nonzeros, r.Procs, f, r.NativeK, 100*e)
		}
	}
	if a := x.AtVec(0); !(a > 0) {
		t.Errorf("a = %.0f kcycles: want work on all of N (> 0)", a)
	}
	t.Logf("a = %.0f, b = %.0f, c = %.4f kcycles", x.AtVec(0), x.AtVec(1), x.AtVec(2))
}

// The machine file keeps the base's keys and comments, replaces the
// fitted keys in their sections (adding a section the base lacks), and
// decodes to a scenario with exactly the fitted values.
func TestWriteThesisMachine(t *testing.T) {
	base := "# old header\nname = \"m\"\n\n[network]\nlink_flits_per_cycle = 2 # kept\n\n[node]\nmem_cycles = 9\ncall_cycles = 1\n"
	fit := FitResult{Keys: []string{"node.mem_cycles", "node.loop_cycles", "mpi.match_cycles"}, Values: []float64{0.75, 0.125, 3}}
	var b strings.Builder
	if err := WriteMachine(&b, base, fit, map[string]string{"node.call_cycles": "7", "network.vcs": "4"}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if strings.Contains(text, "old header") || !strings.Contains(text, "# kept") {
		t.Errorf("header or kept comment wrong:\n%s", text)
	}
	sc, _, err := scenarios.Decode(strings.NewReader(text), "m.toml")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if sc.Node.MemCycles != 0.75 || sc.Node.LoopCycles != 0.125 || sc.MPI.MatchCycle != 3 || sc.Node.CallCycles != 7 || sc.Network.LinkWidth != 2 || sc.Network.VCs != 4 {
		t.Errorf("decoded mem %v loop %v match %v call %v link %v:\n%s", sc.Node.MemCycles, sc.Node.LoopCycles, sc.MPI.MatchCycle, sc.Node.CallCycles, sc.Network.LinkWidth, text)
	}
}
