package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"nocsim/scenarios"
)

func TestVersion(t *testing.T) {
	code, stdout, stderr := nocsim(t, "--version")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 || lines[0] != "nocsim "+version || lines[2] != runtime.Version() {
		t.Fatalf("--version printed %q", stdout)
	}
	if !regexp.MustCompile(`^revision ([0-9a-f]{40}|unknown) \(modified: (true|false|unknown)\)$`).MatchString(lines[1]) {
		t.Errorf("revision line %q", lines[1])
	}
	if code, _, stderr := nocsim(t, "--version", "noc"); code != exitUsage || !strings.Contains(stderr, "--version") {
		t.Errorf("--version with a command: exit %d, %q", code, stderr)
	}
}

// A go test binary, like go run's, carries no VCS stamp: the revision
// comes from git in the source directory, --version prints it and
// meta.json says where it came from.
func TestRevisionFromGitUnderGoTest(t *testing.T) {
	p := scenarios.BuildProvenance(version, nil)
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		if p.Revision != "unknown" || p.RevisionSource != "unknown" {
			t.Errorf("no git here (%v), yet revision %q from %q", err, p.Revision, p.RevisionSource)
		}
		t.Skipf("git cannot tell the revision here: %v", err)
	}
	// modified is read once per process (scenarios.GitStamp's test checks
	// it against a tree it changes), so the tree may have changed since.
	if p.Revision != strings.TrimSpace(string(head)) || p.Modified != "true" && p.Modified != "false" || p.RevisionSource != "git" {
		t.Errorf("provenance (%s, modified %s, from %s), want (%s, modified true or false, from git)", p.Revision, p.Modified, p.RevisionSource, strings.TrimSpace(string(head)))
	}
	if _, stdout, _ := nocsim(t, "--version"); !strings.Contains(stdout, "revision "+p.Revision+" (modified: "+p.Modified+")") {
		t.Errorf("--version printed %q, want revision %s", stdout, p.Revision)
	}
	dir := t.TempDir()
	file := writeScenario(t, dir, "gs.toml", gsScenario)
	if code, _, stderr := nocsim(t, "run", "--quiet", file); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "out", "meta.json"))
	var meta map[string]any
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if meta["vcs_revision"] != p.Revision || meta["vcs_revision_source"] != "git" {
		t.Errorf("meta.json: vcs_revision %v from %v, want %s from git", meta["vcs_revision"], meta["vcs_revision_source"], p.Revision)
	}
}

// writeScenario writes a scenario file into dir.
func writeScenario(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readTree reads every file under dir, by relative path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

// withoutDate is meta.json without its one wall-clock field.
func withoutDate(t *testing.T, meta string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(meta), &m); err != nil {
		t.Fatalf("meta.json: %v", err)
	}
	for _, k := range scenarios.MetaWallClockKeys {
		delete(m, k)
	}
	return m
}

const gsScenario = `name = "gs"
[network]
mesh = "2x2"
[workload]
kind = "app"
app = "globalsum"
procs = [1, 4]
sizes = [8]
app_seed = 3
[output]
dir = "out"
`

