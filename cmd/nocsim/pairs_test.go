package main

import (
	"encoding/json"
	"nocsim/scenarios/report"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad input is one line naming the flag, exit 2, before anything runs.
func TestPairsBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--pairs", "9"}, "--pairs = 9: allowed 1..8"},
		{[]string{"--pairs", "0"}, "--pairs = 0"},
		{[]string{"--pairs", "x"}, "--pairs"},
		{[]string{"--sizes", "0"}, "--sizes = 0"},
		{[]string{"--sizes", "18"}, "multiple of 4"},
		{[]string{"--sizes", "16777216"}, "memory_words"},
		{[]string{"--reps", "1001"}, "--reps = 1001: allowed 1..1000"},
		{[]string{"--placement", "ring"}, "--placement"},
		{[]string{"--versions", "shmem"}, "--versions"},
		{[]string{"--plot", "x.txt"}, "--plot"},
		{[]string{"--topologies", "mesh,hypercube"}, `--topologies = "hypercube": allowed mesh, torus, cmesh, ring, ring_uni, bus`},
		{[]string{"--topologies", "torus", "--vcs", "3"}, "--vcs = 3"},
		{[]string{"--topologies", "ring", "--vcs", "3"}, "--vcs = 3"},
		{[]string{"--compare-plot", "x.txt"}, "--compare-plot"},
		{[]string{"extra"}, "no arguments"},
	} {
		args := append([]string{"pairs", "--mesh", "4x4", "--quiet"}, c.args...)
		code, _, stderr := nocsim(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// A run prints its rows, writes the CSV and one chart per version plus
// the aggregate chart, and says on stderr how fast it went.
func TestPairsRunWritesOutputs(t *testing.T) {
	dir := t.TempDir()
	plot, agg, csvPath := filepath.Join(dir, "bw.png"), filepath.Join(dir, "agg.svg"), filepath.Join(dir, "p.csv")
	code, out, stderr := nocsim(t, "pairs", "--mesh", "4x2", "--sizes", "16,256", "--json", "--plot", plot, "--aggregate-plot", agg, "--csv", csvPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []report.PairsRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	// Default pairs on 8 ranks: 1, 2 and P/2 = 4; two versions, two sizes.
	if len(rows) != 2*3*2 {
		t.Errorf("%d rows, want 12", len(rows))
	}
	for _, f := range []string{filepath.Join(dir, "bw-mpi.png"), filepath.Join(dir, "bw-native.png"), agg, csvPath} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.Contains(stderr, "speed:") {
		t.Errorf("stderr %q has no speed line", stderr)
	}
}

// --topologies runs the study once per network, rows in the order asked,
// each saying its topology; --plot draws a file per topology and version
// and --compare-plot one per version.
func TestPairsTopologiesFlag(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := nocsim(t, "pairs", "--quiet", "--mesh", "2x2", "--pairs", "1,2", "--sizes", "64", "--reps", "1", "--json",
		"--topologies", "bus,ring", "--plot", filepath.Join(dir, "bw.png"), "--compare-plot", filepath.Join(dir, "cmp.png"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []report.PairsRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*2*2 {
		t.Fatalf("%d rows, want 2 topologies x 2 versions x 2 pair counts", len(rows))
	}
	for i, r := range rows {
		if want := []string{"bus", "ring"}[i/4]; r.Topology != want {
			t.Errorf("row %d: topology %q, want %q", i, r.Topology, want)
		}
	}
	for _, f := range []string{"bw-bus-mpi.png", "bw-bus-native.png", "bw-ring-mpi.png", "bw-ring-native.png", "cmp-mpi.png", "cmp-native.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
