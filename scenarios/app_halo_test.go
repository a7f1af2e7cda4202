package scenarios

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
				r, err := RunHalo(mmScenario(), HaloConfig{Procs: p, N: n, Method: m, Seed: uint64(p*n + 1)})
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
	if _, err := RunGlobalSum(mmScenario(), GlobalSumConfig{Procs: 2, N: 4, Method: "onesided", Native: true}); err == nil || !strings.Contains(err.Error(), "no native version") {
		t.Errorf("native one-sided global sum: error %v, want a refusal", err)
	}
}

// The comparison sweeps run every method, the same rows whatever the
// number of workers, and refuse a native version.
func TestOneSidedSweeps(t *testing.T) {
	sc := mmScenario()
	for _, sw := range []AppSweep{
		{App: "halo", Variant: "compare", Procs: []int{2, 4}, Sizes: []int{8}, Versions: []string{"mpi"}, Seed: 3},
		{App: "globalsum", Variant: "rma", Procs: []int{2, 4}, Sizes: []int{8}, Versions: []string{"mpi"}, Seed: 3},
	} {
		if err := sw.Check(sc, nil); err != nil {
			t.Fatalf("%s %s: %v", sw.App, sw.Variant, err)
		}
		a, err := sw.Run(sc, RunOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		b, err := sw.Run(sc, RunOptions{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != len(sw.methods())*4/2 || len(a) != len(b) {
			t.Fatalf("%s %s: %d and %d rows for %d methods", sw.App, sw.Variant, len(a), len(b), len(sw.methods()))
		}
		for i := range a {
			if a[i].Cycles != b[i].Cycles || a[i].Variant != b[i].Variant || !a[i].Correct {
				t.Errorf("%s row %d: %+v vs %+v", sw.App, i, a[i], b[i])
			}
		}
		sw.Versions = []string{"mpi", "native"}
		if err := sw.Check(sc, nil); err == nil || !strings.Contains(err.Error(), "versions") {
			t.Errorf("%s %s with native: error %v", sw.App, sw.Variant, err)
		}
	}
}
