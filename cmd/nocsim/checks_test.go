package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// pathFlags name files or directories: the fuzz test leaves them out (it
// must not write anywhere) and gives predict a parameters file itself.
var pathFlags = []string{"config", "csv", "plot", "trace", "out", "save-csv", "plots", "time-plot", "breakeven-plot", "ratio-plot", "params"}

// fuzzFixture writes what commands that take files need: a scenario for
// run, validate and sweep, and parameters for predict.
func fuzzFixture(t testing.TB) (scenario, sweep, params string) {
	dir := t.TempDir()
	scenario = filepath.Join(dir, "pp.toml")
	sweep = filepath.Join(dir, "sweep.toml")
	params = filepath.Join(dir, "params.toml")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(scenario, "[network]\nmesh = \"2x2\"\n[workload]\nkind = \"pingpong\"\nsizes = [8]\n")
	write(sweep, "[network]\nmesh = \"2x2\"\n[workload]\nkind = \"pingpong\"\nsizes = [8]\n[[sweep.axis]]\nkey = \"network.vcs\"\nvalues = [1, 2]\n")
	write(params, "P = 16\nprotocol = \"scmp\"\nclock_hz = 1e9\navg_hops = 2.5\nsource = \"simulator\"\nmesh = \"4x4\"\nsizes = [8, 64]\n"+
		"[[segment]]\nmax_bytes = 0\nL = 20.0\nL_per_hop = 5.0\no_s = 20.0\no_r = 20.0\ng = 30.0\nG = 0.5\n")
	return
}

// cliFlags lists, per command, the flags the fuzz test drives: every one
// but the paths.
func cliFlags() (cmds []string, flags map[string][]string) {
	flags = map[string][]string{}
	for _, c := range newApp(nil, nil).Commands {
		cmds = append(cmds, c.Name)
		for _, f := range c.Flags {
			name := f.Names()[0]
			if _, isBool := f.(*cli.BoolFlag); !isBool && !slices.Contains(pathFlags, name) {
				flags[c.Name] = append(flags[c.Name], name)
			}
		}
	}
	return cmds, flags
}

// argsFor builds a command line: the command, the fixture files it needs
// and two flags with the fuzzer's values.
func argsFor(cmd string, f1, v1, f2, v2, scenario, sweep, params string) []string {
	args := []string{"--quiet", cmd, "--" + f1 + "=" + v1}
	if f2 != "" && f2 != f1 {
		args = append(args, "--"+f2+"="+v2)
	}
	switch cmd {
	case "predict":
		args = append(args, "--params", params)
	case "run", "validate":
		args = append(args, scenario)
	case "sweep":
		args = append(args, sweep)
	}
	return args
}

// FuzzCLIFlags drives every command's flag parsing and validation with
// arbitrary values for any two of its flags, nothing simulated: no input
// may panic, and every refusal is exit status 2 with one line on stderr.
func FuzzCLIFlags(f *testing.F) {
	validateOnly = true
	defer func() { validateOnly = false }()
	scenario, sweep, params := fuzzFixture(f)
	cmds, flags := cliFlags()
	// A few values per flag keep the seed run (part of every go test) to
	// a second or two; fuzzing explores from there.
	values := []string{"-1", "0", "1e309", "NaN", "9223372036854775808", "1,2,-3"}
	for ci, c := range cmds {
		for fi := range flags[c] {
			for k, v := range values {
				f.Add(uint8(ci), uint8(fi), v, uint8(fi+k), []string{"1", "", "4x4", "65536", " ", "-Inf"}[k])
			}
		}
	}
	f.Fuzz(func(t *testing.T, ci, fi uint8, v1 string, fj uint8, v2 string) {
		cmd := cmds[int(ci)%len(cmds)]
		fl := flags[cmd]
		if len(fl) == 0 {
			return
		}
		f1, f2 := fl[int(fi)%len(fl)], fl[int(fj)%len(fl)]
		args := argsFor(cmd, f1, v1, f2, v2, scenario, sweep, params)
		code, _, stderr := nocsim(t, args...)
		switch code {
		case 0:
		case 2:
			if msg := strings.TrimSuffix(stderr, "\n"); msg == "" || strings.Contains(msg, "\n") {
				t.Fatalf("%q: exit 2 with message %q: want one line", args, stderr)
			}
		default:
			t.Fatalf("%q: exit %d (want 0 or 2, nothing is simulated): %s", args, code, stderr)
		}
	})
}

