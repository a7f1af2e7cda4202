package apps

import (
	"strings"
	"testing"
)

func runCGPair(t *testing.T, mesh string, cfg CGConfig) (mpiRes, nat Result) {
	t.Helper()
	sc := newChip(mesh)
	for _, native := range []bool{false, true} {
		c := cfg
		c.Native = native
		res, err := RunCG(sc, c)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Correct {
			t.Fatalf("%s P=%d N=%d: wrong answer: %s", res.Version, res.Procs, res.Size, res.Detail)
		}
		if native {
			nat = res
		} else {
			mpiRes = res
		}
	}
	return mpiRes, nat
}

// Both versions solve the system for several processor counts (including
// ones that do not divide N, and non-powers of two) and sizes.
func TestCGCorrect(t *testing.T) {
	for _, c := range []struct {
		mesh     string
		procs, n int
		nonzeros int
	}{
		{"2x2", 1, 20, 0},
		{"2x2", 3, 31, 0},
		{"2x2", 4, 64, 400},
		{"3x3", 5, 47, 0},
		{"3x3", 9, 90, 2000},
		{"2x2", 4, 10, 100}, // dense
	} {
		m, n := runCGPair(t, c.mesh, CGConfig{Procs: c.procs, N: c.n, Nonzeros: c.nonzeros, Tol: 1e-8, MaxIter: 500, Seed: 7})
		t.Logf("P=%d N=%d: mpi %d cycles, native %d cycles; %s", c.procs, c.n, m.Cycles, n.Cycles, n.Detail)
		if m.Cycles <= 0 || n.Cycles <= 0 {
			t.Errorf("P=%d N=%d: no time elapsed", c.procs, c.n)
		}
	}
}

// Running out of iterations is a wrong answer, not an error.
func TestCGMaxIterNotConverged(t *testing.T) {
	res, err := RunCG(newChip("2x2"), CGConfig{Procs: 4, N: 64, Tol: 1e-12, MaxIter: 1, Seed: 1, Native: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Correct || !strings.Contains(res.Detail, "iterations=1 ") {
		t.Fatalf("one iteration reported correct: %+v", res)
	}
}

// Thesis table 5.1's shape: MPI is slower than native, and its overhead
// shrinks as the problem grows.
func TestCGRatioFallsWithSize(t *testing.T) {
	var prev float64
	for i, n := range []int{32, 128, 512} {
		m, nat := runCGPair(t, "2x2", CGConfig{Procs: 4, N: n, Tol: 1e-8, MaxIter: 500, Seed: 3})
		ratio := float64(m.Cycles) / float64(nat.Cycles)
		t.Logf("P=4 N=%d nonzeros=%d: mpi %d, native %d cycles, ratio %.3f (%s)", n, 5*n, m.Cycles, nat.Cycles, ratio, nat.Detail)
		if ratio <= 1 {
			t.Errorf("N=%d: MPI/native ratio %.3f, want above 1", n, ratio)
		}
		if i > 0 && ratio >= prev {
			t.Errorf("N=%d: ratio %.3f did not fall from %.3f", n, ratio, prev)
		}
		prev = ratio
	}
}

// Table 5.1's other direction: at a fixed size the ratio grows with the
// number of processors.
func TestCGRatioRisesWithProcs(t *testing.T) {
	var prev float64
	for i, p := range []int{2, 4, 8, 16} {
		m, nat := runCGPair(t, "4x4", CGConfig{Procs: p, N: 256, Tol: 1e-8, MaxIter: 500, Seed: 3})
		ratio := float64(m.Cycles) / float64(nat.Cycles)
		t.Logf("P=%d N=256: mpi %d, native %d cycles, ratio %.3f", p, m.Cycles, nat.Cycles, ratio)
		if i > 0 && ratio <= prev {
			t.Errorf("P=%d: ratio %.3f did not rise from %.3f", p, ratio, prev)
		}
		prev = ratio
	}
}

func TestCGBadConfig(t *testing.T) {
	ok := CGConfig{Procs: 4, N: 32, Tol: 1e-8, MaxIter: 100}
	for _, c := range []struct {
		mod  func(*CGConfig)
		want string
	}{
		{func(c *CGConfig) { c.Procs = 0 }, "Procs = 0: allowed 1..4"},
		{func(c *CGConfig) { c.Procs = 5 }, "Procs = 5: allowed 1..4"},
		{func(c *CGConfig) { c.N = 3 }, "N = 3: allowed 4..100000"},
		{func(c *CGConfig) { c.N = 1 << 17 }, "N = 131072"},
		{func(c *CGConfig) { c.Nonzeros = 10 }, "Nonzeros = 10: allowed 0 (5*N) or 32..1024 (N..min(N*N, 4194304))"},
		{func(c *CGConfig) { c.Nonzeros = 2000 }, "Nonzeros = 2000"},
		{func(c *CGConfig) { c.Tol = 0 }, "Tol = 0: allowed (0, 1)"},
		{func(c *CGConfig) { c.Tol = 1 }, "Tol = 1"},
		{func(c *CGConfig) { c.MaxIter = 0 }, "MaxIter = 0: allowed 1..100000"},
	} {
		cfg := ok
		c.mod(&cfg)
		_, err := RunCG(newChip("2x2"), cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", cfg, err, c.want)
		}
	}
	sc := newChip("2x")
	if _, err := RunCG(sc, ok); err == nil {
		t.Error("bad mesh accepted")
	}
}
