package main

import (
	"strings"
	"testing"
)

// With --energy-model none the priced commands print no energy at all (no
// JSON energy key, no energy or power column), as before energy existed;
// with a model they do. (That the model only adds, changing no other
// figure, is what the regression corpus showed when energy came in: its
// diffs were additions only.)
func TestEnergyModelNoneLeavesOutputsAsBefore(t *testing.T) {
	_, _, params := fuzzFixture(t) // fitted on a 4x4, no energy fit
	for _, args := range [][]string{
		{"noc", "--mesh", "4x4", "--rates", "0.05", "--measure-cycles", "500", "--warmup-cycles", "100", "--quiet"},
		{"pingpong", "--mesh", "2x2", "--to", "3", "--sizes", "8,1024", "--quiet"},
		{"coll", "--mesh", "2x2", "--op", "bcast", "--algs", "binomial", "--sizes", "64", "--quiet"},
		{"app", "--mesh", "2x2", "--app", "cg", "--procs", "1,4", "--sizes", "16", "--quiet"},
		{"pairs", "--mesh", "2x2", "--sizes", "256", "--quiet"},
		{"goal", "run", "testdata/dissemination_8.goal", "--mesh", "4x4", "--quiet"},
		{"goal", "compare", "testdata/dissemination_8.goal", "--mesh", "4x4", "--params", params, "--quiet"},
		{"thesis", "--table", "5.1", "--procs", "4", "--sizes", "2000", "--quiet"},
	} {
		for _, form := range [][]string{nil, {"--json"}} {
			a := append(append(append([]string{}, args...), form...), "--energy-model", "none")
			code, off, stderr := nocsim(t, a...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", a, code, stderr)
			}
			for _, w := range []string{"energy", "power", "(mW)", "(nJ)", "pJ"} {
				if strings.Contains(off, w) {
					t.Errorf("%v prints %q:\n%s", a, w, off)
				}
			}
			code, on, _ := nocsim(t, append(append(append([]string{}, args...), form...), "--energy-model", "dsent")...)
			if code != 0 || !strings.Contains(on, "energy") {
				t.Errorf("%v with dsent: exit %d, no energy in\n%s", args, code, on)
			}
		}
	}
}
