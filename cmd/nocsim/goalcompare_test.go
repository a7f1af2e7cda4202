package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const bcastGoal = `num_ranks 4
rank 0 {
l1: send 8b to 2 tag 0
l2: send 8b to 1 tag 0
}
rank 1 {
l1: recv 8b from 0 tag 0
}
rank 2 {
l1: recv 8b from 0 tag 0
l2: send 8b to 3 tag 0
l2 requires l1
}
rank 3 {
l1: recv 8b from 2 tag 0
}
`

func goalFixture(t *testing.T) (dir, sched, params string) {
	dir = t.TempDir()
	_, _, params = fuzzFixture(t)
	sched = filepath.Join(dir, "bcast.goal")
	if err := os.WriteFile(sched, []byte(bcastGoal), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, sched, params
}

// The JSON holds every rank on both tiers; the overall figures are the
// largest finishes and the errors follow from the times.
func TestGoalCompareJSON(t *testing.T) {
	dir, sched, params := goalFixture(t)
	plot := filepath.Join(dir, "cmp.svg")
	code, out, stderr := nocsim(t, "-q", "goal", "compare", sched, "--mesh", "4x4", "--params", params, "--json", "--plot", plot)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Ranks []struct {
			Rank                 int
			Simulated, Predicted float64 `json:"-"`
			Sim                  float64 `json:"simulated_cycles"`
			Pred                 float64 `json:"predicted_cycles"`
			Err                  float64 `json:"error_pct"`
		}
		Sim  float64 `json:"simulated_cycles"`
		Pred float64 `json:"predicted_cycles"`
		Err  float64 `json:"error_pct"`
		Msgs int     `json:"messages"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got.Ranks) != 4 || got.Msgs != 3 {
		t.Fatalf("%d ranks, %d messages: want 4 and 3", len(got.Ranks), got.Msgs)
	}
	var maxS, maxP float64
	for _, r := range got.Ranks {
		maxS, maxP = math.Max(maxS, r.Sim), math.Max(maxP, r.Pred)
		if r.Sim <= 0 || r.Pred <= 0 || math.Abs(r.Err-100*(r.Pred-r.Sim)/r.Sim) > 1e-9 {
			t.Errorf("rank %+v: times must be positive and the error (pred-sim)/sim", r)
		}
	}
	if maxS != got.Sim || maxP != got.Pred || math.Abs(got.Err-100*(maxP-maxS)/maxS) > 1e-9 {
		t.Errorf("overall %v/%v/%v, want the largest finishes %v/%v and their error", got.Sim, got.Pred, got.Err, maxS, maxP)
	}
	if st, err := os.Stat(plot); err != nil || st.Size() == 0 {
		t.Errorf("--plot: %v", err)
	}
	// The gap between the tiers is drawn in its own panel, not by cutting
	// the finish axis.
	if b, _ := os.ReadFile(plot); !strings.Contains(string(b), "% of simulated") {
		t.Error("--plot: no difference panel (its label \"% of simulated\" is missing)")
	}
}

func TestGoalCompareBadInput(t *testing.T) {
	dir, sched, params := goalFixture(t)
	bad := filepath.Join(dir, "bad.goal")
	os.WriteFile(bad, []byte("num_ranks 2\nrank 0 { l1: sned 8b to 1 }\n"), 0o644)
	big := filepath.Join(dir, "big.goal")
	os.WriteFile(big, []byte("num_ranks 5\n"+"rank 0 {}\nrank 1 {}\nrank 2 {}\nrank 3 {}\nrank 4 {}\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"goal", "compare", "--mesh", "4x4", "--params", params}, "GOAL schedule file"},
		{[]string{"goal", "compare", sched, "--mesh", "4x4"}, "params"},
		{[]string{"goal", "compare", filepath.Join(dir, "none.goal"), "--mesh", "4x4", "--params", params}, "none.goal"},
		{[]string{"goal", "compare", bad, "--mesh", "4x4", "--params", params}, "bad.goal"},
		{[]string{"goal", "compare", big, "--mesh", "2x2", "--params", params}, "5 ranks"},
		{[]string{"goal", "compare", sched, "--mesh", "4x4", "--params", params, "--plot", "x.gif"}, "--plot"},
		{[]string{"goal", "compare", sched, "--mesh", "4x4", "--params", filepath.Join(dir, "none.toml")}, "--params"},
		{[]string{"goal", "compare", sched, "--mesh", "0x4", "--params", params}, "mesh"},
		{[]string{"goal", "compare", sched, "--mesh", "4x4", "--params", params, "--protocol", "eager"}, "protocol"},
		{[]string{"goal", "frobnicate"}, "frobnicate"},
	} {
		code, _, stderr := nocsim(t, append([]string{"-q"}, c.args...)...)
		msg := strings.TrimSuffix(stderr, "\n")
		if code != 2 || strings.Contains(msg, "\n") || !strings.Contains(msg, c.want) {
			t.Errorf("%q: exit %d, %q: want exit 2 and one line naming %q", c.args, code, stderr, c.want)
		}
	}
}

// app --params adds the tier's columns to the MPI runs' JSON and draws the
// tier chart; --tier-plot alone is refused before anything runs.
func TestAppTier(t *testing.T) {
	dir, _, params := goalFixture(t)
	plot := filepath.Join(dir, "tier.png")
	base := []string{"-q", "app", "--mesh", "4x4", "--app", "cg", "--procs", "1,4", "--sizes", "64"}
	code, out, stderr := nocsim(t, append(base, "--params", params, "--tier-plot", plot, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		_, has := r["tier_cycles"]
		if has != (r["version"] == "mpi") {
			t.Errorf("%v P=%v: tier_cycles present %v: want exactly on MPI runs", r["version"], r["procs"], has)
		}
	}
	if st, err := os.Stat(plot); err != nil || st.Size() == 0 {
		t.Errorf("--tier-plot: %v", err)
	}
	for _, args := range [][]string{
		append(base, "--tier-plot", plot),
		append(base, "--params", params, "--versions", "native", "--tier-plot", plot),
	} {
		code, _, stderr := nocsim(t, args...)
		if code != 2 || !strings.Contains(stderr, "--tier-plot") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, %q: want 2 and one line naming --tier-plot", args, code, stderr)
		}
	}
}
