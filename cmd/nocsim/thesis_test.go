package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nocsim/scenarios/report"
	"nocsim/scenarios/thesis"
)

// One row of each table through the CLI: the JSON keys the issue names,
// the thesis's figures as printed, and nocsim's ratio its own two times'.
func TestThesisTableJSON(t *testing.T) {
	for _, c := range []struct{ table, procs, sizes, sizeKey string }{
		{"5.1", "4", "2000", "nonzeros"},
		{"5.2", "4", "128", "matrix"},
	} {
		code, out, stderr := nocsim(t, "thesis", "--table", c.table, "--procs", c.procs, "--sizes", c.sizes, "--json", "-q")
		if code != 0 {
			t.Fatalf("table %s: exit %d: %s", c.table, code, stderr)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 {
			t.Fatalf("table %s: %d rows, want 1", c.table, len(rows))
		}
		r := rows[0]
		for _, k := range []string{c.sizeKey, "procs", "thesis_native_kcycles", "thesis_mpi_kcycles", "thesis_ratio", "native_kcycles", "mpi_kcycles", "ratio"} {
			if _, ok := r[k].(float64); !ok {
				t.Errorf("table %s: key %q missing or not a number in %v", c.table, k, r)
			}
		}
		want, _ := thesis.Rows(c.table, []int{4}, nil)
		var row report.ThesisRow
		for _, w := range want {
			if float64(w.Size()) == r[c.sizeKey] {
				row = w
			}
		}
		if r["thesis_native_kcycles"] != row.NativeK || r["thesis_mpi_kcycles"] != row.MPIK {
			t.Errorf("table %s: thesis figures %v / %v, want %v / %v", c.table, r["thesis_native_kcycles"], r["thesis_mpi_kcycles"], row.NativeK, row.MPIK)
		}
		if got := r["mpi_kcycles"].(float64) / r["native_kcycles"].(float64); math.Abs(got-r["ratio"].(float64)) > 1e-12 {
			t.Errorf("table %s: ratio %v, its times give %v", c.table, r["ratio"], got)
		}
		if r["correct"] != true {
			t.Errorf("table %s: answers not correct: %v", c.table, r)
		}
	}
}

func TestThesisBadInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"thesis"}, "--table"},
		{[]string{"thesis", "--table", "5.3"}, "5.1 (CG), 5.2 (QR)"},
		{[]string{"thesis", "--table", "5.1", "--procs", "3"}, "--procs"},
		{[]string{"thesis", "--table", "5.2", "--sizes", "x"}, "--sizes"},
		{[]string{"thesis", "--table", "5.1", "--plot-dir", file}, "--plot-dir"},
		{[]string{"thesis", "--table", "5.1", "--call-cycles", "-1"}, "--call-cycles"},
		{[]string{"thesis", "--table", "5.1", "--distribute", "ring"}, "--distribute"},
		{[]string{"thesis", "--table", "5.2", "--distribute", "alltoall"}, "--distribute"},
		{[]string{"thesis", "fit"}, "--out"},
		{[]string{"thesis", "fit", "--out", filepath.Join(dir, "m.toml"), "--keys", "flop_cycles,nope"}, "--keys"},
		{[]string{"thesis", "fit", "--out", filepath.Join(dir, "m.toml"), "--steps", "0"}, "--steps"},
	} {
		code, _, stderr := nocsim(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 and one line naming %s", c.args, code, stderr, c.want)
		}
	}
}
