package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The LogP paper's example through the CLI: P = 8, L = 6, o = 2, g = 4
// finishes at 24 with the paper's tree; the summation of the slides'
// figure (T = 28, L = 5, o = 2, g = 4) uses 8 processors.
func TestPredictOptimal(t *testing.T) {
	code, out, stderr := nocsim(t, "predict", "--optimal", "bcast", "--procs", "8", "--L", "6", "--o", "2", "--g", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var b struct {
		Finish float64 `json:"finish_cycles"`
		Parent []int   `json:"parent"`
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatal(err)
	}
	if b.Finish != 24 || !slices.Equal(b.Parent, []int{-1, 0, 0, 0, 1, 0, 1, 2}) {
		t.Errorf("optimal bcast: %+v, want 24 cycles and parents [-1 0 0 0 1 0 1 2]", b)
	}
	code, out, stderr = nocsim(t, "predict", "--optimal", "sum", "--time", "28", "--L", "5", "--o", "2", "--g", "4", "--json")
	var s struct {
		Procs    int `json:"procs"`
		Operands int `json:"operands"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &s) != nil || s.Procs != 8 || s.Operands < 29 {
		t.Errorf("optimal sum: exit %d, %q, %s; want 8 processors and more operands than one processor's 29", code, out, stderr)
	}
}

func TestPredictOptimalBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--optimal", "tree"}, "--optimal"},
		{[]string{"--optimal", "bcast", "--procs", "8", "--L", "6", "--o", "2"}, "--g"},
		{[]string{"--optimal", "bcast", "--procs", "0", "--L", "6", "--o", "2", "--g", "4"}, "--procs"},
		{[]string{"--optimal", "bcast", "--procs", "8", "--L", "-6", "--o", "2", "--g", "4"}, "--L"},
		{[]string{"--optimal", "sum", "--time", "-1", "--L", "6", "--o", "2", "--g", "4"}, "--time"},
		{[]string{"--op", "bcast"}, "--params"},
	} {
		code, out, stderr := nocsim(t, append([]string{"predict"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, one line naming %q", c.args, code, out, stderr, c.want)
		}
	}
}
