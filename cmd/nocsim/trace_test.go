package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chromeTrace is what the tests read of a --trace file.
type chromeTrace struct {
	DisplayTimeUnit string `json:"displayTimeUnit"`
	TraceEvents     []struct {
		Name string         `json:"name"`
		Ph   string         `json:"ph"`
		Ts   json.Number    `json:"ts"`
		Dur  json.Number    `json:"dur"`
		Pid  int            `json:"pid"`
		Tid  int            `json:"tid"`
		Args map[string]any `json:"args"`
	} `json:"traceEvents"`
}

// readTrace reads a trace file and returns, per process, its name and the
// ranks with an MPI call (a complete "X" event) on their track.
func readTrace(t *testing.T, path string) (names map[int]string, ranks map[int]map[int]bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tr chromeTrace
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("%s is not JSON: %v", path, err)
	}
	names, ranks = map[int]string{}, map[int]map[int]bool{}
	for _, e := range tr.TraceEvents {
		switch {
		case e.Ph == "M" && e.Name == "process_name":
			names[e.Pid], _ = e.Args["name"].(string)
		case e.Ph == "X":
			if !strings.HasPrefix(e.Name, "MPI_") || e.Ts == "" || e.Dur == "" {
				t.Errorf("%s: bad call event %+v", path, e)
			}
			if ranks[e.Pid] == nil {
				ranks[e.Pid] = map[int]bool{}
			}
			ranks[e.Pid][e.Tid] = true
		}
	}
	return names, ranks
}

// coll, app, pairs and run write one Chrome trace of all their MPI runs: valid
// JSON, a named process per run in the order of the rows, calls on every
// rank's track; tracing changes no result.
func TestTraceFromCollAppAndRun(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "coll.toml")
	toml := fmt.Sprintf("[network]\nmesh = \"2x2\"\n[workload]\nkind = \"coll\"\nop = \"allreduce\"\nprocs = [2, 4]\nsizes = [8]\n[output]\ndir = %q\nplots = false\n", filepath.Join(dir, "res"))
	if err := os.WriteFile(scenario, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		names []string // the processes, in order
		procs []int    // their rank counts
	}{
		{[]string{"coll", "--mesh", "2x2", "--op", "bcast", "--algs", "binomial,flat", "--procs", "3,4", "--sizes", "8", "--json"},
			[]string{"bcast binomial, P=3, 8 B", "bcast binomial, P=4, 8 B", "bcast flat, P=3, 8 B", "bcast flat, P=4, 8 B"}, []int{3, 4, 3, 4}},
		{[]string{"app", "--mesh", "2x2", "--app", "cg", "--procs", "2,4", "--sizes", "16", "--json"},
			[]string{"cg mpi, P=2, size 16", "cg mpi, P=4, size 16"}, []int{2, 4}}, // the native runs have no MPI
		{[]string{"app", "--mesh", "2x2", "--app", "halo", "--variant", "fence", "--procs", "4", "--sizes", "8", "--json"},
			[]string{"halo fence mpi, P=4, size 8"}, []int{4}},
		{[]string{"pairs", "--mesh", "2x2", "--pairs", "1,2", "--sizes", "16", "--json"},
			[]string{"pairs mesh mpi, 1 pairs, 16 B", "pairs mesh mpi, 2 pairs, 16 B"}, []int{4, 4}}, // every rank joins the barrier
		{[]string{"run", scenario}, []string{"allreduce auto, P=2, 8 B", "allreduce auto, P=4, 8 B"}, []int{2, 4}},
	} {
		path := filepath.Join(dir, c.args[0]+".json")
		args := append([]string{"--quiet", c.args[0], "--trace", path}, c.args[1:]...)
		code, traced, stderr := nocsim(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		names, ranks := readTrace(t, path)
		if len(names) != len(c.names) {
			t.Errorf("%v: %d processes %v, want %q", c.args, len(names), names, c.names)
		}
		for pid, want := range c.names {
			if names[pid] != want {
				t.Errorf("%v: process %d is %q, want %q", c.args, pid, names[pid], want)
			}
			if len(ranks[pid]) != c.procs[pid] {
				t.Errorf("%v: process %d (%s): calls on ranks %v, want every one of %d", c.args, pid, want, ranks[pid], c.procs[pid])
			}
		}
		if c.args[0] == "run" {
			continue // its results are files, compared by the determinism tests
		}
		code, plain, stderr := nocsim(t, append([]string{"--quiet"}, c.args...)...)
		if code != 0 || plain != traced {
			t.Errorf("%v: the results differ with --trace (exit %d, %s):\n%s\nwithout:\n%s", c.args, code, stderr, traced, plain)
		}
	}
}

// --trace where no MPI run goes on the chip is refused before anything
// runs: exit 2 and one line naming --trace.
func TestTraceWithoutMPIRunsRefused(t *testing.T) {
	dir := t.TempDir()
	noc := filepath.Join(dir, "noc.toml")
	if err := os.WriteFile(noc, []byte("[network]\nmesh = \"2x2\"\n[workload]\nkind = \"noc\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "t.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"app", "--mesh", "2x2", "--procs", "4", "--versions", "native", "--trace", trace}, "--versions = native"},
		{[]string{"coll", "--tier", "loggops", "--L", "6", "--o", "2", "--g", "4", "--procs", "8", "--trace", trace}, "--tier loggops"},
		{[]string{"run", "--trace", trace, noc}, "kind = noc"},
		{[]string{"pairs", "--mesh", "2x2", "--versions", "native", "--trace", trace}, "--versions = native"},
	} {
		code, out, stderr := nocsim(t, c.args...)
		if msg := strings.TrimSuffix(stderr, "\n"); code != 2 || out != "" || strings.Contains(msg, "\n") || !strings.Contains(msg, "--trace") || !strings.Contains(msg, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line naming --trace and %q", c.args, code, out, stderr, c.want)
		}
		if _, err := os.Stat(trace); err == nil {
			t.Errorf("%v: wrote %s", c.args, trace)
		}
	}
}
