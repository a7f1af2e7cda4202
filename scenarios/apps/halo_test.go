package apps

import (
	"strings"
	"testing"
)

// Every method of the halo exchange ends with the serial relaxation's
// grid bit for bit (the points are compared exactly, so a halo row that
// arrived late, early or not at all shows), for P = 1 (no neighbours),
// odd P and the whole 4x4 machine.
func TestHaloCorrect(t *testing.T) {
	for _, m := range HaloMethods {
		for _, p := range []int{1, 3, 16} {
			for _, n := range []int{3, 50} {
				r, err := RunHalo(newChip("4x4"), HaloConfig{Procs: p, N: n, Method: m, Seed: uint64(p*n + 1)})
				if err != nil {
					t.Fatalf("%s P=%d N=%d: %v", m, p, n, err)
				}
				if !r.Correct {
					t.Fatalf("%s P=%d N=%d: %s", m, p, n, r.Detail)
				}
				if r.Cycles <= 0 {
					t.Errorf("%s P=%d N=%d: %d cycles", m, p, n, r.Cycles)
				}
			}
		}
	}
}

// The one-sided global sums end with the exact sum on every rank.
func TestGlobalSumOneSidedCorrect(t *testing.T) {
	for _, m := range []string{"onesided", "accumulate"} {
		for _, p := range []int{1, 3, 16} {
			for _, n := range []int{1, 100} {
				runGlobalSum(t, GlobalSumConfig{Procs: p, N: n, Method: m, Seed: uint64(p + 7*n)})
			}
		}
	}
	if _, err := RunGlobalSum(newChip("4x4"), GlobalSumConfig{Procs: 2, N: 4, Method: "onesided", Native: true}); err == nil || !strings.Contains(err.Error(), "no native version") {
		t.Errorf("native one-sided global sum: error %v, want a refusal", err)
	}
}
