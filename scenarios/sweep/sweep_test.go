package sweep

import (
	"fmt"
	"math"
	"nocsim/plots/plotstest"
	"nocsim/scenarios"
	"nocsim/scenarios/study"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runRows is the point runner the tests give Run: the workload runners'.
var runRows = study.WorkloadRows

const sweepTOML = `name = "t"
[network]
mesh = "2x2"
[noc]
measure_cycles = 600
warmup_cycles = 100
drain_cycles = 300
[workload]
kind = "noc"
[sweep]
reps = 2
[[sweep.axis]]
key = "noc.rates"
values = [0.05, 1.5]
[[sweep.axis]]
key = "network.vcs"
from = 1
to = 2
step = 1
`

func loadSweep(t *testing.T, dir string) ([]Point, []scenarios.Scenario) {
	t.Helper()
	path := filepath.Join(dir, "s.toml")
	os.WriteFile(path, []byte(sweepTOML), 0o644)
	sc, src, err := scenarios.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pts, scs, err := Points(&sc, src)
	if err != nil {
		t.Fatal(err)
	}
	return pts, scs
}

// Axes expand in order with repetitions (seeds derived), the output does
// not depend on the number of jobs, saturated points are recorded as such,
// and --resume runs only what is missing.
func TestSweep(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	pts, scs := loadSweep(t, a)
	if len(pts) != 2*2*2 {
		t.Fatalf("%d points, want 2 rates x 2 VC counts x 2 repetitions", len(pts))
	}
	if pts[0].Settings["noc.rates"] != "0.05" || pts[2].Settings["network.vcs"] != "2" || scs[1].Noc.Seed != scs[0].Noc.Seed+1 {
		t.Errorf("expansion order or seeds wrong: %+v %+v, seeds %d %d", pts[0], pts[2], scs[0].Noc.Seed, scs[1].Noc.Seed)
	}
	one, _, err := Run(pts, scs, filepath.Join(a, "out"), Options{Run: runRows, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	pts2, scs2 := loadSweep(t, b)
	if _, _, err := Run(pts2, scs2, filepath.Join(b, "out"), Options{Run: runRows, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary.csv", "points.jsonl", "points.csv"} {
		x, _ := os.ReadFile(filepath.Join(a, "out", f))
		y, _ := os.ReadFile(filepath.Join(b, "out", f))
		if len(x) == 0 || string(x) != string(y) {
			t.Errorf("%s differs between 1 and 2 jobs", f)
		}
	}
	sat := 0
	for _, p := range one {
		if p.Settings["noc.rates"] == "1.5" && p.Status == "saturated" {
			sat++
		}
		if p.Settings["noc.rates"] == "0.05" && p.Status != "ok" {
			t.Errorf("light point %v: %s %s", p.Settings, p.Status, p.Error)
		}
	}
	if sat != 4 {
		t.Errorf("%d of 4 overloaded points recorded as saturated", sat)
	}
	summary, _ := os.ReadFile(filepath.Join(a, "out", "summary.csv"))
	if !strings.HasPrefix(string(summary), "network.vcs,noc.rates,row,row_label,status,reps,avg_packet_latency_cycles_mean") {
		t.Errorf("summary header: %s", strings.SplitN(string(summary), "\n", 2)[0])
	}
	if !strings.Contains(string(summary), "1,0.05,0,offered_flits_per_node_cycle=0.05,ok,2,") {
		t.Errorf("summary does not label the light point's row:\n%s", summary)
	}
	checkSweepChart(t, one, &scs[0])
	// Keep the first three points, as a killed sweep would, and resume.
	log := filepath.Join(a, "out", "points.jsonl")
	full, _ := os.ReadFile(log)
	lines := strings.SplitAfter(string(full), "\n")
	os.WriteFile(log, []byte(strings.Join(lines[:3], "")), 0o644)
	pts3, scs3 := loadSweep(t, a)
	ran := 0
	_, rc, err := Run(pts3, scs3, filepath.Join(a, "out"), Options{Run: runRows, Workers: 1, Resume: true, Progress: func(done, failed, total int) { ran++ }})
	if err != nil {
		t.Fatal(err)
	}
	if ran != len(pts3)-3 || rc != (ResumeCounts{Reused: 3, Recomputed: len(pts3) - 3}) {
		t.Errorf("resume ran %d points (%+v), want %d", ran, rc, len(pts3)-3)
	}
	again, _ := os.ReadFile(log)
	if string(again) != string(full) {
		t.Error("the resumed sweep's points differ from an uninterrupted one")
	}
}

// checkSweepChart: one line per rate against the VC count, each point the
// mean of the repetitions with Student's t 95% half-width (t(0.975, 1) =
// 12.706 for two repetitions). The title names the sweep, the metric and
// the machine's parts no axis varies (not the VC count, which is swept).
func checkSweepChart(t *testing.T, pts []Point, base *scenarios.Scenario) {
	t.Helper()
	c, ok := Chart(pts, "t", base)
	if !ok || c.XLabel != "network.vcs (VCs per port)" || len(c.Series) != 2 || c.LogX {
		t.Fatalf("chart: ok %v, x %q (log %v), %d series", ok, c.XLabel, c.LogX, len(c.Series))
	}
	plotstest.CheckChart(t, c, plotstest.ChartWant{Title: []string{"sweep t", "avg_packet_latency_cycles", base.Network.Mesh + " mesh", fmt.Sprintf("%d-flit packets", base.Noc.PacketFlits)},
		NotTitle: []string{"VCs x"}, Ticks: []float64{1, 2}})
	for _, s := range c.Series {
		if len(s.Marks) != len(s.X) || s.Dashed || s.Companion || s.Reference {
			t.Errorf("%s: %d marks for %d points, dashed %v, companion %v, reference %v", s.Name, len(s.Marks), len(s.X), s.Dashed, s.Companion, s.Reference)
		}
	}
	for _, s := range c.Series {
		for i, x := range s.X {
			var v []float64
			for _, p := range pts {
				if p.Settings["network.vcs"] == fmt.Sprint(x) && strings.HasPrefix(s.Name, "noc.rates="+p.Settings["noc.rates"]+" ") {
					v = append(v, p.Values[0])
				}
			}
			if len(v) != 2 {
				t.Fatalf("%s at %v: %d repetitions", s.Name, x, len(v))
			}
			mean := (v[0] + v[1]) / 2
			half := 12.7062047 * math.Abs(v[0]-v[1]) / math.Sqrt2 / math.Sqrt2
			if math.Abs(s.Y[i]-mean) > 1e-9*mean || math.Abs(s.YErr[i]-half) > 1e-6*(half+1) {
				t.Errorf("%s at %v: mean %g ± %g, want %g ± %g", s.Name, x, s.Y[i], s.YErr[i], mean, half)
			}
		}
	}
	if err := c.Save(filepath.Join(t.TempDir(), "sweep.png"), 0, 0); err != nil {
		t.Error(err)
	}
}

func TestSweepErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"[[sweep.axis]]\nkey = \"vcs\"\nvalues = [1]\n", "section.key"},
		{"[[sweep.axis]]\nkey = \"network.vcz\"\nvalues = [1]\n", "vcz"},
		{"[[sweep.axis]]\nkey = \"network.vcs\"\nvalues = [0]\n", "vcs"},
		{"[[sweep.axis]]\nkey = \"network.vcs\"\nfrom = 3\nto = 1\nstep = 1\n", "from <= to"},
		{"[[sweep.axis]]\nkey = \"network.vcs\"\nvalus = [1]\n", "valus"},
	} {
		sc, src, err := scenarios.Decode(strings.NewReader(c.text), "s.toml")
		if err == nil {
			_, _, err = Points(&sc, src)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one mentioning %q", c.text, err, c.want)
		}
	}
}
