package apps

import (
	"fmt"
	"strings"
	"testing"

	"nocsim/mpi"
	"nocsim/mpi/trace"
)

// cgIters reads the iteration count from a CG result's detail.
func cgIters(t *testing.T, res Result) int {
	t.Helper()
	var it int
	i := strings.Index(res.Detail, "iterations=")
	if i < 0 {
		t.Fatalf("no iterations in %q", res.Detail)
	}
	if _, err := fmt.Sscanf(res.Detail[i:], "iterations=%d", &it); err != nil {
		t.Fatal(err)
	}
	return it
}

// Both versions of the thesis variant (and the Alltoall DistributeP)
// solve the system, checked against gonum, on processor counts that do and
// do not divide N.
func TestCGThesisCorrect(t *testing.T) {
	for _, c := range []struct {
		mesh       string
		procs, nz  int
		native     bool
		distribute string
	}{
		{"2x2", 1, 500, false, "bcast"},
		{"2x2", 1, 500, true, ""},
		{"2x2", 3, 1000, false, "bcast"},
		{"2x2", 3, 1000, true, ""},
		{"3x3", 7, 2000, false, "alltoall"},
		{"3x3", 8, 2000, true, ""},
		{"2x2", 4, 2000, false, "alltoall"},
	} {
		cfg := CGConfig{Procs: c.procs, N: CGUnknowns(c.nz), Nonzeros: c.nz, Tol: 1e-8, MaxIter: 1000, Seed: 5,
			Variant: "thesis", Native: c.native, Distribute: c.distribute}
		res, err := RunCG(newChip(c.mesh), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Correct {
			t.Errorf("P=%d nonzeros=%d native=%v %s: wrong answer: %s", c.procs, c.nz, c.native, c.distribute, res.Detail)
		}
	}
}

// With flat broadcasts and reduces (P-1 messages each, the thesis's
// algorithms), the recorded messages are exactly the thesis's count: one
// reduce of |b|^2 before the loop, then per iteration 3 reduces and 4 + P
// broadcasts, (P-1) messages each; 7 (P-1) of them carry one double and
// the P DistributeP broadcasts carry a root's rows. With the Alltoall
// DistributeP, the P broadcasts become P (P-1) messages of the rows.
func TestCGThesisMessageCounts(t *testing.T) {
	for _, c := range []struct {
		P          int
		distribute string
	}{{4, "bcast"}, {5, "bcast"}, {4, "alltoall"}} {
		m := newChip("3x3")
		m.mpi.Bcast, m.mpi.Reduce = "flat", "flat"
		var tr *trace.Trace
		cfg := CGConfig{Procs: c.P, N: 300, Nonzeros: 1500, Tol: 1e-8, MaxIter: 1000, Seed: 2, Variant: "thesis",
			Distribute: c.distribute, Record: func(w *mpi.World) { tr = w.Trace() }}
		res, err := RunCG(m, cfg)
		if err != nil || !res.Correct {
			t.Fatalf("%v %s", err, res.Detail)
		}
		it := cgIters(t, res)
		scalar, rows := 0, 0
		for _, ops := range tr.Ranks {
			for _, op := range ops {
				if op.Kind != trace.Send {
					continue
				}
				if op.Bytes == 8 {
					scalar++
				} else {
					rows++
				}
			}
		}
		P := c.P
		wantScalar := (P - 1) * (1 + 7*it)
		if scalar != wantScalar || rows != it*P*(P-1) {
			t.Errorf("P=%d %s, %d iterations: %d one-double and %d row messages, want (P-1)(1+7 it) = %d and it P (P-1) = %d",
				P, c.distribute, it, scalar, rows, wantScalar, it*P*(P-1))
		}
	}
}

// The kernels' operation counts, charged at one cycle per class and
// nothing else, add to the run's time exactly their closed forms. On one
// native node nothing else is charged but the kernels, so the extra time
// when one key goes from 0 to 1 is the count of that class over the run:
// per iteration, loads and stores 10 nnz + 28 N (matvec 5 nnz + 6 N, the
// updates 6 N + 6 N, newP 5 nnz + 10 N), loop iterations 2 nnz + 4 N,
// kernel calls 3, flops 4 nnz + 13 N + 5 (the root's alpha, beta and
// error); before the loop |b|^2: 2 N words, N iterations, a call, 2 N + 1
// flops.
func TestCGThesisOperationCounts(t *testing.T) {
	cfg := CGConfig{Procs: 1, N: 120, Nonzeros: 600, Tol: 1e-8, MaxIter: 1000, Seed: 4, Variant: "thesis", Native: true}
	run := func(set func(c *chip)) (int64, int) {
		m := newChip("2x2")
		m.cpu.FlopCycles = 0
		set(m)
		res, err := RunCG(m, cfg)
		if err != nil || !res.Correct {
			t.Fatalf("%v %s", err, res.Detail)
		}
		return int64(res.Cycles), cgIters(t, res)
	}
	base, it := run(func(*chip) {})
	nnz, N, I := int64(cfg.Nonzeros), int64(cfg.N), int64(it)
	for _, c := range []struct {
		key  string
		set  func(c *chip)
		want int64
	}{
		{"mem_cycles", func(c *chip) { c.cpu.MemCycles = 1 }, 2*N + I*(10*nnz+28*N)},
		{"loop_cycles", func(c *chip) { c.cpu.LoopCycles = 1 }, N + I*(2*nnz+4*N)},
		{"kernel_call_cycles", func(c *chip) { c.cpu.KernelCallCycles = 1 }, 1 + 3*I},
		{"flop_cycles", func(c *chip) { c.cpu.FlopCycles = 1 }, 2*N + 1 + I*(4*nnz+13*N+5)},
	} {
		got, _ := run(c.set)
		if got-base != c.want {
			t.Errorf("%s = 1: %d extra cycles over %d iterations, want the closed form %d", c.key, got-base, it, c.want)
		}
	}
}

// The thesis's direction (figure 5.2): at fixed P the MPI/native ratio
// falls as the nonzeros grow.
func TestCGThesisRatioFallsWithSize(t *testing.T) {
	ratio := func(nz int) float64 {
		var cyc [2]float64
		for i, native := range []bool{false, true} {
			res, err := RunCG(newChip("2x2"), CGConfig{Procs: 4, N: CGUnknowns(nz), Nonzeros: nz, Tol: 1e-8, MaxIter: 1000,
				Seed: 1, Variant: "thesis", Native: native})
			if err != nil || !res.Correct {
				t.Fatalf("%v %s", err, res.Detail)
			}
			cyc[i] = float64(res.Cycles)
		}
		return cyc[0] / cyc[1]
	}
	small, large := ratio(1000), ratio(10000)
	if !(large < small) || small <= 1 {
		t.Errorf("MPI/native at P=4: %.3f at 1,000 nonzeros, %.3f at 10,000: want above 1 and falling", small, large)
	}
}

// Bad thesis settings are refused before anything runs.
func TestCGThesisRefused(t *testing.T) {
	for _, c := range []struct {
		cfg  CGConfig
		want string
	}{
		{CGConfig{Variant: "paper"}, `Variant = "paper"`},
		{CGConfig{Variant: "thesis", Distribute: "scatter"}, `Distribute = "scatter"`},
		{CGConfig{Distribute: "alltoall"}, `with Variant "thesis" only`},
	} {
		cfg := c.cfg
		cfg.Procs, cfg.N, cfg.Tol, cfg.MaxIter = 4, 40, 1e-8, 10
		_, err := RunCG(newChip("2x2"), cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want it to name %s", c.cfg, err, c.want)
		}
	}
}
