package apps

import (
	"strings"
	"testing"
)

func runGlobalSum(t *testing.T, cfg GlobalSumConfig) Result {
	t.Helper()
	r, err := RunGlobalSum(newChip("4x4"), cfg)
	if err != nil {
		t.Fatalf("%+v: %v", cfg, err)
	}
	if !r.Correct {
		t.Fatalf("%+v: wrong sums: %s", cfg, r.Detail)
	}
	return r
}

// Every rank ends with the exact elementwise sum, for both methods and
// versions, including processor counts that are not powers of two
// (serial).
func TestGlobalSumCorrect(t *testing.T) {
	for _, n := range []int{1, 100} {
		for _, native := range []bool{false, true} {
			for _, p := range []int{1, 3, 5, 16} {
				runGlobalSum(t, GlobalSumConfig{Procs: p, N: n, Method: "serial", Native: native, Seed: uint64(p + n)})
			}
			for _, p := range []int{1, 2, 8, 16} {
				r := runGlobalSum(t, GlobalSumConfig{Procs: p, N: n, Method: "hypercube", Native: native, Seed: uint64(p * n)})
				if r.Procs != p || r.Size != n || r.App != "globalsum-hypercube" {
					t.Errorf("result %+v", r)
				}
			}
		}
	}
}

func TestGlobalSumBadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  GlobalSumConfig
		want string
	}{
		{GlobalSumConfig{Procs: 0, N: 4, Method: "serial"}, "Procs = 0: allowed 1..16"},
		{GlobalSumConfig{Procs: 32, N: 4, Method: "hypercube"}, "Procs = 32: allowed 1..16"},
		{GlobalSumConfig{Procs: 4, N: 0, Method: "serial"}, "N = 0: allowed 1..65536"},
		{GlobalSumConfig{Procs: 6, N: 4, Method: "hypercube"}, "Procs = 6: allowed a power of two"},
		{GlobalSumConfig{Procs: 4, N: 4, Method: "tree"}, `Method = "tree": allowed "serial", "hypercube"`},
	} {
		_, err := RunGlobalSum(newChip("4x4"), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want it to contain %q", c.cfg, err, c.want)
		}
	}
}