// meta.json says which build, command line, scenario and seeds made a
// result; apart from the date a second identical run writes the same
// bytes into every file.
func TestRunProvenanceAndDeterminism(t *testing.T) {
	dir := t.TempDir()
	file := writeScenario(t, dir, "gs.toml", gsScenario)
	before := time.Now().UTC().Truncate(time.Second)
	args := []string{"run", "--quiet", file}
	code, _, stderr := nocsim(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("--quiet run wrote on stderr: %q", stderr)
	}
	first := readTree(t, filepath.Join(dir, "out"))
	var meta scenarios.Meta
	if err := json.Unmarshal([]byte(first["meta.json"]), &meta); err != nil {
		t.Fatal(err)
	}
	date, err := time.Parse(time.RFC3339, meta.Date)
	if err != nil || !strings.HasSuffix(meta.Date, "Z") || date.Before(before) || date.After(time.Now().UTC()) {
		t.Errorf("date %q: not UTC RFC 3339 within the run (%v)", meta.Date, err)
	}
	build := scenarios.BuildProvenance(version, nil)
	want := scenarios.Meta{NocsimVersion: version, VCSRevision: build.Revision, VCSModified: build.Modified, VCSRevisionSource: build.RevisionSource, GoVersion: runtime.Version(),
		Date: meta.Date, CommandLine: append([]string{"nocsim"}, args...), Scenario: "gs", Workload: "app", Seed: 1, AppSeed: 3}
	// The run's speed, per CPU second: the rates are the counts over the
	// CPU time, and the run simulated something.
	if sp := meta.Speed; sp == nil {
		t.Error("meta.json has no speed")
	} else {
		if sp.CPUSeconds <= 0 || sp.SimCycles == 0 || sp.Events == 0 {
			t.Errorf("speed %+v: no CPU time or no work counted", *sp)
		}
		if got := float64(sp.SimCycles) / sp.CPUSeconds; math.Abs(got-sp.SimCyclesPerCPUSecond) > 1e-9*got {
			t.Errorf("sim_cycles_per_cpu_second %v, want cycles/CPU s = %v", sp.SimCyclesPerCPUSecond, got)
		}
		if got := float64(sp.Events) / sp.CPUSeconds; math.Abs(got-sp.EventsPerCPUSecond) > 1e-9*got {
			t.Errorf("events_per_cpu_second %v, want events/CPU s = %v", sp.EventsPerCPUSecond, got)
		}
		want.Speed = sp
	}
	if !reflect.DeepEqual(meta, want) {
		t.Errorf("meta.json\n%+v\nwant\n%+v", meta, want)
	}
	if code, _, stderr := nocsim(t, args...); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	second := readTree(t, filepath.Join(dir, "out"))
	if !reflect.DeepEqual(withoutDate(t, first["meta.json"]), withoutDate(t, second["meta.json"])) {
		t.Errorf("meta.json differs between identical runs apart from the date:\n%s\n%s", first["meta.json"], second["meta.json"])
	}
	delete(first, "meta.json")
	delete(second, "meta.json")
	if len(first) < 4 || !reflect.DeepEqual(first, second) {
		t.Errorf("identical runs wrote different files: %v and %v", slices.Sorted(mapKeys(first)), slices.Sorted(mapKeys(second)))
	}
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// A run that fails after simulation started leaves the previous result
// directory exactly as it was and nothing else; a run that succeeds
// replaces it whole (no file of the old run survives).
func TestRunResultDirectoryWholeOrUnchanged(t *testing.T) {
	dir := t.TempDir()
	good := `name = "n"
[network]
mesh = "2x2"
[noc]
rates = [0.05]
measure_cycles = 600
warmup_cycles = 100
[workload]
kind = "noc"
[output]
dir = "out"
`
	file := writeScenario(t, dir, "n.toml", good)
	if code, _, stderr := nocsim(t, "run", "--quiet", file); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "out")
	old := readTree(t, out)
	if _, ok := old["latency.png"]; !ok {
		t.Fatalf("the first run wrote %v", slices.Sorted(mapKeys(old)))
	}
	// A one-cycle watchdog makes the simulation stop with a deadlock
	// report (heads wait five cycles in routing, cycles in which nothing
	// moves): valid input, a failed run.
	bad := strings.Replace(good, "warmup_cycles = 100", "warmup_cycles = 100\nwatchdog_cycles = 1", 1)
	writeScenario(t, dir, "n.toml", strings.Replace(bad, `mesh = "2x2"`, "mesh = \"2x2\"\nroute_delay = 5", 1))
	code, _, stderr := nocsim(t, "run", "--quiet", file)
	if code != exitRun || !strings.Contains(stderr, "deadlock") {
		t.Fatalf("failing run: exit %d, %q", code, stderr)
	}
	if now := readTree(t, out); !reflect.DeepEqual(now, old) {
		t.Error("a failed run changed the previous result directory")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "out" && e.Name() != "n.toml" {
			t.Errorf("a failed run left %s behind", e.Name())
		}
	}
	// Succeeds, without charts: the old chart must not survive.
	writeScenario(t, dir, "n.toml", strings.Replace(good, `dir = "out"`, "dir = \"out\"\nplots = false", 1))
	if code, _, stderr := nocsim(t, "run", "--quiet", file); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	now := readTree(t, out)
	if _, ok := now["latency.png"]; ok {
		t.Error("a file of the old result survived the new one")
	}
	if !strings.Contains(now["config.toml"], "plots = false") {
		t.Errorf("config.toml is not the new run's:\n%s", now["config.toml"])
	}
}

