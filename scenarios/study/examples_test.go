package study

import (
	"nocsim/scenarios"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every scenario shipped in examples/ decodes and validates.
func TestExampleScenariosValidate(t *testing.T) {
	files, err := filepath.Glob("../examples/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example scenarios: %v", err)
	}
	for _, f := range files {
		sc, src, err := scenarios.LoadFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if err := Check(&sc, src); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if !strings.HasPrefix(sc.OutputDir(), "../examples") {
			t.Errorf("%s: output %s is not relative to the scenario file", f, sc.OutputDir())
		}
		// A file is named for what it does, and its name key says the
		// same: two examples once ran one protocol or one variant of the
		// comparison their file name promised.
		if want := strings.TrimSuffix(filepath.Base(f), ".toml"); sc.Name != want {
			t.Errorf("%s: name = %q, want the file's name %q", f, sc.Name, want)
		}
	}
}

// A run writes the results, the effective configuration (re-readable),
// the version and seed, and its chart, into the output directory.
func TestRunWritesEverything(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.toml")
	os.WriteFile(path, []byte("name = \"gs\"\n[network]\nmesh = \"2x2\"\n[workload]\nkind = \"app\"\napp = \"globalsum\"\nprocs = [1, 4]\nsizes = [8]\n[output]\ndir = \"out\"\n"), 0o644)
	sc, src, err := scenarios.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(&sc, src); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(&sc, src, scenarios.Provenance{Version: "test-version"}, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Dir != filepath.Join(dir, "out") {
		t.Errorf("output in %s, want beside the scenario file", sum.Dir)
	}
	for _, f := range []string{"config.toml", "meta.json", "results.json", "results.csv", "speedup.png"} {
		if _, err := os.Stat(filepath.Join(sum.Dir, f)); err != nil {
			t.Error(err)
		}
	}
	meta, _ := os.ReadFile(filepath.Join(sum.Dir, "meta.json"))
	if !strings.Contains(string(meta), "test-version") {
		t.Errorf("meta.json lacks the version: %s", meta)
	}
	again, _, err := scenarios.LoadFile(filepath.Join(sum.Dir, "config.toml"))
	if err != nil {
		t.Fatalf("the effective configuration does not read back: %v", err)
	}
	if again.Workload.App != "globalsum" || again.Network.Mesh != "2x2" {
		t.Errorf("effective configuration lost keys: %+v", again.Workload)
	}
}

// Unknown keys name their line; workload errors name the key and file.
func TestScenarioFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"name = \"x\"\n\n[workload]\nkidn = \"app\"\n", "line 4"},
		{"[workload]\nkind = \"fft\"\n", "[workload] kind"},
		{"[workload]\nkind = \"app\"\napp = \"qr2\"\n", "app"},
		{"[network]\nmesh = \"2x2\"\n[workload]\nkind = \"coll\"\nprocs = [9]\n", "procs"},
		{"[workload]\nkind = \"calibrate\"\nsizes = [8]\n", "sizes"},
	} {
		path := filepath.Join(dir, "s.toml")
		os.WriteFile(path, []byte(c.text), 0o644)
		sc, src, err := scenarios.LoadFile(path)
		if err == nil {
			err = Check(&sc, src)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one mentioning %q", c.text, err, c.want)
		}
	}
}

// Whatever the bytes, decoding and checking a scenario never panics.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"", "[workload]\nkind = \"app\"\n", "[workload]\nkind = \"coll\"\nprocs=[0]\n", "[network]\nmesh=\"1x1\"\n[workload]\nkind=\"pingpong\"\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sc, src, err := scenarios.Decode(strings.NewReader(text), "fuzz.toml")
		if err != nil {
			return
		}
		_ = Check(&sc, src)
	})
}

// Every shipped scenario without a [sweep] also runs, into a temporary
// directory (the sweeps run in package sweep).
func TestExampleScenariosRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example scenario")
	}
	files, _ := filepath.Glob("../examples/*.toml")
	for _, f := range files {
		sc, src, err := scenarios.LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc.Output.Dir = t.TempDir()
		if len(sc.Sweep.Axis) > 0 {
			continue // run by package sweep's TestExampleSweepsRun
		}
		sum, err := Run(&sc, src, scenarios.Provenance{Version: "test"}, scenarios.RunOptions{})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(sum.Files) < 4 {
			t.Errorf("%s: wrote only %v", f, sum.Files)
		}
	}
}

// docs/examples.md lists every shipped scenario with the command that runs
// it: nocsim sweep for a file with a [sweep] (nocsim run would run only its
// base point), nocsim run for the others.
func TestExamplesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/examples.md")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../examples/*.toml")
	for _, f := range files {
		sc, _, err := scenarios.LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cmd := "run"
		if len(sc.Sweep.Axis) > 0 || sc.Sweep.Reps > 1 {
			cmd = "sweep"
		}
		want := "`nocsim " + cmd + " scenarios/" + filepath.ToSlash(strings.TrimPrefix(f, "../")) + "`"
		if !strings.Contains(string(doc), want) {
			t.Errorf("docs/examples.md does not show how to run %s: want %s", f, want)
		}
	}
}
