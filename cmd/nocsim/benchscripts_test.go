package main

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"nocsim/scenarios"
)

// scripts/bench/against-booksim.sh compares CPU time on one run that both
// simulators make: its nocsim command line and booksim-mesh88.cfg must
// describe the same network and traffic, or the comparison is of two
// different runs. The nocsim side is read back as nocsim resolves it
// (--print-config, so the booksim preset's values count), the BookSim side
// from the file.
func TestBookSimBenchConfigMatchesNocsimRun(t *testing.T) {
	script, err := os.ReadFile("../../scripts/bench/against-booksim.sh")
	if err != nil {
		t.Fatal(err)
	}
	cfgText, err := os.ReadFile("../../scripts/bench/booksim-mesh88.cfg")
	if err != nil {
		t.Fatal(err)
	}

	// The nocsim command: from `noc` to the output redirection, with the
	// line continuations joined.
	joined := strings.ReplaceAll(string(script), "\\\n", " ")
	cmd := regexp.MustCompile(`"\$tmp/nocsim" noc ([^>]*)>`).FindStringSubmatch(joined)
	if cmd == nil {
		t.Fatal("against-booksim.sh: no nocsim noc command found")
	}
	var args []string
	for _, f := range strings.Fields(cmd[1]) {
		if f != "--json" && f != "--quiet" {
			args = append(args, f)
		}
	}
	code, stdout, stderr := nocsim(t, append([]string{"noc", "--print-config"}, args...)...)
	if code != 0 {
		t.Fatalf("nocsim noc %v: exit %d: %s", args, code, stderr)
	}
	sc, _, err := scenarios.Decode(strings.NewReader(stdout), "printed")
	if err != nil {
		t.Fatal(err)
	}

	bs := map[string]string{}
	for i, line := range strings.Split(string(cfgText), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimSuffix(line, ";"), "=")
		if !ok || !strings.HasSuffix(line, ";") {
			t.Fatalf("booksim-mesh88.cfg:%d: %q is not key = value;", i+1, line)
		}
		bs[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	num := func(key string) float64 {
		t.Helper()
		v, err := strconv.ParseFloat(bs[key], 64)
		if err != nil {
			t.Fatalf("booksim-mesh88.cfg: %s = %q: %v", key, bs[key], err)
		}
		return v
	}

	r, n := sc.Network.RouterSpec, sc.Noc
	if len(n.Rates) != 1 || len(n.Traffic) != 1 {
		t.Fatalf("the nocsim run should be one point, got rates %v traffic %v", n.Rates, n.Traffic)
	}
	k := num("k")
	for _, c := range []struct {
		what      string
		booksim   any
		nocsimVal any
	}{
		{"topology", bs["topology"], sc.Network.Topo},
		{"mesh", fmt.Sprintf("%gx%g (n = %s)", k, k, bs["n"]), sc.Network.Mesh + " (n = 2)"},
		{"routing", bs["routing_function"], "dim_order"}, // nocsim's mesh routes XY only
		{"VCs", num("num_vcs"), float64(r.VCs)},
		{"VC buffer", num("vc_buf_size"), float64(r.VCBuf)},
		{"route delay", num("routing_delay"), float64(r.RouteDelay)},
		{"VC allocation delay", num("vc_alloc_delay"), float64(r.VCAllocDelay)},
		{"switch allocation delay", num("sw_alloc_delay"), float64(r.SwitchAllocDelay)},
		{"switch traversal delay", num("st_final_delay"), float64(r.SwitchDelay)},
		// BookSim's credit_delay is on top of its credit loop's two
		// cycles from the downstream switch to the upstream allocator
		// (docs/network.md, BookSim preset).
		{"credit delay", num("credit_delay") + 2, float64(r.CreditDelay)},
		{"VC allocator", bs["vc_allocator"], r.Allocator},
		{"switch allocator", bs["sw_allocator"], r.Allocator},
		{"allocator iterations", num("alloc_iters"), 1.0},
		{"switch speedup", num("input_speedup") * num("output_speedup") * num("internal_speedup"), float64(r.LinkWidth)},
		// BookSim's injection and ejection channels carry a flit a
		// cycle; its NI and injection channel are the preset's two
		// cycles in (router.Preset).
		{"injection width", 1.0, float64(r.InjectWidth)},
		{"ejection width", 1.0, float64(r.EjectWidth)},
		{"preset", "booksim", sc.Network.Preset},
		{"traffic", bs["traffic"], n.Traffic[0]},
		{"packet flits", num("packet_size"), float64(n.PacketFlits)},
		{"rate in flits", num("injection_rate_uses_flits"), 1.0},
		{"rate (flits/node/cycle)", num("injection_rate"), n.Rates[0]},
		{"warm-up cycles", num("sample_period") * num("warmup_periods"), float64(n.WarmupCycles)},
	} {
		if c.booksim != c.nocsimVal {
			t.Errorf("%s: BookSim %v, nocsim %v", c.what, c.booksim, c.nocsimVal)
		}
	}
}

// scripts/bench/against-booksim.sh takes the path of a built BookSim2
// binary and builds nothing but nocsim: the project carries no recipe
// that builds another project. A missing or wrong argument is refused
// before anything runs, with exit status 2 and one line on stderr naming
// the argument, the value given and what is allowed.
func TestAgainstBookSimArguments(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on this machine")
	}
	script, err := filepath.Abs("../../scripts/bench/against-booksim.sh")
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	build := regexp.MustCompile(`\b(make|cmake|ninja|g\+\+|gcc|cc|bison|flex)\b|git clone`)
	for i, line := range strings.Split(string(text), "\n") {
		if code, _, _ := strings.Cut(line, "#"); build.MatchString(code) {
			t.Errorf("against-booksim.sh:%d builds something: %q", i+1, line)
		}
	}

	dir := t.TempDir()
	exe := filepath.Join(dir, "booksim")
	plain := filepath.Join(dir, "booksim.txt")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, []byte("not a program\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		args  []string
		words []string
	}{
		{"no argument", nil, []string{"usage:", "BOOKSIM_BINARY", "built BookSim2 binary"}},
		{"too many", []string{exe, "1", "2"}, []string{"usage:", "BOOKSIM_BINARY [ROUNDS]"}},
		{"missing file", []string{filepath.Join(dir, "nope")}, []string{"BOOKSIM_BINARY = '" + filepath.Join(dir, "nope") + "'", "does not exist", "allowed the path of a built, executable BookSim2 binary"}},
		{"a checkout directory", []string{dir}, []string{"BOOKSIM_BINARY = '" + dir + "'", "is a directory", "allowed"}},
		{"not executable", []string{plain}, []string{"BOOKSIM_BINARY = '" + plain + "'", "is not executable", "allowed"}},
		{"empty", []string{""}, []string{"BOOKSIM_BINARY = ''", "allowed"}},
		{"zero rounds", []string{exe, "0"}, []string{"ROUNDS = '0'", "allowed a positive whole number"}},
		{"rounds not a number", []string{exe, "x"}, []string{"ROUNDS = 'x'", "allowed a positive whole number"}},
	} {
		cmd := exec.Command(bash, append([]string{script}, c.args...)...)
		cmd.Dir = dir
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		msg := strings.TrimSuffix(stderr.String(), "\n")
		if code != 2 || stdout.Len() != 0 || msg == "" || strings.Contains(msg, "\n") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout and one line on stderr", c.name, code, stdout.String(), stderr.String())
			continue
		}
		for _, w := range c.words {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not say %q", c.name, msg, w)
			}
		}
	}
}

// scripts/bench/against-filing.sh builds the filed code with today's
// benchmark files, giving it the 64 KiB Allreduce's message count (the
// filed Rank has no Received) with a perl substitution: it must still
// apply to today's mpi/bench_test.go and leave valid Go.
func TestAgainstFilingAdaptsTheAllreduceBenchmark(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("no perl on this machine")
	}
	script, err := os.ReadFile("../../scripts/bench/against-filing.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`perl -0pi -e '([^']*)'`).FindSubmatch(script)
	if m == nil {
		t.Fatal("against-filing.sh: no perl substitution found")
	}
	// The script passes the current run's message count in MSGS.
	perl := exec.Command("perl", "-0pe", string(m[1]), "../../mpi/bench_test.go")
	perl.Env = append(os.Environ(), "MSGS=8064")
	out, err := perl.Output()
	if err != nil {
		t.Fatal(err)
	}
	src := string(out)
	if !strings.Contains(src, "msgs += 8064\n") || strings.Contains(src, "Received()") {
		t.Fatal("the substitution no longer replaces the Received loop in mpi/bench_test.go")
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "bench_test.go", src, 0); err != nil {
		t.Fatalf("the adapted benchmark file does not parse: %v", err)
	}
}
