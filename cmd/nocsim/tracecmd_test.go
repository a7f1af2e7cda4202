package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tiDir holds the traces recorded with SimGrid (scripts/simgrid).
var tiDir = filepath.Join("..", "..", "logp", "titrace", "testdata")

type traceRunJSON struct {
	Ranks []struct {
		Rank          int    `json:"rank"`
		SentMsgs      int    `json:"p2p_sent_msgs"`
		SentBytes     uint64 `json:"p2p_sent_bytes"`
		ScheduleSends int    `json:"schedule_sends"`
	} `json:"ranks"`
	Run struct {
		Tier      string    `json:"tier"`
		Messages  int       `json:"messages"`
		MaxFinish float64   `json:"max_finish"`
		Finish    []float64 `json:"rank_finish"`
	} `json:"run"`
}

func traceRunJSONOf(t *testing.T, args ...string) traceRunJSON {
	t.Helper()
	code, out, stderr := nocsim(t, append(append([]string{"trace", "run"}, args...), "--json", "-q")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var j traceRunJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return j
}

// replayOnBothTiers replays a recorded trace on the chip and the tier:
// the chip delivers every message of the schedule (the trace's own and
// the collectives' expansion), every rank finishes on both.
// The MPI library's collectives (replay calls) send as many messages as
// collgen's expansion of the same algorithms: the chip's count, from its
// ranks' receives, equals the schedule's, from its sends.
func replayOnBothTiers(t *testing.T, path string) {
	for _, how := range []string{"calls", "schedule"} {
		chip := traceRunJSONOf(t, path, "--mesh", "4x4", "--replay", how)
		sends := 0
		for _, r := range chip.Ranks {
			sends += r.ScheduleSends
		}
		if chip.Run.Tier != "flit" || chip.Run.Messages != sends || sends == 0 {
			t.Errorf("%s, replay %s: chip %q delivered %d messages, the schedule sends %d", path, how, chip.Run.Tier, chip.Run.Messages, sends)
		}
	}
	tier := traceRunJSONOf(t, path, "--params", filepath.Join("..", "..", "scenarios", "examples", "params", "4x4-scmp.toml"))
	if tier.Run.Tier != "loggops" || len(tier.Run.Finish) != len(tier.Ranks) || tier.Run.MaxFinish <= 0 {
		t.Errorf("%s: tier %q finished %d ranks by %v", path, tier.Run.Tier, len(tier.Run.Finish), tier.Run.MaxFinish)
	}
}

func TestTraceRunRecorded(t *testing.T) {
	for _, n := range []string{"ring", "cg", "collmix"} {
		replayOnBothTiers(t, filepath.Join(tiDir, n+".ti"))
	}
}

// The traces CI records with SimGrid (.ci/run sets NOCSIM_SIMGRID_TRACES
// to their directory) replay on both tiers too.
func TestTraceRunSimGridCI(t *testing.T) {
	dir := os.Getenv("NOCSIM_SIMGRID_TRACES")
	if dir == "" {
		t.Skip("NOCSIM_SIMGRID_TRACES is not set: no traces recorded by SimGrid on this machine (.ci/run records them when libsimgrid-dev installs)")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.ti"))
	if len(files) == 0 {
		t.Fatalf("no *.ti in %s", dir)
	}
	for _, f := range files {
		replayOnBothTiers(t, f)
	}
}

// The ring passes one message at a time: the tier's prediction with the
// parameters fitted on the 4x4 chip is within 10% of the chip, with and
// without the recorded compute.
func TestTraceCompareRing(t *testing.T) {
	params := filepath.Join("..", "..", "scenarios", "examples", "params", "4x4-scmp.toml")
	for _, rate := range []string{"0", "1"} {
		code, out, stderr := nocsim(t, "trace", "compare", filepath.Join(tiDir, "ring.ti"), "--mesh", "4x4", "--params", params, "--flops-per-cycle", rate, "--json", "-q")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var j struct {
			Sim      float64 `json:"simulated_cycles"`
			Pred     float64 `json:"predicted_cycles"`
			ErrorPct float64 `json:"error_pct"`
			Messages int     `json:"messages"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatal(err)
		}
		if j.Messages != 32 { // 4 ranks x 8 rounds, counted in ring.c
			t.Errorf("rate %s: %d messages, want 32", rate, j.Messages)
		}
		if e := 100 * (j.Pred - j.Sim) / j.Sim; math.Abs(e) > 10 || math.Abs(e-j.ErrorPct) > 0.01 {
			t.Errorf("rate %s: predicted %v, simulated %v: error %.2f%% (reported %.2f%%), want within 10%%", rate, j.Pred, j.Sim, e, j.ErrorPct)
		}
	}
}

// SimGrid's index (one per-rank file a line, names relative to it)
// converts to the same schedule as the one file of all ranks.
func TestTraceIndexFile(t *testing.T) {
	dir := t.TempDir()
	text, err := os.ReadFile(filepath.Join(tiDir, "cg.ti"))
	if err != nil {
		t.Fatal(err)
	}
	per := map[string][]string{}
	var order []string
	for _, l := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		r := strings.Fields(l)[0]
		if per[r] == nil {
			order = append(order, r)
		}
		per[r] = append(per[r], l)
	}
	var index []string
	for _, r := range order {
		name := "cg.txt_files/rank-" + r + ".txt"
		// SimGrid names the files as its working directory saw them:
		// the index's path as recorded, then _files/.
		index = append(index, "recorded/elsewhere/"+name)
		if err := os.MkdirAll(filepath.Join(dir, "cg.txt_files"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(per[r], "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "cg.txt"), []byte(strings.Join(index, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.goal"), filepath.Join(dir, "b.goal")
	for _, c := range [][]string{{filepath.Join(tiDir, "cg.ti"), "--goal-out", a}, {filepath.Join(dir, "cg.txt"), "--goal-out", b}} {
		if code, _, stderr := nocsim(t, append([]string{"trace", "run"}, append(c, "-q")...)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	ga, _ := os.ReadFile(a)
	gb, _ := os.ReadFile(b)
	if len(ga) == 0 || string(ga) != string(gb) {
		t.Fatalf("the index gave another schedule (%d and %d bytes)", len(ga), len(gb))
	}
	// The converted schedule runs as goal run runs any.
	if code, _, stderr := nocsim(t, "goal", "run", a, "--mesh", "4x4", "-q"); code != 0 {
		t.Fatalf("goal run of the conversion: exit %d: %s", code, stderr)
	}
}

// A malformed trace: one line naming file, line and what was expected,
// exit 2, nothing run.
func TestTraceBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.ti")
	if err := os.WriteFile(bad, []byte("0 init\n1 init\n0 send 1 0 eight 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"trace", "run", bad, "--mesh", "4x4"},
		{"trace", "compare", bad, "--mesh", "4x4", "--params", filepath.Join("..", "..", "scenarios", "examples", "params", "4x4-scmp.toml")},
		{"trace", "run", filepath.Join(tiDir, "ring.ti"), "--mesh", "4x4", "--algs", "bcast=nope"},
		{"trace", "run", filepath.Join(tiDir, "ring.ti"), "--mesh", "4x4", "--flops-per-cycle", "-1"},
		{"trace", "run", filepath.Join(tiDir, "ring.ti")},
		{"trace", "run", filepath.Join(tiDir, "ring.ti"), "--mesh", "4x4", "--replay", "both"},
		{"trace", "run", filepath.Join(tiDir, "ring.ti"), "--L", "6", "--replay", "calls"},
	} {
		code, out, stderr := nocsim(t, args...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want exit 2 and one line", args[2:], code, out, stderr)
		}
	}
	_, _, stderr := nocsim(t, "trace", "run", bad, "--mesh", "4x4")
	if want := bad + ":3: send: the count \"eight\": allowed a whole number"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}
