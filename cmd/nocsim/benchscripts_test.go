package main

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
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
		{"credit delay", num("credit_delay"), float64(r.CreditDelay)},
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
