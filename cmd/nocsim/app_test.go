package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAppEveryApplication(t *testing.T) {
	for _, c := range []struct{ app, variant, procs, sizes string }{
		{"cg", "", "1,4", "32"},
		{"qr", "", "1,4", "16"},
		{"matmul", "1d", "1,4", "16"},
		{"matmul", "2d", "1,4", "16"},
		{"globalsum", "serial", "1,4", "64"},
		{"globalsum", "hypercube", "1,4", "64"},
	} {
		args := []string{"app", "--mesh", "2x2", "--app", c.app, "--procs", c.procs, "--sizes", c.sizes, "--json", "--quiet"}
		if c.variant != "" {
			args = append(args, "--variant", c.variant)
		}
		code, out, stderr := nocsim(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 4 {
			t.Fatalf("%s: %d rows, want 2 versions x 2 P", c.app, len(rows))
		}
		for _, r := range rows {
			if r["correct"] != true {
				t.Errorf("%s: %v", c.app, r)
			}
			if r["procs"].(float64) == 1 && r["speedup"].(float64) != 1 {
				t.Errorf("%s: the baseline's speedup is %v", c.app, r["speedup"])
			}
			if r["version"] == "mpi" && !(r["mpi_over_native"].(float64) > 0) {
				t.Errorf("%s: no MPI/native ratio: %v", c.app, r)
			}
		}
	}
}

func TestAppBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--app", "fft"}, "--app"},
		{[]string{"--app", "matmul", "--variant", "3d"}, "--variant"},
		{[]string{"--mesh", "2x2", "--procs", "5"}, "--procs"},
		{[]string{"--versions", "cuda"}, "--versions"},
		{[]string{"--sizes", "0"}, "--sizes"},
		{[]string{"--mesh", "4x4", "--app", "matmul", "--variant", "2d", "--procs", "3", "--sizes", "12"}, "Procs"},
	} {
		code, out, stderr := nocsim(t, append([]string{"app", "--quiet"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.flag) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %s", c.args, code, out, stderr, c.flag)
		}
	}
}