// Every case of issue 10's list ends before any simulation with exit 2
// and one line naming the flag or key, its value and what is allowed.
func TestSmallCasesExitTwo(t *testing.T) {
	_, _, params := fuzzFixture(t)
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		args []string
		want []string // all in the message
	}{
		{[]string{"pingpong", "--mesh", "2x2", "--sizes", "8388608"}, []string{"--sizes", "8388608", "memory_words", "at most"}},
		{[]string{"pingpong", "--memory-words", "100", "--sizes", "1024"}, []string{"--sizes", "1024", "memory_words = 100", "--memory-words"}},
		{[]string{"coll", "--mesh", "2x2", "--op", "alltoall", "--sizes", "4194304"}, []string{"--sizes", "4194304", "memory_words"}},
		{[]string{"coll", "--mesh", "32x32", "--op", "alltoall", "--sizes", "4194304"}, []string{"--sizes", "4194304", "memory_words"}},
		{[]string{"coll", "--mesh", "32x32", "--op", "alltoall", "--sizes", "65536", "--memory-words", "268435456"}, []string{"--sizes", "65536", "host memory"}},
		{[]string{"app", "--app", "matmul", "--procs", "4", "--sizes", "64", "--memory-words", "100"}, []string{"--sizes", "64", "memory_words"}},
		{[]string{"app", "--app", "matmul", "--procs", "4", "--sizes", "10"}, []string{"--sizes", "10", "multiple"}},
		{[]string{"predict", "--params", params, "--hops", "-5"}, []string{"--hops", "-5", "allowed"}},
		{[]string{"predict", "--params", params, "--op", "bcast", "--select", "8", "--select-procs", "0"}, []string{"--select-procs", "0", "allowed"}},
		{[]string{"noc", "--traffic", "uniform", "--hotspot-fraction", "1.5"}, []string{"--hotspot-fraction", "1.5", "0..1"}},
		{[]string{"noc", "--workers", "-1"}, []string{"--workers", "-1", "allowed"}},
		{[]string{"noc", "--rates", "0"}, []string{"--rates", "0", "above 0"}},
		{[]string{"sweep", "--jobs", "-1", "x.toml"}, []string{"--jobs", "-1", "allowed"}},
		{[]string{"run", "--workers", "-2", "x.toml"}, []string{"--workers", "-2", "allowed"}},
		{[]string{"help", "bogus"}, []string{"bogus"}},
		{[]string{"calibrate", "--mesh", "1x1"}, []string{"--mesh", "1x1", "two tiles"}},
		{[]string{"validate", file("clock.toml", "[node]\nclock_hz = -1\n")}, []string{"clock_hz", "-1", "allowed"}},
		{[]string{"validate", file("contexts.toml", "[node]\nthread_contexts = 0\n")}, []string{"thread_contexts", "0", "allowed"}},
		{[]string{"validate", file("call.toml", "[node]\ncall_cycles = -100\n")}, []string{"call_cycles", "-100", "allowed"}},
		{[]string{"validate", file("procs.toml", "[network]\nmesh = \"4x4\"\n[mpi]\nprocs = 32\n")}, []string{"procs", "32", "0..16"}},
		{[]string{"validate", file("axis.toml", "[workload]\nkind = \"pingpong\"\n[[sweep.axis]]\nkey = \"network.vcz\"\nvalues = [1]\n")}, []string{"network.vcz"}},
		{[]string{"validate", file("section.toml", "[[sweep.axis]]\nkey = \"sweep.reps\"\nvalues = [1]\n")}, []string{"sweep.reps", "allowed"}},
		{[]string{"validate", file("badvalue.toml", "[[sweep.axis]]\nkey = \"network.vcs\"\nvalues = [1, 99]\n")}, []string{"vcs", "99", "allowed"}},
		{[]string{"validate", file("fromto.toml", "[[sweep.axis]]\nkey = \"network.vcs\"\nfrom = 3\nto = 1\nstep = 1\n")}, []string{"network.vcs", "from"}},
		{[]string{"validate", file("step0.toml", "[[sweep.axis]]\nkey = \"network.vcs\"\nfrom = 1\nto = 3\nstep = 0\n")}, []string{"network.vcs", "step"}},
		{[]string{"validate", file("point.toml", "[workload]\nkind = \"pingpong\"\nsizes = [4096]\n[[sweep.axis]]\nkey = \"network.memory_words\"\nvalues = [1000000, 1000]\n")}, []string{"sweep point", "sizes", "4096", "memory_words"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := nocsim(t, append([]string{"--quiet"}, tc.args...)...)
			msg := strings.TrimSuffix(stderr, "\n")
			if code != 2 || strings.Contains(msg, "\n") || stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q: want exit 2, one line, nothing simulated", code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
		})
	}
}

