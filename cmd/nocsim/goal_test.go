package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nocsim/logp/goal"
	"nocsim/scenarios/progress"
	"nocsim/scenarios/report"
)

type goalJSON struct {
	Tier       string    `json:"tier"`
	MaxFinish  float64   `json:"max_finish"`
	RankFinish []float64 `json:"rank_finish"`
	Cycles     int64     `json:"cycles"`
	Messages   int       `json:"messages"`
	Params     struct {
		L float64 `json:"L"`
	} `json:"params"`
	PredictedEnergyPJ *float64 `json:"predicted_energy_pj"`
	Energy            *struct {
		TotalPJ float64 `json:"energy_pj"`
	} `json:"energy"`
}

func writeSchedule(t *testing.T, s *goal.Schedule) string {
	t.Helper()
	var b bytes.Buffer
	if err := goal.Write(&b, s); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "s.goal")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// binomialBcast is the binomial-tree broadcast from rank 0 of 1-byte
// messages: rank r receives from r minus its highest bit, then sends to
// r + 2^k for every 2^k above its highest bit.
func binomialBcast(t *testing.T, P int) *goal.Schedule {
	b := goal.NewBuilder(P, 0)
	for r := 0; r < P; r++ {
		first := 1
		var recv int32 = -1
		if r > 0 {
			hb := 1 << (bits.Len(uint(r)) - 1)
			recv = b.AddRecv(r, r-hb, 1, 0)
			first = hb << 1
		}
		for d := first; r+d < P; d <<= 1 {
			s := b.AddSend(r, r+d, 1, 0)
			if recv >= 0 {
				b.Require(r, s, recv)
			}
		}
	}
	s, err := b.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func pingPongSchedule(t *testing.T, bytes uint64) *goal.Schedule {
	b := goal.NewBuilder(2, 4)
	s0 := b.AddSend(0, 1, bytes, 0)
	r0 := b.AddRecv(0, 1, bytes, 0)
	b.Require(0, r0, s0)
	r1 := b.AddRecv(1, 0, bytes, 0)
	s1 := b.AddSend(1, 0, bytes, 0)
	b.Require(1, s1, r1)
	s, err := b.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func goalRunJSON(t *testing.T, args ...string) goalJSON {
	t.Helper()
	code, out, stderr := nocsim(t, append([]string{"-q", "goal", "run", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("goal run %v: exit %d: %s", args, code, stderr)
	}
	var g goalJSON
	if err := json.Unmarshal([]byte(out), &g); err != nil {
		t.Fatalf("goal run %v: %v\n%s", args, err, out)
	}
	return g
}

// LogGOPSim's reference values through the CLI: with L = 6, o = 2, g = 4
// and 1-byte messages a binomial broadcast at P = 8 finishes at 30 (three
// hops of o + L + o, each rank's first send going down the deepest
// subtree) and a ping-pong at 20 (two one-way times).
func TestGoalRunTierReferenceValues(t *testing.T) {
	for _, c := range []struct {
		name string
		s    *goal.Schedule
		want float64
	}{
		{"binomial bcast P=8", binomialBcast(t, 8), 3 * (2 + 6 + 2)},
		{"ping-pong 1 byte", pingPongSchedule(t, 1), 2 * (2 + 6 + 2)},
	} {
		p := writeSchedule(t, c.s)
		g := goalRunJSON(t, p, "--L", "6", "--o", "2", "--g", "4")
		if g.Tier != "loggops" || g.MaxFinish != c.want || len(g.RankFinish) != c.s.NumRanks() {
			t.Errorf("%s: tier %q, max_finish %v, %d ranks; want loggops, %v, %d", c.name, g.Tier, g.MaxFinish, len(g.RankFinish), c.want, c.s.NumRanks())
		}
		// The flags may also come before the file.
		if h := goalRunJSON(t, "--L=6", "--o=2", "--g=4", p); h.MaxFinish != g.MaxFinish {
			t.Errorf("%s: flags before the file give %v, after %v", c.name, h.MaxFinish, g.MaxFinish)
		}
	}
}

// With --params the tier takes the fitted segments, and the ranks sit in
// order on the mesh the parameters were fitted on: ranks 0 and 1 of a 4x4
// are one hop apart, so a 1-byte ping-pong is two one-way times
// o_s + L + 1*L_per_hop + o_r. Parameters with no mesh (a CSV fit) put
// every message at the fit's average distance instead.
func TestGoalRunWithFittedParams(t *testing.T) {
	_, _, params := fuzzFixture(t) // 4x4, L 20, L_per_hop 5, avg_hops 2.5, o_s = o_r = 20, g 30
	p := writeSchedule(t, pingPongSchedule(t, 1))
	g := goalRunJSON(t, p, "--params", params)
	if want := 2 * (20 + 20 + 1*5 + 20.0); g.MaxFinish != want {
		t.Errorf("fitted on 4x4: max_finish %v, want %v", g.MaxFinish, want)
	}
	raw, err := os.ReadFile(params)
	if err != nil {
		t.Fatal(err)
	}
	noMesh := filepath.Join(t.TempDir(), "csv.toml")
	if err := os.WriteFile(noMesh, []byte(strings.Replace(string(raw), "mesh = \"4x4\"\n", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if g := goalRunJSON(t, p, "--params", noMesh); g.MaxFinish != 2*(20+20+2.5*5+20) {
		t.Errorf("no mesh: max_finish %v, want %v (average distance)", g.MaxFinish, 2*(20+20+2.5*5+20))
	}
	// o_s and o_r apart: one way is o_s + L + o_r.
	g = goalRunJSON(t, p, "--L", "6", "--o-s", "1", "--o-r", "3", "--g", "4")
	if g.MaxFinish != 2*(1+6+3) {
		t.Errorf("o_s 1, o_r 3: max_finish %v, want %v", g.MaxFinish, 2*(1+6+3))
	}
}

// With parameters that hold an energy fit, goal run on the tier prices the
// schedule: a 1-byte ping-pong on the fitted 4x4 is two one-hop messages
// and the static power over the tier's time (10 mW at 1 GHz: 10 pJ a
// cycle); the same parameters without the fit print no energy.
func TestGoalRunTierEnergy(t *testing.T) {
	_, _, params := fuzzFixture(t)
	raw, err := os.ReadFile(params)
	if err != nil {
		t.Fatal(err)
	}
	priced := filepath.Join(t.TempDir(), "energy.toml")
	fit := "[energy]\nmodel = \"hand\"\nstatic_mw = 10.0\ntiles = 16\n[[energy.segment]]\nmax_bytes = 0\nmessage_pj = 1000.0\nbyte_pj = 50.0\nbyte_hop_pj = 3.0\n"
	if err := os.WriteFile(priced, append(raw, fit...), 0o644); err != nil {
		t.Fatal(err)
	}
	p := writeSchedule(t, pingPongSchedule(t, 1))
	g := goalRunJSON(t, p, "--params", priced)
	want := 10*g.MaxFinish + 2*(1000+50*1+3*1*1)
	if g.PredictedEnergyPJ == nil || math.Abs(*g.PredictedEnergyPJ-want) > 1e-9*want || g.Energy != nil {
		t.Errorf("predicted_energy_pj %v over %v cycles, want %v (and no chip energy: %v)", g.PredictedEnergyPJ, g.MaxFinish, want, g.Energy)
	}
	code, out, stderr := nocsim(t, "-q", "goal", "run", p, "--params", priced)
	if line := fmt.Sprintf("energy %.1f nJ", want/1e3); code != 0 || !strings.Contains(out, line) {
		t.Errorf("exit %d, table without %q:\n%s%s", code, line, out, stderr)
	}
	if g := goalRunJSON(t, p, "--params", params); g.PredictedEnergyPJ != nil || g.Energy != nil {
		t.Errorf("no energy fit: predicted_energy_pj %v, energy %v", g.PredictedEnergyPJ, g.Energy)
	}
	// The flit level prices the chip.
	if g := goalRunJSON(t, p, "--mesh", "2x2"); g.Energy == nil || g.Energy.TotalPJ <= 0 || g.PredictedEnergyPJ != nil {
		t.Errorf("flit level: energy %v, predicted %v", g.Energy, g.PredictedEnergyPJ)
	}
}

// GOAL files as LogGOPSim ships them and as its generator Schedgen writes
// them run unchanged on both tiers (testdata/README.md says where they
// come from).
func TestGoalRunLogGOPSimFiles(t *testing.T) {
	for _, c := range []struct {
		file, mesh string
		tier       float64
	}{
		// 32 ranks: the chain 0 -> 1 -> 3 -> 7 -> 15 -> 31 of first
		// children, five hops of o + L + o.
		{"binary_tree_32.goal", "8x4", 5 * (2 + 6 + 2)},
		// LogGOPSim's dissemination at P = 8: 30.
		{"dissemination_8.goal", "4x2", 30},
	} {
		path := filepath.Join("testdata", c.file)
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sends := strings.Count(string(text), ": send ")
		g := goalRunJSON(t, path, "--L", "6", "--o", "2", "--g", "4")
		if g.MaxFinish != c.tier {
			t.Errorf("%s on the tier: max_finish %v, want %v", c.file, g.MaxFinish, c.tier)
		}
		f := goalRunJSON(t, path, "--mesh", c.mesh)
		if f.Tier != "flit" || f.Messages != sends || len(f.RankFinish) != len(g.RankFinish) || f.MaxFinish <= 0 || f.Cycles < int64(f.MaxFinish) {
			t.Errorf("%s on the flit level: %+v; want every one of the %d sends received, %d ranks", c.file, f, sends, len(g.RankFinish))
		}
	}
}

// A collective recorded with coll --goal-out replays on the same 4x4 chip
// in the recorded run's time, point by point (several points: one file
// each, named after the point).
func TestGoalRunReplaysRecordedCollective(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "b.goal")
	code, stdout, stderr := nocsim(t, "-q", "coll", "--mesh", "4x4", "--op", "bcast", "--algs", "binomial,flat", "--sizes", "1024",
		"--json", "--goal-out", out)
	if code != 0 {
		t.Fatalf("coll: exit %d: %s", code, stderr)
	}
	var rows []report.CollRow
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("two points wrote the unnumbered %s too", out)
	}
	for _, r := range rows {
		file := filepath.Join(dir, fmt.Sprintf("b-%s-P16-1024B.goal", r.Algorithm))
		g := goalRunJSON(t, file, "--mesh", "4x4")
		t.Logf("%s: recorded %d cycles, replayed %v", r.Algorithm, r.Cycles, g.MaxFinish)
		if g.MaxFinish != float64(r.Cycles) {
			t.Errorf("%s: recorded run %d cycles, replay of %s %v", r.Algorithm, r.Cycles, file, g.MaxFinish)
		}
		// The replay, recorded in turn, replays in the same time again:
		// its waits were recorded as completions, not as computation.
		again := filepath.Join(dir, "again-"+r.Algorithm+".goal")
		goalRunJSON(t, file, "--mesh", "4x4", "--goal-out", again)
		if g2 := goalRunJSON(t, again, "--mesh", "4x4"); g2.MaxFinish != g.MaxFinish {
			t.Errorf("%s: replay %v cycles, replay of the recorded replay %v", r.Algorithm, g.MaxFinish, g2.MaxFinish)
		}
	}
	// One point: the file is written as named.
	one := filepath.Join(dir, "one.goal")
	if code, _, stderr := nocsim(t, "-q", "pingpong", "--mesh", "2x2", "--sizes", "64", "--goal-out", one); code != 0 {
		t.Fatalf("pingpong: exit %d: %s", code, stderr)
	}
	if g := goalRunJSON(t, one, "--mesh", "2x2"); g.Messages != 2*4 {
		t.Errorf("pingpong of one size, one warm-up and 3 round trips: replay received %d messages, want 8", g.Messages)
	}
}

// A schedule that cannot finish ends with the tier's report (LogGOPS) or
// the deadlock report (flit level), exit 1.
func TestGoalRunStuck(t *testing.T) {
	b := goal.NewBuilder(2, 2)
	b.AddRecv(0, 1, 8, 0)
	b.AddRecv(1, 0, 8, 0)
	s, err := b.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	p := writeSchedule(t, s)
	for _, args := range [][]string{{"--L", "1"}, {"--mesh", "2x1"}} {
		code, out, stderr := nocsim(t, append([]string{"-q", "goal", "run", p}, args...)...)
		if code != 1 || out != "" || !strings.Contains(stderr, "rank 0") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 naming the stuck ranks", args, code, out, stderr)
		}
	}
}

func TestGoalRunBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.goal")
	if err := os.WriteFile(bad, []byte("num_ranks 2\nrank 0 {\nl1: sned 1b to 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := writeSchedule(t, binomialBcast(t, 8))
	_, _, params := fuzzFixture(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{bad, "--L", "1"}, []string{"3:5"}},
		{[]string{bad, "--mesh", "4x4"}, []string{"3:5"}},
		{[]string{good, "--mesh", "2x2"}, []string{"--mesh", "num_ranks = 8"}},
		{[]string{good, "--L", "-1"}, []string{"--L", "-1"}},
		{[]string{good, "--G=NaN"}, []string{"--G"}},
		{[]string{good, "--O=1e309"}, []string{"O"}},
		{[]string{good, "--S", "-1"}, []string{"S"}},
		{[]string{good, "--L", "1", "--params", params}, []string{"--L", "--params"}},
		{[]string{good, "--L", "1", "--mesh", "4x4"}, []string{"--L", "--mesh"}},
		{[]string{good, "--vcs", "2"}, []string{"--vcs", "--mesh"}},
		{[]string{good, "--mesh", "4x4", "--vcs", "0"}, []string{"--vcs"}},
		{[]string{good, "--energy-model", "none"}, []string{"--energy-model", "--mesh"}},
		{[]string{good, "--params", params, "--tech", "22nm"}, []string{"--tech", "--mesh"}},
		{[]string{good, "--mesh", "4x4", "--energy-model", "bogus"}, []string{"--energy-model", "bogus"}},
		{[]string{good}, []string{"--params", "--mesh"}},
		{[]string{good, "--L", "1", "--goal-out", filepath.Join(dir, "x.goal")}, []string{"--goal-out", "--mesh"}},
		{[]string{good, "--params", filepath.Join(dir, "none.toml")}, []string{"--params"}},
		{[]string{filepath.Join(dir, "none.goal"), "--L", "1"}, []string{"none.goal"}},
		{[]string{good, "extra", "--L", "1"}, []string{"extra"}},
		{[]string{}, []string{"FILE"}},
	} {
		code, out, stderr := nocsim(t, append([]string{"goal", "run"}, c.args...)...)
		ok := code == 2 && out == "" && strings.Count(strings.TrimSpace(stderr), "\n") == 0
		for _, w := range c.want {
			ok = ok && strings.Contains(stderr, w)
		}
		if !ok {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %v", c.args, code, out, stderr, c.want)
		}
	}
	// Output paths are checked before anything runs.
	code, _, stderr := nocsim(t, "coll", "--mesh", "2x2", "--goal-out", filepath.Join(dir, "no", "x.goal"))
	if code != 2 || !strings.Contains(stderr, "--goal-out") {
		t.Errorf("coll --goal-out into a missing directory: exit %d, %q", code, stderr)
	}
	code, _, stderr = nocsim(t, "app", "--mesh", "2x2", "--procs", "4", "--versions", "native", "--goal-out", filepath.Join(dir, "x.goal"))
	if code != 2 || !strings.Contains(stderr, "--goal-out") {
		t.Errorf("app --goal-out with native only: exit %d, %q", code, stderr)
	}
}

// FuzzGoalRunFlags drives goal run's flag validation (the CLI fuzz test
// covers top-level commands): no input panics, refusals are exit 2 with
// one line.
func FuzzGoalRunFlags(f *testing.F) {
	validateOnly = true
	defer func() { validateOnly = false }()
	dir := f.TempDir()
	file := filepath.Join(dir, "s.goal")
	if err := os.WriteFile(file, []byte("num_ranks 2\nrank 0 {\nl1: send 8b to 1\n}\nrank 1 {\nl1: recv 8b from 0\n}\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	var names []string
	for _, fl := range goalRunCommand().Flags {
		if n := fl.Names()[0]; n != "params" && n != "config" && n != "goal-out" && n != "json" && n != "quiet" {
			names = append(names, n)
		}
	}
	for i := range names {
		for _, v := range []string{"-1", "0", "1e309", "NaN", "4x4", "2x1"} {
			f.Add(uint8(i), v, uint8(i+1), "1")
		}
	}
	f.Fuzz(func(t *testing.T, i uint8, v1 string, j uint8, v2 string) {
		a, b := names[int(i)%len(names)], names[int(j)%len(names)]
		args := []string{"-q", "goal", "run", file, "--" + a + "=" + v1}
		if a != b {
			args = append(args, "--"+b+"="+v2)
		}
		code, _, stderr := nocsim(t, args...)
		if code != 0 && (code != 2 || strings.Count(strings.TrimSuffix(stderr, "\n"), "\n") != 0 || stderr == "") {
			t.Fatalf("%q: exit %d, %q", args, code, stderr)
		}
	})
}

// Tag 18446744073709551615 (2^64-1), which Schedgen's trace converter
// writes for MPI_ANY_TAG, is any tag: a receive with it takes a send of
// tag 5, and the exchange finishes in one message's o + L + o.
func TestGoalRunAllOnesTagIsAnyTag(t *testing.T) {
	p := filepath.Join(t.TempDir(), "any.goal")
	text := "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 5\n}\nrank 1 {\nl1: recv 8b from 0 tag 18446744073709551615\n}\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if g := goalRunJSON(t, p, "--L", "6", "--o", "2", "--g", "4"); g.MaxFinish != 2+6+2 {
		t.Errorf("max_finish %v, want o + L + o = 10 (the receive matched the tag-5 send)", g.MaxFinish)
	}
}

// A schedule with a 1 MB token is refused with one line that quotes at
// most 80 bytes of it and names its length.
func TestGoalRunClipsLongTokens(t *testing.T) {
	p := filepath.Join(t.TempDir(), "long.goal")
	label := strings.Repeat("x", 1<<20)
	text := "num_ranks 1\nrank 0 {\n" + label + ": calc 1\n" + label + ": calc 2\n}\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := nocsim(t, "goal", "run", p, "--L", "1")
	line := strings.TrimSuffix(stderr, "\n")
	if code != 2 || out != "" || strings.Contains(line, "\n") || !strings.Contains(line, "(1048576 bytes)") || len(line) > 300 {
		t.Errorf("exit %d, stdout %q, %d-byte stderr %.400q; want exit 2 and one short line clipping the label", code, out, len(stderr), stderr)
	}
}

// A tier run that goes on past progress.TierAfter (0 here) shows its
// progress on stderr: ops completed of the schedule's, then a final line
// with all done; --quiet shows nothing. The schedule has 80000 ops (one
// rank sending 40000 messages), enough for the tier's heartbeat.
func TestGoalRunTierProgress(t *testing.T) {
	defer func(d time.Duration) { progress.TierAfter = d }(progress.TierAfter)
	progress.TierAfter = 0
	const n = 40000
	var b strings.Builder
	fmt.Fprintf(&b, "num_ranks 2\nrank 0 {\n%s}\nrank 1 {\n%s}\n", strings.Repeat("send 8b to 1\n", n), strings.Repeat("recv 8b from 0\n", n))
	p := filepath.Join(t.TempDir(), "fan.goal")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := nocsim(t, "goal", "run", "--json", p, "--L", "6", "--o", "2", "--g", "4")
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if code != 0 || out == "" || len(lines) < 2 || !strings.HasPrefix(lines[0], "goal run (loggops) ") || !strings.Contains(lines[0], "/80000 ops") ||
		!strings.Contains(lines[0], "running at cycle") || !strings.Contains(lines[len(lines)-1], " 80000/80000 ops") {
		t.Errorf("exit %d, stderr %q; want progress lines in ops, the last with all 80000 done", code, stderr)
	}
	if code, _, stderr := nocsim(t, "-q", "goal", "run", "--json", p, "--L", "6", "--o", "2", "--g", "4"); code != 0 || stderr != "" {
		t.Errorf("--quiet: exit %d, stderr %q; want nothing", code, stderr)
	}
}

// The schedules docs/commands/goal.md quotes under "Where nocsim differs
// from LogGOPSim" show its two rules (the page's outputs themselves are
// checked by TestDocsOutputs): listing the sends the other way round moves
// rank 2's finish, and 0-byte messages finish as 1-byte ones.
func TestGoalDocsDifferences(t *testing.T) {
	out := map[string]string{}
	for _, f := range []string{"order_ab", "order_ba", "bytes_0", "bytes_1"} {
		code, stdout, stderr := nocsim(t, "-q", "goal", "run", "--json", filepath.Join("testdata", f+".goal"),
			"--L", "6", "--o", "2", "--g", "4", "--G", "1")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, stderr)
		}
		out[f] = stdout
	}
	if out["order_ab"] == out["order_ba"] {
		t.Error("order_ab and order_ba finish alike: the listing order of ready sends does not show")
	}
	if out["bytes_0"] != out["bytes_1"] {
		t.Errorf("0-byte messages finish unlike 1-byte ones:\n%s\n%s", out["bytes_0"], out["bytes_1"])
	}
}
