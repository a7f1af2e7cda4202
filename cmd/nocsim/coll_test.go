package main

import (
	"encoding/json"
	"image/png"
	"nocsim/coll"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCollJSONEveryOperation(t *testing.T) {
	for _, op := range []string{"barrier", "bcast", "scatter", "gather", "allgather", "alltoall", "reduce", "allreduce", "reduce_scatter", "scan", "exscan"} {
		regOp := op
		if op == "exscan" {
			regOp = "scan"
		}
		algs := strings.Join(append([]string{"auto"}, coll.Names(regOp)...), ",")
		code, out, stderr := nocsim(t, "coll", "--mesh", "4x4", "--op", op, "--algs", algs, "--procs", "5,16", "--sizes", "0,8,4096", "--root", "3", "--json", "--quiet")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", op, code, stderr)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		if want := (len(coll.Names(regOp)) + 1) * 2 * 3; len(rows) != want {
			t.Fatalf("%s: %d rows, want %d", op, len(rows), want)
		}
		for _, r := range rows {
			for _, k := range []string{"op", "algorithm", "procs", "size_bytes", "cycles", "correct"} {
				if _, ok := r[k]; !ok {
					t.Fatalf("%s: row lacks %s: %v", op, k, r)
				}
			}
			if r["correct"] != true {
				t.Errorf("%s: %v", op, r)
			}
		}
	}
}

func TestCollBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--op", "nope"}, "--op"},
		{[]string{"--op", "bcast", "--algs", "magic"}, "--algs"},
		{[]string{"--mesh", "4x4", "--procs", "17"}, "--procs"},
		{[]string{"--mesh", "4x4", "--procs", "4", "--root", "4"}, "--root"},
		{[]string{"--op", "allreduce", "--sizes", "12"}, "--sizes"},
		{[]string{"--sizes", "x"}, "--sizes"},
		{[]string{"--bcast", "magic"}, "--bcast"},
		{[]string{"--x", "time"}, "--x"},
		{[]string{"--algs", "optimal", "--optimal-L", "-1"}, "--optimal-L"},
		{[]string{"--algs", "optimal", "--optimal-o", "x"}, "--optimal-o"},
		{[]string{"--algs", "optimal", "--optimal-g", "Inf"}, "--optimal-g"},
		{[]string{"--library", "mpich"}, "--library"},
		{[]string{"--library", "thesis", "--algs", "flat"}, `--algs = flat: allowed auto with library = "thesis"`},
		{[]string{"--library", "thesis", "--bcast", "binomial"}, `--bcast = "binomial": allowed auto with library = "thesis"`},
		{[]string{"--library", "thesis", "--protocol", "niu"}, `--protocol = "niu": allowed scmp with library = "thesis"`},
		// a native algorithm's remote stores are not MPI messages: no schedule to write
		{[]string{"--mesh", "4x4", "--op", "barrier", "--algs", "tree4_scatter", "--procs", "16", "--goal-out", filepath.Join(t.TempDir(), "b.goal")}, "--goal-out"},
	} {
		code, out, stderr := nocsim(t, append([]string{"coll", "--quiet"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.flag) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %s", c.args, code, out, stderr, c.flag)
		}
	}
}

func TestCollPlotAndDeterminism(t *testing.T) {
	path := filepath.Join(t.TempDir(), "coll.png")
	args := []string{"coll", "--mesh", "4x4", "--op", "bcast", "--algs", "flat,binomial", "--procs", "4,16", "--sizes", "8,1024", "--json", "--quiet"}
	code, a, stderr := nocsim(t, append(args, "--plot", path, "--workers", "1")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, b, _ := nocsim(t, append(args, "--workers", "2")...)
	if a != b {
		t.Error("output depends on the number of workers")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Fatal(err)
	}
}
