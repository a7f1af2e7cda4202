package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAppEveryApplication(t *testing.T) {
	for _, c := range []struct{ app, variant, procs, sizes, versions string }{
		{"cg", "", "1,4", "32", "mpi,native"},
		{"qr", "", "1,4", "16", "mpi,native"},
		{"qr", "2d", "1,4", "16", "mpi,native"},
		{"matmul", "1d", "1,4", "16", "mpi,native"},
		{"matmul", "2d", "1,4", "16", "mpi,native"},
		{"globalsum", "serial", "1,4", "64", "mpi,native"},
		{"globalsum", "hypercube", "1,4", "64", "mpi,native"},
	} {
		args := []string{"app", "--mesh", "2x2", "--app", c.app, "--procs", c.procs, "--sizes", c.sizes, "--versions", c.versions, "--json", "--quiet"}
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
		if want := 2 * len(strings.Split(c.versions, ",")); len(rows) != want {
			t.Fatalf("%s: %d rows, want %d (versions x P)", c.app, len(rows), want)
		}
		for _, r := range rows {
			if r["correct"] != true {
				t.Errorf("%s: %v", c.app, r)
			}
			if r["procs"].(float64) == 1 && r["speedup"].(float64) != 1 {
				t.Errorf("%s: the baseline's speedup is %v", c.app, r["speedup"])
			}
			if r["version"] == "mpi" && strings.Contains(c.versions, "native") && !(r["mpi_over_native"].(float64) > 0) {
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
		{[]string{"--app", "qr", "--variant", "2d", "--versions", "mpi", "--procs", "8"}, "--procs"},
		{[]string{"--sizes", "0"}, "--sizes"},
		{[]string{"--mesh", "4x4", "--app", "matmul", "--variant", "2d", "--procs", "3", "--sizes", "12"}, "--procs"},
	} {
		code, out, stderr := nocsim(t, append([]string{"app", "--quiet"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.flag) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %s", c.args, code, out, stderr, c.flag)
		}
	}
}
