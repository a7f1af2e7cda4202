package sweep

import (
	"path/filepath"
	"testing"

	"nocsim/scenarios"
)

// Every shipped scenario with a [sweep] runs through Run, into a
// temporary directory.
func TestExampleSweepsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example sweep")
	}
	files, _ := filepath.Glob("../examples/*.toml")
	if len(files) == 0 {
		t.Fatal("no example scenarios found")
	}
	for _, f := range files {
		sc, src, err := scenarios.LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.Sweep.Axis) == 0 {
			continue // run by package scenarios' TestExampleScenariosRun
		}
		sc.Output.Dir = t.TempDir()
		pts, scs, err := Points(&sc, src)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if _, _, err := Run(pts, scs, sc.OutputDir(), Options{Run: runRows}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
