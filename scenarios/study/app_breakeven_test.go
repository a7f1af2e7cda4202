package study

import (
	"math"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"testing"
)

// breakEvenSweep runs both methods in both versions on 4x4 and returns the
// break-evens.
func breakEvenSweep(t *testing.T, sc *scenarios.Scenario, sizes []int) []report.BreakEven {
	t.Helper()
	sw := &AppSweep{App: "globalsum", Variant: "breakeven", Procs: []int{2, 4, 8, 16}, Sizes: sizes, Versions: []string{"mpi", "native"}, Seed: 3}
	if err := sw.Check(sc, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := sw.Run(sc, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !r.Correct {
			t.Fatalf("%+v: wrong sums", r)
		}
	}
	bs := report.GlobalSumBreakEven(rows)
	for _, b := range bs {
		t.Logf("N=%4d serial %-6s hypercube %-6s %v: %s", b.Size, b.SerialVersion, b.HypercubeVersion, b.Ratios, b.Describe())
	}
	return bs
}

// pick returns the break-even of one size and pairing.
func pick(t *testing.T, bs []report.BreakEven, n int, ser, hyp string) report.BreakEven {
	t.Helper()
	for _, b := range bs {
		if b.Size == n && b.SerialVersion == ser && b.HypercubeVersion == hyp {
			return b
		}
	}
	t.Fatalf("no break-even for N=%d serial %s hypercube %s", n, ser, hyp)
	return report.BreakEven{}
}

// effectiveP orders break-evens along P: below the sweep counts as 1,
// above it as infinity.
func effectiveP(b report.BreakEven) float64 {
	switch b.Status {
	case "below":
		return 1
	case "above":
		return math.Inf(1)
	}
	return b.Procs
}

// Radke (section 7): the serial sum behind one efficient barrier beats the
// message-passing hypercube at small P, the hypercube wins as P grows, and
// the break-even moves to fewer processors as the work per element grows.
// On SCMP the serial method in Radke's sense is the native one (remote
// writes into rank 0's memory, flag words as the barrier) and the
// hypercube the MPI one. With both in the same style there is no
// break-even: the hypercube is ahead from P = 2 and its lead grows with P.
func TestGlobalSumBreakEven(t *testing.T) {
	bs := breakEvenSweep(t, scenario4x4(), []int{1, 16, 1024})
	small := pick(t, bs, 16, "native", "mpi")
	if small.Status != "between" || small.Procs <= 2 || small.Procs >= 16 {
		t.Errorf("N=16: want a break-even between P=2 and P=16, got %s", small.Describe())
	}
	prev := math.Inf(1)
	for _, n := range []int{1, 16, 1024} {
		p := effectiveP(pick(t, bs, n, "native", "mpi"))
		if p > prev {
			t.Errorf("N=%d: break-even P %.1f above the shorter vector's %.1f: longer vectors should favour the hypercube", n, p, prev)
		}
		prev = p
	}
	if big := pick(t, bs, 1024, "native", "mpi"); big.Status != "below" {
		t.Errorf("N=1024: the hypercube should win at every P, got %s", big.Describe())
	}
	for _, style := range []string{"mpi", "native"} {
		for _, n := range []int{1, 16, 1024} {
			b := pick(t, bs, n, style, style)
			first, last := b.Ratios[0], b.Ratios[len(b.Ratios)-1]
			if b.Status != "below" || last.Ratio <= first.Ratio {
				t.Errorf("%s N=%d: want the hypercube ahead from P=2 with a growing lead, got %v (%s)", style, n, b.Ratios, b.Describe())
			}
		}
	}
	// A costlier element operation: serial does P-1 of them in a row, the
	// hypercube log2 P, so the break-even comes at fewer processors.
	heavy := scenario4x4()
	heavy.Node.FlopCycles = 16
	hb := pick(t, breakEvenSweep(t, heavy, []int{16}), 16, "native", "mpi")
	if effectiveP(hb) >= effectiveP(small) {
		t.Errorf("flop_cycles 16: break-even %s, not below the 1-cycle one (%s)", hb.Describe(), small.Describe())
	}
}
