package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"nocsim/coll"
	"nocsim/scenarios/study"
)

// The regression corpus: the results of about 40 runs covering every
// command, topology, protocol, library, collective algorithm and
// application, stored in testdata/regress/ at the repository's root and
// compared byte for byte. It is what "results unchanged" means: a change
// that moves any simulated figure fails here, and a change that moves one
// on purpose refreshes the corpus with -update-regress and names the
// result in its commit.
//
// What a run's output holds that depends on the machine rather than on
// the simulation (CPU and wall time, speeds, dates, the revision) is
// removed first, by key (volatileKeys); nothing else is.

var updateRegress = flag.Bool("update-regress", false, "rewrite testdata/regress/ from this build's results")

// regressDir is the corpus, at the repository's root.
const regressDir = "../../testdata/regress"

// volatileKeys are the JSON keys whose values depend on the machine or the
// moment, never on the simulation.
var volatileKeys = map[string]bool{
	"wall_seconds": true, "cpu_seconds": true,
	"sim_cycles_per_second": true, "events_per_second": true, "flit_hops_per_second": true,
	"sim_cycles_per_cpu_second": true, "events_per_cpu_second": true, "flit_hops_per_cpu_second": true,
	"date": true, "go_version": true, "nocsim_version": true, "vcs_revision": true, "vcs_modified": true,
	"revision_source": true, "command_line": true,
}

// regressCase is one run. Its stdout (JSON) is the result unless files
// names the files of the run's result directory to keep instead.
type regressCase struct {
	name string
	args []string
	// files are paths, relative to the run's working directory, whose
	// contents are results; JSON files (and JSON lines) are scrubbed of
	// volatileKeys, other files kept as they are.
	files []string
	// setup prepares the working directory (a scenario file, parameters).
	setup func(t *testing.T, dir string)
}

