package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// calibrate writes parameters that predict reads back, and the prediction
// of a point-to-point message matches the simulated ping-pong within 5%.
func TestCalibratePredictRoundTrip(t *testing.T) {
	dir := t.TempDir()
	params := filepath.Join(dir, "params.toml")
	code, _, stderr := nocsim(t, "calibrate", "--mesh", "4x4", "--protocol", "eager", "--out", params,
		"--plots", dir, "--save-csv", filepath.Join(dir, "m.csv"), "--quiet")
	if code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "oneway.png")); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := nocsim(t, "pingpong", "--mesh", "4x4", "--protocol", "eager", "--from", "0", "--to", "15", "--sizes", "8,100,1000,20000", "--json")
	if code != 0 {
		t.Fatalf("pingpong: %s", stderr)
	}
	var sim []struct {
		Size   int     `json:"size_bytes"`
		OneWay float64 `json:"one_way_cycles"`
	}
	if err := json.Unmarshal([]byte(out), &sim); err != nil {
		t.Fatal(err)
	}
	for _, s := range sim {
		code, out, stderr := nocsim(t, "predict", "--params", params, "--op", "p2p", "--size", itoa(s.Size), "--hops", "6", "--json")
		if code != 0 {
			t.Fatalf("predict: %s", stderr)
		}
		var pr struct {
			Cycles float64 `json:"predicted_cycles"`
		}
		if err := json.Unmarshal([]byte(out), &pr); err != nil {
			t.Fatal(err)
		}
		if rel := (pr.Cycles - s.OneWay) / s.OneWay; rel > 0.05 || rel < -0.05 {
			t.Errorf("%d bytes over 6 hops: predicted %.1f, simulated %.1f (%+.1f%%)", s.Size, pr.Cycles, s.OneWay, 100*rel)
		}
	}
	// The measurements written by --save-csv fit again from the CSV.
	code, _, stderr = nocsim(t, "calibrate", "--mesh", "4x4", "--csv", filepath.Join(dir, "m.csv"), "--out", filepath.Join(dir, "again.json"), "--quiet")
	if code != 0 {
		t.Fatalf("calibrate --csv: exit %d: %s", code, stderr)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestCalibrateAndPredictBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	missing := write("missing.csv", "kind,bytes,cycles\nrtt,8,100\n")
	negative := write("neg.csv", "kind,bytes,hops,n,delay_cycles,cycles\nrtt,8,1,1,0,-5\n")
	unknown := write("unknown.toml", "P = 4\nbogus = 1\n[[segment]]\nmax_bytes = 0\nL = 1.0\n")
	negL := write("negl.toml", "P = 4\n[[segment]]\nmax_bytes = 0\nL = -1.0\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", "--csv", missing}, "missing.csv"},
		{[]string{"calibrate", "--csv", negative}, "negative"},
		{[]string{"calibrate", "--csv", filepath.Join(dir, "nope.csv")}, "--csv"},
		{[]string{"calibrate", "--out", "params.txt"}, "--out"},
		{[]string{"calibrate", "--sizes", "8,x"}, "--sizes"},
		{[]string{"predict", "--params", unknown}, "unknown key"},
		{[]string{"predict", "--params", negL}, "L"},
		{[]string{"predict", "--params", unknown, "--op", "bcast"}, "unknown key"},
	} {
		code, out, stderr := nocsim(t, append(c.args, "--quiet")...)
		if c.args[0] == "predict" {
			code, out, stderr = nocsim(t, c.args...)
		}
		if code != 2 || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 mentioning %q", c.args, code, out, stderr, c.want)
		}
	}
}

// With parameters, coll reports the prediction and error of every run and
// runs the model's choice for auto; predict --select names a choice for
// every P and size and the crossovers between them.
func TestCollWithParamsAndSelection(t *testing.T) {
	dir := t.TempDir()
	params := filepath.Join(dir, "p.json")
	if code, _, stderr := nocsim(t, "calibrate", "--mesh", "4x4", "--out", params, "--quiet"); code != 0 {
		t.Fatalf("calibrate: %s", stderr)
	}
	code, out, stderr := nocsim(t, "coll", "--mesh", "4x4", "--op", "bcast", "--algs", "auto,flat,binomial", "--procs", "16",
		"--sizes", "8,65536", "--params", params, "--json", "--quiet")
	if code != 0 {
		t.Fatalf("coll: %s", stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		pred, _ := r["predicted_cycles"].(float64)
		cyc, _ := r["cycles"].(float64)
		rel, _ := r["relative_error"].(float64)
		if pred <= 0 || cyc <= 0 || rel != (pred-cyc)/cyc {
			t.Errorf("row %v: prediction, cycles and relative error disagree", r)
		}
		if a := r["algorithm"].(string); a == "auto" {
			t.Errorf("auto was not resolved by the model: %v", r)
		}
	}
	code, out, stderr = nocsim(t, "predict", "--params", params, "--op", "bcast", "--select", "8,1024,65536,1048576", "--select-procs", "4,16")
	if code != 0 {
		t.Fatalf("predict --select: %s", stderr)
	}
	// The short broadcast's pick is mesh: its form costs each message over
	// its own row or column distance, binomial's over the mean distance.
	for _, want := range []string{"mesh", "P \\ bytes", "crossover at P=16"} {
		if !strings.Contains(out, want) {
			t.Errorf("selection output lacks %q:\n%s", want, out)
		}
	}
}
