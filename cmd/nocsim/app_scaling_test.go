package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// app --app matmul --params prints the slides' scalability conditions,
// and its JSON rows carry them.
func TestAppMatMulScaling(t *testing.T) {
	_, _, params := fuzzFixture(t)
	args := []string{"--quiet", "app", "--mesh", "2x2", "--app", "matmul", "--variant", "1d", "--procs", "1,2", "--sizes", "8", "--versions", "mpi", "--params", params}
	code, out, stderr := nocsim(t, args...)
	if code != 0 || !strings.Contains(out, "time falls up to P") || !strings.Contains(out, "1->2") {
		t.Fatalf("exit %d: %s\n%s", code, out, stderr)
	}
	code, out, stderr = nocsim(t, append(args, "--json")...)
	var rows []struct {
		Procs   int `json:"procs"`
		Scaling *struct {
			MinN  int      `json:"min_n_for_speedup"`
			PeakP *float64 `json:"peak_procs"`
			Ts    float64  `json:"t_s_cycles"`
			Tproc float64  `json:"t_proc_cycles"`
		} `json:"scaling"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 2 {
		t.Fatalf("exit %d: %s %s", code, out, stderr)
	}
	for _, r := range rows {
		s := r.Scaling
		if s == nil || s.PeakP == nil || s.MinN < 1 {
			t.Fatalf("P=%d: scaling %+v", r.Procs, s)
		}
		// The slides' second condition: p* = sqrt(t_proc n^3 / t_s).
		if want := math.Sqrt(s.Tproc * 512 / s.Ts); math.Abs(*s.PeakP-want) > 1e-9*want {
			t.Errorf("P=%d: peak P %v, want %v", r.Procs, *s.PeakP, want)
		}
	}
}
