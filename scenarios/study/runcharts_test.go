package study

import (
	"nocsim/scenarios"
	"os"
	"path/filepath"
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
		sc, src, err := scenarios.LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(&sc, src); err != nil {
			t.Fatalf("%q: %v", c.workload, err)
		}
		sum, err := Run(&sc, src, scenarios.Provenance{}, scenarios.RunOptions{})
		if err != nil {
			t.Fatalf("%q: %v", c.workload, err)
		}
		if _, err := os.Stat(filepath.Join(sum.Dir, c.chart)); err != nil {
			t.Errorf("%q: %v", c.workload, err)
		}
	}
}
