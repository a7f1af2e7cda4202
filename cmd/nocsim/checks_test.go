package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) { refusedInOneLine(t, tc.args, tc.want) })
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

// captureStdout runs f with the process's standard output going to a
// file, where "-" and /dev/stdout write, and returns what was written.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	tmp, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	saved := os.Stdout
	os.Stdout = tmp
	defer func() { os.Stdout = saved }()
	f()
	os.Stdout = saved
	b, err := os.ReadFile(tmp.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noWallClock is a CSV without its wall-clock columns (wall_seconds and
// the rates per second), which differ from run to run.
func noWallClock(t *testing.T, text string) string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("not a CSV with rows (%v): %q", err, text)
	}
	var keep []int
	for i, h := range recs[0] {
		if h != "wall_seconds" && !strings.HasSuffix(h, "_per_second") {
			keep = append(keep, i)
		}
	}
	var b strings.Builder
	for _, r := range recs {
		for _, i := range keep {
			b.WriteString(r[i] + ",")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// --csv writes where docs/output.md ("Where outputs go") says: into a
// named pipe, through a symbolic link (which stays a link), to standard
// output for - and /dev/stdout, into /dev/null; /dev/full's error is one
// line and exit 1, a directory is refused before anything runs.
func TestCSVOutputTargets(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.csv")
	code, _, stderr := nocsim(t, append([]string{"--quiet"}, nocArgs("--csv", plain)...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(plain)
	if err != nil || len(b) == 0 {
		t.Fatalf("the plain CSV: %v", err)
	}
	want := noWallClock(t, string(b))
	runCSV := func(target string) (int, string, string) {
		t.Helper()
		return nocsim(t, append([]string{"--quiet"}, nocArgs("--csv", target)...)...)
	}

	t.Run("named pipe", func(t *testing.T) {
		fifo := filepath.Join(dir, "pipe.csv")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skip("no named pipes:", err)
		}
		got := make(chan []byte)
		go func() {
			b, _ := os.ReadFile(fifo)
			got <- b
		}()
		if code, _, stderr := runCSV(fifo); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if b := <-got; noWallClock(t, string(b)) != want {
			t.Errorf("the reader got %q, want the CSV", b)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
			t.Errorf("%s is no longer a named pipe", fifo)
		}
	})

	t.Run("symbolic link", func(t *testing.T) {
		target, link := filepath.Join(dir, "target.csv"), filepath.Join(dir, "link.csv")
		if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("target.csv", link); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runCSV(link); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link", link)
		}
		if b, _ := os.ReadFile(target); noWallClock(t, string(b)) != want {
			t.Errorf("the link's target holds %q, want the CSV", b)
		}
	})

	for _, p := range []string{"-", "/dev/stdout"} {
		t.Run(p, func(t *testing.T) {
			var code int
			var out, stderr string
			got := captureStdout(t, func() { code, out, stderr = runCSV(p) })
			if code != 0 || noWallClock(t, got) != want || out == "" || strings.Contains(out, "mesh,traffic") {
				t.Errorf("exit %d (%s): standard output got %q, the command's writer %q; want the CSV, and the table as usual", code, stderr, got, out)
			}
		})
	}

	t.Run("/dev/null", func(t *testing.T) {
		if code, _, stderr := runCSV("/dev/null"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Error("/dev/null is no longer a character device")
		}
	})

	t.Run("/dev/full", func(t *testing.T) {
		if _, err := os.Stat("/dev/full"); err != nil {
			t.Skip("no /dev/full")
		}
		code, _, stderr := runCSV("/dev/full")
		if code != 1 || stderr != "nocsim: writing /dev/full: no space left on device\n" {
			t.Errorf("exit %d, stderr %q: want exit 1 and one line naming the file and the cause", code, stderr)
		}
		if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Error("/dev/full is no longer a character device")
		}
	})

	t.Run("directory", func(t *testing.T) {
		code, out, stderr := runCSV(dir)
		if code != 2 || out != "" || !strings.Contains(stderr, "--csv") || !strings.Contains(stderr, "is a directory; allowed a file") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("exit %d, stderr %q: want exit 2, one line, nothing run", code, stderr)
		}
	})
}

// Issue 30's accepted nonsense: each refused before anything runs, exit 2
// and one line naming the flag or key, the value and what is allowed.
func TestAcceptedNonsenseExitTwo(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pp := "[network]\nmesh = \"2x2\"\n[workload]\nkind = \"pingpong\"\nsizes = [8]\n"
	if err := os.Symlink("a.png", filepath.Join(dir, "l.png")); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("n", 300)
	here := file("here.toml", "[output]\ndir = \".\"\n"+pp)
	app := []string{"app", "--mesh", "2x2", "--procs", "1,4", "--sizes", "8"}
	t.Setenv("PATH", t.TempDir()) // no scontrol: Slurm's default limit
	sweep := file("sweep.toml", pp+"[[sweep.axis]]\nkey = \"network.vcs\"\nvalues = [1, 2]\n")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"app", "--app-seed", "-5"}, []string{"--app-seed", "-5", ">= 0"}},
		{[]string{"validate", file("seed.toml", pp+"app_seed = -3\n")}, []string{"app_seed", "-3", ">= 0"}},
		{[]string{"run", file("seed.toml", pp+"app_seed = -3\n")}, []string{"app_seed", "-3", ">= 0"}},
		{append(app, "--plot", filepath.Join(dir, "a.png"), "--time-plot", filepath.Join(dir, "a.png")), []string{"--plot", "--time-plot", "a.png", "name one file"}},
		{append(app, "--plot", filepath.Join(dir, "l.png"), "--time-plot", filepath.Join(dir, "a.png")), []string{"--plot", "l.png", "--time-plot", "a.png", "name one file"}},
		{nocArgs("--csv", filepath.Join(dir, "n.png"), "--plot", filepath.Join(dir, "n.png")), []string{"--csv", "--plot", "n.png", "name one file"}},
		{[]string{"validate", file("axis.toml", pp+"[[sweep.axis]]\nkey = \"output.dir\"\nvalues = [\"a\", \"b\"]\n")}, []string{"output.dir", "allowed keys of network, node, mpi, noc, energy or workload"}},
		{[]string{"validate", file("plots.toml", pp+"[[sweep.axis]]\nkey = \"output.plots\"\nvalues = [true, false]\n")}, []string{"output.plots", "allowed"}},
		{[]string{"validate", file("up.toml", "name = \"../../x\"\n"+pp)}, []string{"name", `"../../x"`, "allowed a plain name"}},
		{[]string{"run", file("up.toml", "name = \"../../x\"\n"+pp)}, []string{"name", `"../../x"`, "allowed a plain name"}},
		{[]string{"validate", file("empty.toml", "name = \"\"\n"+pp)}, []string{"name", `""`, "not empty"}},
		{[]string{"validate", file("long.toml", "name = \""+long+"\"\n"+pp)}, []string{"name", "300 bytes", "at most 188"}},
		{[]string{"run", file("long.toml", "name = \""+long+"\"\n"+pp)}, []string{"name", "300 bytes", "at most 188"}},
		{[]string{"validate", file("longdir.toml", "[output]\ndir = \"out/"+long+"\"\n"+pp)}, []string{"[output] dir", "300 bytes", "at most 255"}},
		{[]string{"validate", file("proc.toml", "[output]\ndir = \"/proc/nocsim-out\"\n"+pp)}, []string{"[output] dir", "/proc/nocsim-out", "not writable"}},
		{[]string{"run", file("proc.toml", "[output]\ndir = \"/proc/nocsim-out\"\n"+pp)}, []string{"[output] dir", "/proc/nocsim-out", "not writable"}},
		{[]string{"validate", here}, []string{"[output] dir", `"."`, "no meta.json", "allowed a new or empty directory"}},
		{[]string{"run", here}, []string{"[output] dir", `"."`, "no meta.json"}},
		{[]string{"sweep", "--slurm", "--shards", "5000", sweep}, []string{"--shards", "5000", "1..1001", "MaxArraySize"}},
		{[]string{"calibrate", "--mesh", "2x2", "--plots", "-"}, []string{"--plots", `"-"`, "standard output"}},
		{[]string{"noc", "--plot", "-"}, []string{"--plot", "-", ".png"}},
		{[]string{"calibrate", "--mesh", "2x2", "--out", "-"}, []string{"--out", `"-"`, ".toml or .json"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) { refusedInOneLine(t, tc.args, tc.want) })
	}
	if _, err := os.Stat(filepath.Join(dir, "a.png")); err == nil {
		t.Error("a refused command wrote a.png")
	}
}

