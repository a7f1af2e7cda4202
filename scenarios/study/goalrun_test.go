package study

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nocsim/logp/goal"
	"nocsim/mpi"
	"nocsim/mpi/trace"
	"nocsim/scenarios"
	"nocsim/scenarios/apps"
	"nocsim/scenarios/report"
)

// replayGoal writes the trace as GOAL text, reads it back and runs it on
// the scenario's chip.
func replayGoal(t *testing.T, sc *scenarios.Scenario, tr *trace.Trace) *report.GoalResult {
	t.Helper()
	s, err := trace.ToGoal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := goal.Write(&text, s); err != nil {
		t.Fatal(err)
	}
	back, err := goal.Read(&text)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckGoalFlit(sc, back, nil); err != nil {
		t.Fatal(err)
	}
	res, err := RunGoalFlit(sc, back, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The applications recorded (MPI versions) and replayed through GOAL text
// on the same 4x4 machine finish within 2% of the recorded run (the issue's
// bound; the measured differences are logged).
func TestRecordedApplicationsReplay(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	for _, c := range []struct {
		name string
		run  func(rec func(*mpi.World)) (apps.Result, error)
	}{
		{"cg P=4", func(rec func(*mpi.World)) (apps.Result, error) {
			return apps.RunCG(&sc, apps.CGConfig{Procs: 4, N: 64, Tol: 1e-8, MaxIter: 640, Seed: 1, Record: rec})
		}},
		{"cg P=16", func(rec func(*mpi.World)) (apps.Result, error) {
			return apps.RunCG(&sc, apps.CGConfig{Procs: 16, N: 64, Tol: 1e-8, MaxIter: 640, Seed: 1, Record: rec})
		}},
		{"qr 1d P=4", func(rec func(*mpi.World)) (apps.Result, error) {
			return apps.RunQR(&sc, apps.QRConfig{Procs: 4, N: 24, Seed: 1, Grid: "1d", Record: rec})
		}},
		{"qr 2d P=4", func(rec func(*mpi.World)) (apps.Result, error) {
			return apps.RunQR(&sc, apps.QRConfig{Procs: 4, N: 24, Seed: 1, Grid: "2d", Record: rec})
		}},
	} {
		var tr *trace.Trace
		res, err := c.run(func(w *mpi.World) { tr = w.Trace() })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !res.Correct || tr == nil {
			t.Fatalf("%s: correct %v, trace %v", c.name, res.Correct, tr != nil)
		}
		plain, err := c.run(nil)
		if err != nil || plain.Cycles != res.Cycles {
			t.Fatalf("%s: recording changed the run: %d cycles recorded, %d not (%v)", c.name, res.Cycles, plain.Cycles, err)
		}
		got := replayGoal(t, &sc, tr)
		diff := (got.MaxFinish - float64(res.Cycles)) / float64(res.Cycles)
		t.Logf("%s: recorded %d cycles, replay %.0f (%+.3f%%)", c.name, res.Cycles, got.MaxFinish, 100*diff)
		if math.Abs(diff) > 0.02 {
			t.Errorf("%s: recorded %d cycles, replay %.0f: %+.2f%%, allowed 2%%", c.name, res.Cycles, got.MaxFinish, 100*diff)
		}
	}
}

// A scenario file with [output] goal writes the recorded schedule into its
// output directory, one file per point, and each replays in its point's
// recorded time.
func TestScenarioOutputGoal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.toml")
	text := "name = \"g\"\n[network]\nmesh = \"2x2\"\n[workload]\nkind = \"coll\"\nop = \"allreduce\"\nsizes = [8, 64]\n[output]\ndir = \"out\"\nplots = false\ngoal = \"ar.goal\"\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, src, err := scenarios.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(&sc, src); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(&sc, src, scenarios.Provenance{}, scenarios.RunOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	rows, err := collSweep(&sc).Run(&sc, scenarios.RunOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		f := filepath.Join(dir, "out", GoalPointPath("ar.goal", collPoint(r.Algorithm, r.Procs, r.SizeBytes)))
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := goal.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		res, err := RunGoalFlit(&sc, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.MaxFinish != float64(r.Cycles) {
			t.Errorf("%s: run %d cycles, replay of the recorded schedule %v", f, r.Cycles, res.MaxFinish)
		}
	}
	for _, c := range []struct{ extra, want string }{
		{"goal = \"sub/x.goal\"\n[workload]\nkind = \"pingpong\"", "without directory"},
		{"goal = \"results.json\"\n[workload]\nkind = \"pingpong\"", "other than"},
		{"goal = \"x.goal\"\n[workload]\nkind = \"noc\"", "kind"},
		{"goal = \"x.goal\"\n[[sweep.axis]]\nkey = \"network.vcs\"\nvalues = [1, 2]\n[workload]\nkind = \"pingpong\"", "[sweep]"},
	} {
		sc, src, err := scenarios.Decode(strings.NewReader("[network]\nmesh = \"2x2\"\n[output]\n"+c.extra+"\n"), "t.toml")
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(&sc, src); err == nil || !strings.Contains(err.Error(), "[output] goal") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want an error naming [output] goal and %q", c.extra, err, c.want)
		}
	}
}

func TestGoalPointPath(t *testing.T) {
	for in, want := range map[string]string{
		"runs.goal":                 "runs-P4.goal",
		"dir/runs.goal":             "dir/runs-P4.goal",
		"runs":                      "runs-P4",
		"dir.d/runs":                "dir.d/runs-P4",
		"a.b.goal":                  "a.b-P4.goal",
		filepath.Join("x", ".goal"): filepath.Join("x", ".goal-P4"),
	} {
		if got := GoalPointPath(in, "P4"); got != want {
			t.Errorf("GoalPointPath(%q) = %q, want %q", in, got, want)
		}
	}
}
