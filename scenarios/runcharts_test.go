package scenarios

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// run writes the chart docs/commands/run.md promises for every workload kind (the
// issue found none for pingpong and coll).
func TestRunWritesAChartPerKind(t *testing.T) {
	for _, c := range []struct{ workload, chart string }{
		{"kind = \"pingpong\"\nsizes = [8, 1024]\nreps = 1\n", "pingpong.png"},
		{"kind = \"coll\"\nop = \"bcast\"\nalgs = [\"binomial\"]\nprocs = [4]\nsizes = [8, 64]\n", "coll.png"},
		{"kind = \"coll\"\nop = \"bcast\"\nalgs = [\"binomial\"]\nprocs = [2, 4]\nsizes = [8]\n", "coll.png"},
		{"kind = \"thesis\"\ntable = \"5.1\"\nprocs = [4]\nsizes = [2000, 5000]\n", "fig5.2-cg-ratio.png"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.toml")
		os.WriteFile(path, []byte("name = \"k\"\n[network]\nmesh = \"2x2\"\n[workload]\n"+c.workload+"[output]\ndir = \"out\"\n"), 0o644)
		sc, src, err := LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.Check(src); err != nil {
			t.Fatalf("%q: %v", c.workload, err)
		}
		sum, err := sc.Run(src, Provenance{}, RunOptions{})
		if err != nil {
			t.Fatalf("%q: %v", c.workload, err)
		}
		if _, err := os.Stat(filepath.Join(sum.Dir, c.chart)); err != nil {
			t.Errorf("%q: %v", c.workload, err)
		}
	}
}

// The ping-pong chart plots exactly the sizes run, one-way times as
// measured, and says what ran.
func TestPingPongChartSeries(t *testing.T) {
	rows := []PingRow{{SizeBytes: 0, Protocol: "scmp", From: 0, To: 3, Hops: 2, OneWayCycles: 200},
		{SizeBytes: 8, Protocol: "scmp", From: 0, To: 3, Hops: 2, OneWayCycles: 210},
		{SizeBytes: 1024, Protocol: "scmp", From: 0, To: 3, Hops: 2, OneWayCycles: 500}}
	c := PingPongChart(rows, "2x2 mesh, scmp protocol, nocsim library")
	if len(c.Series) != 1 || !slices.Equal(c.Series[0].X, []float64{8, 1024}) || !slices.Equal(c.Series[0].Y, []float64{210, 500}) {
		t.Errorf("series %+v: want the non-empty sizes and their one-way times", c.Series)
	}
	for _, w := range []string{"0 <-> 3", "2 hops", "scmp", "2x2"} {
		if !strings.Contains(c.Title, w) {
			t.Errorf("title %q lacks %q", c.Title, w)
		}
	}
	if !strings.Contains(c.XLabel, "bytes") || !strings.Contains(c.YLabel, "cycles") {
		t.Errorf("axis labels %q / %q: want units", c.XLabel, c.YLabel)
	}
}
