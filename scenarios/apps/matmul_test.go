package apps

import (
	"strings"
	"testing"
)

func runMatMul(t *testing.T, cfg MatMulConfig) Result {
	t.Helper()
	r, err := RunMatMul(newChip("4x4"), cfg)
	if err != nil {
		t.Fatalf("%+v: %v", cfg, err)
	}
	if !r.Correct {
		t.Fatalf("%+v: wrong product: %s", cfg, r.Detail)
	}
	return r
}

// Both versions and both decompositions compute C = A x B exactly, for
// square and non-square (1d) processor counts.
func TestMatMulCorrect(t *testing.T) {
	cases := []MatMulConfig{
		{Procs: 1, N: 12, Decomp: "1d"}, {Procs: 3, N: 24, Decomp: "1d"}, {Procs: 5, N: 20, Decomp: "1d"},
		{Procs: 16, N: 32, Decomp: "1d"}, {Procs: 1, N: 7, Decomp: "2d"}, {Procs: 4, N: 18, Decomp: "2d"},
		{Procs: 9, N: 27, Decomp: "2d"}, {Procs: 16, N: 32, Decomp: "2d"},
	}
	for i, c := range cases {
		for _, native := range []bool{false, true} {
			c.Native, c.Seed = native, uint64(i+1)
			r := runMatMul(t, c)
			if r.Procs != c.Procs || r.Size != c.N || r.Cycles <= 0 || r.App != "matmul-"+c.Decomp {
				t.Errorf("%+v: result %+v", c, r)
			}
		}
	}
}

// The slides' Hockney analysis: at fixed N the 2d decomposition's
// communication (2 t_s sqrt(p) + 2 t_e n^2/sqrt(p)) grows more slowly with
// p than the 1d one's (t_s p + t_e n^2), so at P = 16 Cannon beats the
// ring, and its advantage grows from P = 4 to P = 16.
func TestMatMul2DBeats1DAtScale(t *testing.T) {
	const n = 64
	for _, native := range []bool{false, true} {
		cyc := map[string]map[int]float64{"1d": {}, "2d": {}}
		for _, d := range []string{"1d", "2d"} {
			for _, p := range []int{1, 4, 16} {
				cyc[d][p] = float64(runMatMul(t, MatMulConfig{Procs: p, N: n, Decomp: d, Native: native, Seed: 7}).Cycles)
			}
		}
		for _, d := range []string{"1d", "2d"} {
			for _, p := range []int{4, 16} {
				ideal := cyc[d][1] / float64(p)
				t.Logf("native=%v %s P=%2d N=%d: %7.0f cycles, speedup %.2f vs P=1 (%.0f), overhead beyond ideal %.0f cycles (%.0f%% of total)",
					native, d, p, n, cyc[d][p], cyc[d][1]/cyc[d][p], cyc[d][1], cyc[d][p]-ideal, 100*(cyc[d][p]-ideal)/cyc[d][p])
			}
		}
		if cyc["2d"][16] >= cyc["1d"][16] {
			t.Errorf("native=%v: at P=16 the 2d decomposition (%.0f cycles) is not faster than 1d (%.0f)", native, cyc["2d"][16], cyc["1d"][16])
		}
		if r4, r16 := cyc["2d"][4]/cyc["1d"][4], cyc["2d"][16]/cyc["1d"][16]; r16 >= r4 {
			t.Errorf("native=%v: 2d/1d time ratio %.3f at P=16, not below %.3f at P=4", native, r16, r4)
		}
		for _, d := range []string{"1d", "2d"} {
			if cyc[d][16] >= cyc[d][4] || cyc[d][4] >= cyc[d][1] {
				t.Errorf("native=%v %s: no speedup with P: %v", native, d, cyc[d])
			}
		}
	}
}

func TestMatMulBadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  MatMulConfig
		want string
	}{
		{MatMulConfig{Procs: 0, N: 16, Decomp: "1d"}, "Procs = 0: allowed 1..16"},
		{MatMulConfig{Procs: 17, N: 17, Decomp: "1d"}, "Procs = 17: allowed 1..16"},
		{MatMulConfig{Procs: 4, N: 0, Decomp: "1d"}, "N = 0: allowed 1..256"},
		{MatMulConfig{Procs: 4, N: 512, Decomp: "1d"}, "N = 512: allowed 1..256"},
		{MatMulConfig{Procs: 3, N: 16, Decomp: "1d"}, "N = 16: allowed a multiple of Procs"},
		{MatMulConfig{Procs: 8, N: 16, Decomp: "2d"}, "Procs = 8: allowed a perfect square"},
		{MatMulConfig{Procs: 9, N: 16, Decomp: "2d"}, "N = 16: allowed a multiple of sqrt(Procs) = 3"},
		{MatMulConfig{Procs: 4, N: 16, Decomp: "3d"}, `Decomp = "3d": allowed "1d", "2d"`},
	} {
		_, err := RunMatMul(newChip("4x4"), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want it to contain %q", c.cfg, err, c.want)
		}
	}
}
