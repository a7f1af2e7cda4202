package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nocsim/logp/collgen"
	"nocsim/logp/goal"
)

// goal gen writes the generated schedule: what it prints and what it puts
// in --out read back as the schedule collgen builds, written canonically.
func TestGoalGen(t *testing.T) {
	s, err := collgen.Generate("allreduce", "recursive_doubling", 6, 64, collgen.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := goal.Write(&want, s); err != nil {
		t.Fatal(err)
	}
	args := []string{"goal", "gen", "--op", "allreduce", "--alg", "recursive_doubling", "--procs", "6", "--size", "64"}
	code, out, stderr := nocsim(t, args...)
	if code != 0 || out != want.String() {
		t.Fatalf("exit %d, stderr %q; stdout differs from the generated schedule:\n%s", code, stderr, out)
	}
	if _, err := goal.Read(strings.NewReader(out)); err != nil {
		t.Fatalf("the printed schedule does not read back: %v", err)
	}
	file := filepath.Join(t.TempDir(), "ar.goal")
	if code, _, stderr := nocsim(t, append(args, "--out", file)...); code != 0 {
		t.Fatalf("--out: exit %d: %s", code, stderr)
	}
	if got, err := os.ReadFile(file); err != nil || string(got) != want.String() {
		t.Fatalf("--out file differs (%v)", err)
	}
	// A barrier needs no size.
	if code, _, stderr := nocsim(t, "goal", "gen", "--op", "barrier", "--alg", "tree4", "--procs", "9"); code != 0 {
		t.Fatalf("barrier: exit %d: %s", code, stderr)
	}
}

func TestGoalGenBadInput(t *testing.T) {
	dir := t.TempDir()
	base := func(extra ...string) []string {
		return append([]string{"goal", "gen", "--op", "bcast", "--alg", "binomial", "--procs", "8", "--size", "8"}, extra...)
	}
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"goal", "gen", "--op", "bogus", "--alg", "x", "--procs", "4", "--size", "1"}, "--op"},
		{[]string{"goal", "gen", "--op", "bcast", "--alg", "ring", "--procs", "4", "--size", "1"}, "--alg"},
		{[]string{"goal", "gen", "--op", "barrier", "--alg", "tree4_scatter", "--procs", "4"}, "has no GOAL schedule"},
		{[]string{"goal", "gen", "--op", "bcast", "--alg", "flat", "--procs", "4"}, "--size"},
		{[]string{"goal", "gen", "--alg", "flat", "--procs", "4", "--size", "1"}, "--op"},
		{base("--procs", "0"), "--procs"},
		{base("--procs", "-5"), "--procs"},
		{base("--size", "-1"), "--size"},
		{base("--root", "8"), "--root"},
		{base("--flop-cycles", "-1"), "--flop-cycles"},
		{base("--copy-cycles", "-2"), "--copy-cycles"},
		{base("--elem-bytes", "0"), "--elem-bytes"},
		{[]string{"goal", "gen", "--op", "allreduce", "--alg", "ring", "--procs", "4", "--size", "12"}, "--size"},
		{[]string{"goal", "gen", "--op", "alltoall", "--alg", "pairwise", "--procs", "1000000", "--size", "8"}, "--procs"},
		{base("--out", filepath.Join(dir, "no", "such", "dir", "x.goal")), "--out"},
		{base("extra"), "argument"},
		{base("--L", "5"), "--L"}, // binomial builds no LogP tree
		{[]string{"goal", "gen", "--op", "bcast", "--alg", "optimal", "--procs", "8", "--size", "8", "--o", "-1"}, "--o"},
		{[]string{"goal", "gen", "--op", "bcast", "--alg", "optimal", "--procs", "8", "--size", "8", "--g", "NaN"}, "--g"},
		{[]string{"goal", "gen", "--op", "bcast", "--alg", "optimal", "--procs", "8", "--size", "8", "--L", "2e9"}, "--L"},
		{[]string{"goal", "gen", "--op", "bcast", "--alg", "optimal", "--procs", "8", "--size", "8", "--L", "Inf"}, "--L"},
	} {
		code, _, stderr := nocsim(t, c.args...)
		msg := strings.TrimSuffix(stderr, "\n")
		if code != 2 || strings.Contains(msg, "\n") || !strings.Contains(msg, c.flag) {
			t.Errorf("%q: exit %d, stderr %q: want exit 2 and one line naming %s", c.args, code, stderr, c.flag)
		}
	}
}

// The optimal broadcast's tree is the one Karp et al.'s rule builds for
// the --L, --o and --g given (defaults: mpi's optimal_L, optimal_o and
// optimal_g): goal gen prints collgen's schedule for those parameters, and
// parameters that change the tree change the schedule.
func TestGoalGenOptimalTree(t *testing.T) {
	gen := func(L, o, g float64) string {
		opt := collgen.DefaultOptions()
		opt.OptimalL, opt.OptimalO, opt.OptimalG = L, o, g
		s, err := collgen.Generate("bcast", "optimal", 24, 8, opt)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := goal.Write(&b, s); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	args := []string{"goal", "gen", "--op", "bcast", "--alg", "optimal", "--procs", "24", "--size", "8"}
	d := collgen.DefaultOptions()
	if code, out, stderr := nocsim(t, args...); code != 0 || out != gen(d.OptimalL, d.OptimalO, d.OptimalG) {
		t.Fatalf("defaults: exit %d, stderr %q, or not the tree for mpi's optimal_L/o/g", code, stderr)
	}
	// g far above L+2o: the root sends to few, who send on (a deep tree);
	// g = 0 with a long L: the root alone informs everyone (a flat one).
	for _, c := range [][3]float64{{6, 2, 40}, {200, 1, 0}} {
		want := gen(c[0], c[1], c[2])
		if want == gen(d.OptimalL, d.OptimalO, d.OptimalG) {
			t.Fatalf("L, o, g = %v: the same tree as the defaults; the test shows nothing", c)
		}
		code, out, stderr := nocsim(t, append(args, "--L", fmt.Sprint(c[0]), "--o", fmt.Sprint(c[1]), "--g", fmt.Sprint(c[2]))...)
		if code != 0 || out != want {
			t.Errorf("--L %v --o %v --g %v: exit %d, stderr %q, or not collgen's tree for them", c[0], c[1], c[2], code, stderr)
		}
	}
}
