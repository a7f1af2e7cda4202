package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// coll's energy-delay product is each run's energy times its cycles, from
// the same JSON object; --energy-plot draws FILE and FILE-edp.
func TestCollEnergyPlotAndEDP(t *testing.T) {
	dir := t.TempDir()
	e := filepath.Join(dir, "e.png")
	code, stdout, stderr := nocsim(t, "coll", "-q", "--mesh", "2x2", "--op", "bcast", "--algs", "binomial,flat", "--sizes", "8,1024",
		"--json", "--energy-plot", e)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []struct {
		Cycles int64   `json:"cycles"`
		EDP    float64 `json:"edp_pj_cycles"`
		Energy struct {
			TotalPJ float64 `json:"energy_pj"`
		} `json:"energy"`
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil || len(rows) != 4 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	for i, r := range rows {
		if want := r.Energy.TotalPJ * float64(r.Cycles); r.EDP <= 0 || math.Abs(r.EDP-want) > 1e-9*want {
			t.Errorf("row %d: edp %g, energy x cycles %g", i, r.EDP, want)
		}
	}
	checkPNGs(t, e, filepath.Join(dir, "e-edp.png"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--mesh", "2x2", "--energy-model", "none"}, "--energy-plot: energy_model = none prices nothing to draw"},
		// The tier runs no chip: the flag would draw nothing.
		{[]string{"--tier", "loggops", "--L", "10", "--o", "5", "--g", "2", "--procs", "16"}, `--energy-plot = "` + e + `": not with --tier loggops`},
	} {
		code, stdout, stderr = nocsim(t, append(append([]string{"coll", "-q"}, c.args...), "--energy-plot", e)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, one line with %q", c.args, code, stdout, stderr, c.want)
		}
	}
}