// regressExamples copies scenarios/examples (and its params/) into dir.
func regressExamples(t *testing.T, dir string) {
	t.Helper()
	src := "../../scenarios/examples"
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// regressParams writes the shipped 4x4 parameters as params.toml.
func regressParams(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile("../../scenarios/examples/params/4x4-scmp.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "params.toml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// regressReportDir runs a 2x2 noc scenario into dir/out and scrubs its
// JSON files of volatileKeys, which the page would otherwise show.
func regressReportDir(t *testing.T, dir string) {
	t.Helper()
	sc := filepath.Join(dir, "tiny.toml")
	text := "name = \"tiny\"\n[network]\nmesh = \"2x2\"\n[noc]\ntraffic = [\"uniform\"]\nrates = [0.05]\nmeasure_cycles = 500\nwarmup_cycles = 100\n[workload]\nkind = \"noc\"\n[output]\ndir = \"out\"\nplots = false\n"
	if err := os.WriteFile(sc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := nocsim(t, "run", "-q", sc); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"meta.json", "results.json"} {
		p := filepath.Join(dir, "out", f)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, scrubOutput(t, f, b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(filepath.Join(dir, "out", "results.csv")) // its wall-clock columns
}

// regressGoal copies a test schedule into dir.
func regressGoal(name string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		regressParams(t, dir)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// regressTI copies a SimGrid trace of logp/titrace/testdata (and the
// fitted parameters) into the run's directory.
func regressTI(name string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(tiDir, name))
		if err != nil {
			t.Fatal(err)
		}
		regressParams(t, dir)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// scenarioRun runs an example scenario and keeps its results and
// effective configuration.
func scenarioRun(name string, extra ...string) regressCase {
	dir := "results/" + name + "/"
	return regressCase{
		name:  "run-" + name,
		args:  []string{"run", "-q", name + ".toml"},
		files: append([]string{dir + "results.json", dir + "config.toml"}, extra...),
		setup: regressExamples,
	}
}

func regressCases() []regressCase {
	q := "-q"
	noc := func(extra ...string) []string {
		return append([]string{"noc", q, "--json", "--measure-cycles", "2000", "--warmup-cycles", "500"}, extra...)
	}
	coll := func(op, algs, procs, sizes string, extra ...string) []string {
		return append([]string{"coll", q, "--json", "--mesh", "4x4", "--op", op, "--algs", algs,
			"--procs", procs, "--sizes", sizes}, extra...)
	}
	pp := func(extra ...string) []string {
		return append([]string{"pingpong", q, "--json", "--mesh", "4x4", "--sizes", "8,1024,16384"}, extra...)
	}
	app := func(extra ...string) []string {
		return append([]string{"app", q, "--json", "--mesh", "4x4"}, extra...)
	}
	return []regressCase{
		// The network under synthetic traffic, on every topology.
		{name: "noc-mesh", args: noc("--mesh", "4x4", "--traffic", "uniform,transpose,tornado", "--rates", "0.05,0.4")},
		{name: "noc-ring", args: noc("--mesh", "8x1", "--topology", "ring", "--rates", "0.05,0.3")},
		{name: "noc-ring-uni", args: noc("--mesh", "8x1", "--topology", "ring_uni", "--rates", "0.05,0.3")},
		{name: "noc-bus", args: noc("--mesh", "4x1", "--topology", "bus", "--rates", "0.02,0.2")},
		{name: "noc-booksim-hotspot", args: noc("--mesh", "4x4", "--preset", "booksim", "--traffic", "hotspot",
			"--hotspot-nodes", "5", "--hotspot-fraction", "0.3", "--rates", "0.05")},
		{name: "noc-wide-links", args: noc("--mesh", "4x4", "--link-flits-per-cycle", "2", "--vcs", "4",
			"--vc-alloc", "lowest", "--packet-flits", "8", "--rates", "0.1,0.5")},
		// Point to point: every protocol and the thesis's library.
		{name: "pingpong-scmp", args: pp("--protocol", "scmp")},
		{name: "pingpong-eager", args: pp("--protocol", "eager")},
		{name: "pingpong-niu", args: pp("--protocol", "niu")},
		{name: "pingpong-puma-long", args: pp("--protocol", "puma_long")},
		{name: "pingpong-thesis-library", args: pp("--library", "thesis", "--preempt-threads=true")},
		{name: "pingpong-ring", args: pp("--topology", "ring", "--mesh", "8x1", "--to", "4")},
		// Radke's pairs on every topology.
		{name: "pairs", args: []string{"pairs", q, "--json", "--mesh", "4x4", "--topologies", "mesh,ring,ring_uni,bus",
			"--sizes", "64,4096", "--pairs", "1,4"}},
		// Every collective algorithm of every operation.
		{name: "coll-barrier", args: coll("barrier", "central,dissemination,mesh,tree4,tree4_scatter", "5,16", "0")},
		{name: "coll-bcast", args: coll("bcast", "binomial,flat,mesh,optimal,pull,pull_rma,scatter_allgather", "16", "8,4096", "--root", "5")},
		{name: "coll-scatter", args: coll("scatter", "binomial,flat,pull_rma", "16", "64")},
		{name: "coll-gather", args: coll("gather", "binomial,flat,push", "16", "64")},
		{name: "coll-allgather", args: coll("allgather", "gather_bcast,recursive_doubling,ring", "12,16", "64")},
		{name: "coll-allgather-bruck", args: coll("allgather", "bruck", "12,16", "64")},
		{name: "coll-alltoall", args: coll("alltoall", "bruck,pairwise,post_all,pull_scan", "16", "64")},
		{name: "coll-reduce", args: coll("reduce", "binomial,flat,mesh,reduce_scatter_gather,ring", "16", "8,2048")},
		{name: "coll-allreduce", args: coll("allreduce", "mesh,recursive_doubling,reduce_bcast,reduce_scatter_allgather,ring", "6,16", "8,2048")},
		{name: "coll-reduce-scatter", args: coll("reduce_scatter", "recursive_halving,reduce_scatterv,ring", "16", "64")},
		{name: "coll-scan", args: coll("scan", "chain,recursive_doubling", "16", "64")},
		{name: "coll-exscan", args: coll("exscan", "chain,recursive_doubling", "16", "64", "--protocol", "eager")},
		{name: "coll-auto-thesis-library", args: coll("allreduce", "auto", "16", "8,4096", "--library", "thesis")},
		{name: "coll-tier-loggops", args: []string{"coll", q, "--json", "--tier", "loggops", "--params", "params.toml",
			"--op", "bcast", "--algs", "binomial,flat", "--procs", "16,1024", "--sizes", "8,65536"}, setup: regressParams},
		// The models: calibration and predictions.
		{name: "calibrate", args: []string{"calibrate", q, "--json", "--mesh", "4x4"}},
		{name: "predict-bcast", args: []string{"predict", "--json", "--params", "params.toml", "--op", "bcast", "--size", "1024"}, setup: regressParams},
		// Applications, MPI and native.
		{name: "app-cg", args: app("--app", "cg", "--procs", "1,4,16", "--sizes", "64")},
		{name: "app-cg-thesis", args: app("--app", "cg", "--variant", "thesis", "--procs", "4", "--nonzeros", "2000")},
		{name: "app-qr", args: app("--app", "qr", "--procs", "1,4", "--sizes", "32")},
		{name: "app-qr-2d", args: app("--app", "qr", "--variant", "2d", "--procs", "4", "--sizes", "32")},
		{name: "app-matmul", args: app("--app", "matmul", "--procs", "1,4", "--sizes", "16")},
		{name: "app-globalsum", args: app("--app", "globalsum", "--procs", "4,16", "--sizes", "256")},
		{name: "app-halo", args: app("--app", "halo", "--procs", "4", "--sizes", "32")},
		// GOAL schedules on both tiers, and generated.
		{name: "goal-run-tier", args: []string{"goal", "run", q, "--json", "--params", "params.toml", "binary_tree_32.goal"},
			setup: regressGoal("binary_tree_32.goal")},
		{name: "goal-run-chip", args: []string{"goal", "run", q, "--json", "--mesh", "4x4", "dissemination_8.goal"},
			setup: regressGoal("dissemination_8.goal")},
		{name: "goal-compare", args: []string{"goal", "compare", q, "--json", "--mesh", "4x4", "--params", "params.toml",
			"dissemination_8.goal"}, setup: regressGoal("dissemination_8.goal")},
		// SimGrid time-independent traces on both tiers.
		{name: "trace-run-chip", args: []string{"trace", "run", "collmix.ti", q, "--json", "--mesh", "4x4"}, setup: regressTI("collmix.ti")},
		{name: "trace-compare", args: []string{"trace", "compare", "cg.ti", q, "--json", "--mesh", "4x4", "--params", "params.toml"}, setup: regressTI("cg.ti")},
		{name: "goal-gen", args: []string{"goal", "gen", "--op", "allreduce", "--alg", "ring", "--procs", "4", "--size", "64"}},
		// Scenario files and a sweep.
		scenarioRun("bcast-algorithms"),
		scenarioRun("calibrate-4x4-eager"),
		scenarioRun("cg-mpi-vs-native"),
		scenarioRun("globalsum-breakeven", "results/globalsum-breakeven/breakeven.json"),
		scenarioRun("noc-uniform-transpose"),
		scenarioRun("qr-mpi-vs-native"),
		scenarioRun("radke-pairs-topologies"),
		{name: "sweep-vcs-protocol", args: []string{"sweep", q, "sweep-vcs-protocol.toml"}, setup: regressExamples,
			files: []string{"results/sweep-vcs-protocol/points.jsonl", "results/sweep-vcs-protocol/summary.csv",
				"results/sweep-vcs-protocol/config.toml"}},
		// The HTML page of a run's directory, its machine-dependent values
		// scrubbed first so that the page is the same on every machine.
		{name: "report", args: []string{"report", q, "out"}, setup: regressReportDir, files: []string{"out/report.html"}},
		// The thesis's Table 5.1, every row.
		{name: "thesis-5.1", args: []string{"thesis", q, "--json", "--table", "5.1"}},
	}
}

func TestRegressionCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the regression corpus runs every command (about a minute of CPU); skipped under -short")
	}
	cases := regressCases()
	corpus, err := filepath.Abs(regressDir) // the cases change directory
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("two corpus cases are named %s", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			got := runRegressCase(t, c)
			path := filepath.Join(corpus, c.name+".txt")
			if *updateRegress {
				if err := os.MkdirAll(corpus, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/nocsim -run TestRegressionCorpus -update-regress to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("nocsim %s: result differs from %s\n%s\n(a deliberate change: rerun with -update-regress and name the result in the commit)",
					strings.Join(c.args, " "), path, firstDifference(want, got))
			}
		})
	}
	if *updateRegress {
		return
	}
	// A corpus file no case writes is a case that was dropped silently.
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".txt"); ok && !seen[n] {
			t.Errorf("%s/%s belongs to no corpus case", regressDir, e.Name())
		}
	}
}

// runRegressCase runs c in a fresh directory and returns its result: the
// scrubbed stdout, or each kept file under a header naming it.
func runRegressCase(t *testing.T, c regressCase) []byte {
	t.Helper()
	dir := t.TempDir()
	if c.setup != nil {
		c.setup(t, dir)
	}
	t.Chdir(dir)
	code, stdout, stderr := nocsim(t, c.args...)
	if code != 0 {
		t.Fatalf("nocsim %s: exit %d: %s", strings.Join(c.args, " "), code, stderr)
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "# nocsim %s\n", strings.Join(c.args, " "))
	if c.files == nil {
		out.Write(scrubOutput(t, "stdout", []byte(stdout)))
		return out.Bytes()
	}
	for _, f := range c.files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "## %s\n", f)
		out.Write(scrubOutput(t, f, b))
	}
	return out.Bytes()
}