// validate, run and sweep accept exactly the same files: whatever
// validate refuses, run and sweep refuse with the same message (and run
// refuses, besides, a valid file with a [sweep]).
func TestValidateRunSweepAgree(t *testing.T) {
	validateOnly = true
	defer func() { validateOnly = false }()
	dir := t.TempDir()
	for i, text := range []string{
		"[node]\nclock_hz = -1\n",
		"[network]\nmesh = \"4x4\"\n[mpi]\nprocs = 32\n",
		"[workload]\nkind = \"coll\"\nop = \"alltoall\"\nsizes = [4194304]\n[[sweep.axis]]\nkey = \"network.vcs\"\nvalues = [1]\n",
		"[workload]\nkind = \"pingpong\"\n[[sweep.axis]]\nkey = \"network.vcs\"\nvalues = [1, 2]\n",
		"[workload]\nkind = \"pingpong\"\n[[sweep.axis]]\nkey = \"network.vcs\"\nvalues = [1, 0]\n",
	} {
		p := filepath.Join(dir, fmt.Sprintf("s%d.toml", i))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		vc, _, ve := nocsim(t, "validate", p)
		for _, cmd := range []string{"run", "sweep"} {
			c, _, e := nocsim(t, "--quiet", cmd, p)
			if cmd == "run" && vc == 0 && strings.Contains(text, "[[sweep.axis]]") {
				// valid, but a sweep: run refuses it and names the command that runs it
				if c != 2 || !strings.Contains(e, "nocsim sweep") {
					t.Errorf("%q: run exit %d %q, want 2 pointing to nocsim sweep", text, c, e)
				}
				continue
			}
			if c != vc || vc == 2 && e != ve {
				t.Errorf("%q: validate exit %d %q, %s exit %d %q", text, vc, ve, cmd, c, e)
			}
		}
	}
}