// Output paths are checked before anything is simulated: a one-line error
// naming the flag, exit 2, no output.
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir")
	isDir := filepath.Join(dir, "taken.png")
	os.Mkdir(isDir, 0o755)
	isFile := filepath.Join(dir, "file")
	os.WriteFile(isFile, nil, 0o644)
	runFile := writeScenario(t, dir, "r.toml", "[network]\nmesh = \"2x2\"\n[output]\ndir = \"file\"\n")
	sweepFile := writeScenario(t, dir, "s.toml", "[network]\nmesh = \"2x2\"\n[output]\ndir = \"file/sub\"\n[[sweep.axis]]\nkey = \"network.vcs\"\nvalues = [1, 2]\n")
	for _, c := range []struct {
		args []string
		flag string
	}{
		{nocArgs("--csv", filepath.Join(missing, "x.csv")), "--csv"},
		{nocArgs("--plot", isDir), "--plot"},
		{nocArgs("--csv", isDir), "--csv"},
		{[]string{"coll", "--mesh", "2x2", "--plot", filepath.Join(missing, "c.png")}, "--plot"},
		{[]string{"app", "--mesh", "2x2", "--procs", "1,4", "--time-plot", filepath.Join(missing, "t.png")}, "--time-plot"},
		{[]string{"app", "--mesh", "2x2", "--procs", "1,4", "--ratio-plot", isDir}, "--ratio-plot"},
		{[]string{"app", "--mesh", "2x2", "--procs", "1,4", "--plot", filepath.Join(isFile, "s.png")}, "--plot"},
		{[]string{"app", "--mesh", "2x2", "--app", "globalsum", "--variant", "breakeven", "--procs", "2,4", "--breakeven-plot", filepath.Join(missing, "b.png")}, "--breakeven-plot"},
		{[]string{"pingpong", "--mesh", "2x2", "--trace", filepath.Join(missing, "t.json")}, "--trace"},
		{[]string{"calibrate", "--mesh", "2x2", "--out", filepath.Join(missing, "p.toml")}, "--out"},
		{[]string{"calibrate", "--mesh", "2x2", "--save-csv", isDir}, "--save-csv"},
		{[]string{"calibrate", "--mesh", "2x2", "--plots", isFile}, "--plots"},
		{[]string{"run", runFile}, "[output] dir"},
		{[]string{"sweep", sweepFile}, "[output] dir"},
	} {
		code, stdout, stderr := nocsim(t, append(c.args, "--quiet")...)
		if c.args[0] == "run" || c.args[0] == "sweep" {
			code, stdout, stderr = nocsim(t, c.args[0], "--quiet", c.args[1])
		}
		if code != exitUsage || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, c.flag) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %s", c.args, code, stdout, stderr, c.flag)
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"file", "r.toml", "s.toml", "taken.png"}) {
		t.Errorf("the refused runs wrote into %s: %v", dir, names)
	}
}

// The main job refuses an output path it cannot use, before simulating.
func TestDefaultActionOutputIsAFile(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("nocsim-results", []byte("x"), 0o644)
	code, stdout, stderr := nocsim(t, "--quiet")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "nocsim-results") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

const cliSweep = `name = "cs"
[network]
mesh = "2x2"
[noc]
measure_cycles = 500
warmup_cycles = 100
drain_cycles = 300
[workload]
kind = "noc"
[sweep]
reps = 2
[[sweep.axis]]
key = "noc.rates"
values = [0.05, 0.1]
`

// nocsim sweep --resume after the file was edited: it says what it reused
// and recomputed, and its results are those of a fresh run of the edited
// file.
func TestSweepResumeCLI(t *testing.T) {
	killed, fresh := t.TempDir(), t.TempDir()
	file := writeScenario(t, killed, "s.toml", cliSweep)
	if code, _, stderr := nocsim(t, "sweep", "--quiet", file); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	out := filepath.Join(killed, "results", "cs")
	log := filepath.Join(out, "points.jsonl")
	full, _ := os.ReadFile(log)
	lines := strings.SplitAfter(string(full), "\n")
	os.WriteFile(log, []byte(strings.Join(lines[:3], "")), 0o644) // killed after 3 of 4 points
	edited := strings.Replace(cliSweep, "[0.05, 0.1]", "[0.05, 0.15]", 1)
	writeScenario(t, killed, "s.toml", edited)
	code, _, stderr := nocsim(t, "sweep", "--quiet", "--resume", file)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	// Kept: both 0.05 points and one 0.1 point, now not in the sweep.
	if !strings.Contains(stderr, "2 points reused, 2 recomputed, 1 recorded points dropped") {
		t.Errorf("resume said %q", stderr)
	}
	freshFile := writeScenario(t, fresh, "s.toml", edited)
	if code, _, stderr := nocsim(t, "sweep", "--quiet", freshFile); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	a, b := readTree(t, out), readTree(t, filepath.Join(fresh, "results", "cs"))
	for _, f := range []string{"points.jsonl", "points.csv", "summary.csv", "config.toml"} {
		if a[f] == "" || a[f] != b[f] {
			t.Errorf("%s of the resumed sweep differs from a fresh run:\n%s\nfresh:\n%s", f, a[f], b[f])
		}
	}
}

// run on a file with a [sweep] would give one point, the base, and look like
// the sweep's result: it is refused before anything runs, pointing to sweep.
func TestRunRefusesSweepFile(t *testing.T) {
	dir := t.TempDir()
	file := writeScenario(t, dir, "s.toml", `name = "s"
[network]
mesh = "2x2"
[noc]
rates = [0.05]
[workload]
kind = "noc"
[output]
dir = "out"
[[sweep.axis]]
key = "network.vcs"
values = [2, 4]
`)
	code, _, stderr := nocsim(t, "run", "--quiet", file)
	if code != 2 || !strings.Contains(stderr, "nocsim sweep") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("exit %d, stderr %q: want exit 2 and one line naming nocsim sweep", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote %s", filepath.Join(dir, "out"))
	}
}