// scrubOutput removes volatileKeys from JSON (a document or JSON lines);
// anything else (text, CSV, TOML) is returned as it is.
func scrubOutput(t *testing.T, what string, b []byte) []byte {
	t.Helper()
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return b
	}
	var docs []any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers compared as written, not through float64
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		docs = append(docs, scrub(v))
	}
	var out bytes.Buffer
	for _, d := range docs {
		j, err := json.MarshalIndent(d, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		out.Write(j)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

func scrub(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if volatileKeys[k] {
				delete(x, k)
				continue
			}
			x[k] = scrub(e)
		}
	case []any:
		for i, e := range x {
			x[i] = scrub(e)
		}
	}
	return v
}

// firstDifference names the first line where got leaves want.
func firstDifference(want, got []byte) string {
	w := strings.Split(string(want), "\n")
	g := strings.Split(string(got), "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q", i+1, a, b)
		}
	}
	return "(same lines, different bytes)"
}

// The corpus covers what the issue asks of it: every command, every
// topology, every protocol, both libraries and every application.
func TestRegressionCorpusCoverage(t *testing.T) {
	var all []string
	for _, c := range regressCases() {
		all = append(all, strings.Join(c.args, " "))
	}
	text := " " + strings.Join(all, " | ") + " "
	for _, c := range newApp(nil, nil).Commands {
		if c.Name == "validate" || c.Name == "help" {
			continue // validate runs nothing; its output is the configuration, kept by run's config.toml
		}
		if !slices.ContainsFunc(all, func(a string) bool { return strings.HasPrefix(a, c.Name+" ") }) {
			t.Errorf("no corpus case runs nocsim %s", c.Name)
		}
	}
	for _, want := range []string{
		"--topology ring ", "--topology ring_uni ", "--topology bus ", "--topologies mesh,ring,ring_uni,bus",
		"--protocol scmp", "--protocol eager", "--protocol niu", "--protocol puma_long", "--library thesis",
		"--app cg", "--app qr", "--app matmul", "--app globalsum", "--app halo", "--tier loggops", "--preset booksim",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no corpus case runs with %s", want)
		}
	}
	// Every registered algorithm of every operation, by name.
	algs := map[string][]string{} // op -> the --algs lists of its cases
	for _, c := range regressCases() {
		if i, j := slices.Index(c.args, "--op"), slices.Index(c.args, "--algs"); c.args[0] == "coll" && i >= 0 && j >= 0 {
			algs[c.args[i+1]] = append(algs[c.args[i+1]], strings.Split(c.args[j+1], ",")...)
		}
	}
	for _, op := range coll.Ops {
		for _, a := range study.AlgorithmsFor(op) {
			if !slices.Contains(algs[op], a) {
				t.Errorf("no corpus case runs %s's algorithm %s", op, a)
			}
		}
	}
}