// Parameters say where they came from; a CSV fit records only what the
// CSV holds; a run refuses parameters of another protocol and warns about
// another mesh or unknown provenance.
func TestParamsProvenance(t *testing.T) {
	dir := t.TempDir()
	sim, csvFile, fromCSV := filepath.Join(dir, "sim.json"), filepath.Join(dir, "m.csv"), filepath.Join(dir, "csv.json")
	if code, _, stderr := nocsim(t, "--quiet", "calibrate", "--mesh", "2x2", "--protocol", "eager", "--sizes", "8,64,1024", "--out", sim, "--save-csv", csvFile); code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, stderr)
	}
	if code, _, stderr := nocsim(t, "--quiet", "calibrate", "--mesh", "8x8", "--csv", csvFile, "--out", fromCSV); code != 0 {
		t.Fatalf("calibrate --csv: exit %d: %s", code, stderr)
	}
	read := func(p string) map[string]any {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	s, c := read(sim), read(fromCSV)
	if s["source"] != "simulator" || s["mesh"] != "2x2" || s["protocol"] != "eager" || s["P"] != 4.0 || fmt.Sprint(s["sizes"]) != "[8 64 1024]" {
		t.Errorf("simulator fit provenance: %v", s)
	}
	// The CSV holds sizes and hop counts: not the 8x8 mesh of the
	// command line, nor its P or average distance.
	if c["source"] != "csv:"+csvFile || c["mesh"] != nil || c["protocol"] != "" || c["P"] != 0.0 || c["avg_hops"] != 0.0 || fmt.Sprint(c["sizes"]) != "[8 64 1024]" {
		t.Errorf("CSV fit provenance: %v", c)
	}
	old := filepath.Join(dir, "old.json")
	delete(s, "mesh")
	delete(s, "sizes")
	s["source"] = "simulated 2x2 mesh, protocol eager"
	b, _ := json.Marshal(s)
	if err := os.WriteFile(old, b, 0o644); err != nil {
		t.Fatal(err)
	}
	coll := []string{"--quiet", "coll", "--op", "bcast", "--sizes", "8", "--params"}
	for _, tc := range []struct {
		args []string
		code int
		want string // in stderr
	}{
		{append(slices.Clone(coll), sim, "--mesh", "2x2"), 2, `fitted to protocol "eager"`},
		{append(slices.Clone(coll), sim, "--mesh", "2x2", "--protocol", "eager"), 0, ""},
		{append(slices.Clone(coll), sim, "--mesh", "2x1", "--protocol", "eager"), 0, "warning: --params " + sim + ": the parameters were fitted on a 2x2 mesh"},
		{append(slices.Clone(coll), fromCSV, "--mesh", "2x2"), 0, "carry no mesh"},
		{append(slices.Clone(coll), old, "--mesh", "2x2"), 0, "provenance is unknown"},
		{[]string{"predict", "--params", fromCSV, "--op", "bcast", "--hops", "1"}, 2, "--procs"},
		{[]string{"predict", "--params", fromCSV, "--op", "p2p", "--procs", "4"}, 2, "--hops"},
		{[]string{"predict", "--params", old, "--op", "p2p"}, 0, "provenance unknown"},
	} {
		code, _, stderr := nocsim(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// With --algs auto every output names the algorithm that ran, and it is
// the one an explicit run of that algorithm times identically.
func TestCollAutoReportsChosenAlgorithm(t *testing.T) {
	code, out, stderr := nocsim(t, "--quiet", "coll", "--mesh", "4x4", "--op", "bcast", "--sizes", "8,8192", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := decodeJSON(t, out)
	for _, r := range rows {
		chosen, _ := r["chosen_algorithm"].(string)
		if r["algorithm"] != "auto" || chosen == "" || chosen == "auto" {
			t.Fatalf("row %v: want algorithm auto and the chosen one named", r)
		}
		size := fmt.Sprint(r["size_bytes"])
		code, out, stderr := nocsim(t, "--quiet", "coll", "--mesh", "4x4", "--op", "bcast", "--sizes", size, "--algs", chosen, "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		again := decodeJSON(t, out)[0]
		if again["cycles"] != r["cycles"] || again["chosen_algorithm"] != chosen {
			t.Errorf("%s bytes: auto chose %s in %v cycles; %s explicitly: %v cycles", size, chosen, r["cycles"], chosen, again["cycles"])
		}
	}
	if rows[0]["chosen_algorithm"] == rows[1]["chosen_algorithm"] {
		t.Errorf("8 and 8192 bytes both ran %v: auto should switch at coll_long_bytes", rows[0]["chosen_algorithm"])
	}
	code, out, _ = nocsim(t, "--quiet", "coll", "--mesh", "4x4", "--op", "bcast", "--sizes", "8")
	if code != 0 || !strings.Contains(out, "chosen") || !strings.Contains(out, fmt.Sprint(rows[0]["chosen_algorithm"])) {
		t.Errorf("table does not show the chosen algorithm:\n%s", out)
	}
}