// --shards is checked against the cluster's MaxArraySize when scontrol
// can tell it.
func TestShardsAgainstClusterArrayLimit(t *testing.T) {
	validateOnly = true
	defer func() { validateOnly = false }()
	bin := t.TempDir()
	script := "#!/bin/sh\nprintf 'MaxArraySize            = 100\\nMaxJobCount             = 10000\\n'\n"
	if err := os.WriteFile(filepath.Join(bin, "scontrol"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	dir := t.TempDir()
	file := writeScenario(t, dir, "s.toml", shardSweep)
	if code, _, stderr := nocsim(t, "--quiet", "sweep", "--slurm", "--shards", "101", file); code != 2 || !strings.Contains(stderr, "--shards = 101: allowed 1..100") || !strings.Contains(stderr, "scontrol show config") {
		t.Errorf("--shards 101 with MaxArraySize 100: exit %d, %q", code, stderr)
	}
	if code, _, stderr := nocsim(t, "--quiet", "sweep", "--slurm", "--shards", "100", file); code != 0 {
		t.Errorf("--shards 100 with MaxArraySize 100: exit %d, %q", code, stderr)
	}
}

// validate, run and sweep refuse issue 30's scenario files alike.
func TestValidateRunSweepAgreeOnOutputs(t *testing.T) {
	validateOnly = true
	defer func() { validateOnly = false }()
	dir := t.TempDir()
	sweep := "[workload]\nkind = \"pingpong\"\n[[sweep.axis]]\nkey = \"network.vcs\"\nvalues = [1, 2]\n"
	for i, text := range []string{
		"name = \"../x\"\n" + sweep,
		"name = \"" + strings.Repeat("x", 200) + "\"\n" + sweep,
		"[workload]\napp_seed = -1\n" + sweep[len("[workload]\n"):],
		"[[sweep.axis]]\nkey = \"output.dir\"\nvalues = [\"a\"]\n",
	} {
		p := filepath.Join(dir, fmt.Sprintf("s%d.toml", i))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		vc, _, ve := nocsim(t, "validate", p)
		if vc != 2 {
			t.Errorf("%q: validate exit %d, want 2", text, vc)
		}
		for _, cmd := range []string{"run", "sweep"} {
			if c, _, e := nocsim(t, "--quiet", cmd, p); c != vc || e != ve {
				t.Errorf("%q: validate exit %d %q, %s exit %d %q", text, vc, ve, cmd, c, e)
			}
		}
	}
}

// The main job replaces ./nocsim-results whole: a directory of that name
// that is no earlier result is refused up front and left alone.
func TestMainJobRefusesForeignDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("nocsim-results", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("nocsim-results", "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := nocsim(t, "--quiet")
	if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "nocsim-results") || !strings.Contains(stderr, "no meta.json") {
		t.Errorf("exit %d, stdout %q, stderr %q: want exit 2 and one line", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join("nocsim-results", "notes.txt")); string(b) != "mine" {
		t.Error("the directory's file changed")
	}
}

// refusedInOneLine runs nocsim --quiet ARGS and requires exit 2, one line
// on stderr containing every string of want, and nothing on stdout
// (nothing ran).
func refusedInOneLine(t *testing.T, args, want []string) {
	t.Helper()
	code, stdout, stderr := nocsim(t, append([]string{"--quiet"}, args...)...)
	msg := strings.TrimSuffix(stderr, "\n")
	if code != 2 || strings.Contains(msg, "\n") || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q: want exit 2, one line, nothing run", code, stdout, stderr)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q does not contain %q", msg, w)
		}
	}
}
