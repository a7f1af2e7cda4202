package study

import (
	"fmt"
	"math"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"strings"
	"testing"
)

// The slides' Hockney prediction of matrix multiply, with t_s and t_e from
// the simulator's own calibration, follows the simulated times: within
// 20% for both decompositions, and it agrees that 2d beats 1d at P=16.
func TestMatMulHockneyFollowsSimulation(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	cal, err := Calibrate(&sc, []int{8, 64, 128, 1024, 4096, 16384}, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := cal.Report.Params
	pred := map[string]float64{}
	sim := map[string]float64{}
	for _, d := range []string{"1d", "2d"} {
		sw := &AppSweep{App: "matmul", Variant: d, Procs: []int{4, 16}, Sizes: []int{64}, Versions: []string{"native"}, Seed: 1, Params: &p}
		rows, err := sw.Run(&sc, scenarios.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if rel := math.Abs(r.Hockney-float64(r.Cycles)) / float64(r.Cycles); rel > 0.20 {
				t.Errorf("%s P=%d: Hockney %.0f, simulated %d (%.0f%% off)", d, r.Procs, r.Hockney, r.Cycles, 100*rel)
			}
			if r.Procs == 16 {
				pred[d], sim[d] = r.Hockney, float64(r.Cycles)
			}
		}
	}
	if !(pred["2d"] < pred["1d"] && sim["2d"] < sim["1d"]) {
		t.Errorf("P=16: predicted 2d %.0f vs 1d %.0f, simulated %.0f vs %.0f: both should favour 2d", pred["2d"], pred["1d"], sim["2d"], sim["1d"])
	}
	c := report.RatioChart([]report.AppRow{{App: "cg", Version: "mpi", Procs: 4, Size: 64, MPIOverNative: 2}, {App: "cg", Version: "mpi", Procs: 4, Size: 256, MPIOverNative: 1.5}}, "machine-text")
	if len(c.Series) != 1 || len(c.Series[0].X) != 2 || c.Validate() != nil {
		t.Errorf("ratio chart: %+v", c)
	}
}

// Every app chart's title names the machine it ran on, as the collective
// charts do.
func TestAppChartTitlesNameTheMachine(t *testing.T) {
	sc := scenarios.Defaults()
	machine := sc.MachineText()
	rows := []report.AppRow{
		{App: "cg", Version: "mpi", Procs: 1, Size: 64, Cycles: 1000, BaselineProcs: 1, Speedup: 1, Efficiency: 1, MPIOverNative: 2},
		{App: "cg", Version: "mpi", Procs: 4, Size: 64, Cycles: 400, BaselineProcs: 1, Speedup: 2.5, Efficiency: 0.625, MPIOverNative: 1.5},
	}
	for name, title := range map[string]string{
		"speedup":    report.SpeedupChart(rows, machine, "").Title,
		"efficiency": report.EfficiencyChart(rows, machine).Title,
		"time":       report.TimeChart(rows, sc.Node.ClockHz, machine).Title,
		"ratio":      report.RatioChart(rows, machine).Title,
		"tier":       report.AppTierChart(rows, machine, "params.json").Title,
	} {
		if !strings.Contains(title, machine) {
			t.Errorf("%s chart title %q does not name the machine %q", name, title, machine)
		}
	}
}

// scenario4x4 is the default scenario on a 4x4 mesh.
func scenario4x4() *scenarios.Scenario {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	return &sc
}

// The comparison sweeps run every method, the same rows whatever the
// number of workers, and refuse a native version.
func TestOneSidedSweeps(t *testing.T) {
	sc := scenario4x4()
	for _, sw := range []AppSweep{
		{App: "halo", Variant: "compare", Procs: []int{2, 4}, Sizes: []int{8}, Versions: []string{"mpi"}, Seed: 3},
		{App: "globalsum", Variant: "rma", Procs: []int{2, 4}, Sizes: []int{8}, Versions: []string{"mpi"}, Seed: 3},
	} {
		if err := sw.Check(sc, nil); err != nil {
			t.Fatalf("%s %s: %v", sw.App, sw.Variant, err)
		}
		a, err := sw.Run(sc, scenarios.RunOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		b, err := sw.Run(sc, scenarios.RunOptions{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != len(sw.methods())*4/2 || len(a) != len(b) {
			t.Fatalf("%s %s: %d and %d rows for %d methods", sw.App, sw.Variant, len(a), len(b), len(sw.methods()))
		}
		for i := range a {
			if a[i].Cycles != b[i].Cycles || a[i].Variant != b[i].Variant || !a[i].Correct {
				t.Errorf("%s row %d: %+v vs %+v", sw.App, i, a[i], b[i])
			}
		}
		sw.Versions = []string{"mpi", "native"}
		if err := sw.Check(sc, nil); err == nil || !strings.Contains(err.Error(), "versions") {
			t.Errorf("%s %s with native: error %v", sw.App, sw.Variant, err)
		}
	}
}

// The grid text parses to X, Y >= 1 that print back as the same text, or
// is refused naming the key; nothing panics.
func FuzzAppSweepGrid(f *testing.F) {
	for _, s := range []string{"8x4", "2x2", "0x4", "x", "4x", "08x4", "-1x2", "3x3x3", "99999999999999999999x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sw := AppSweep{App: "qr", Variant: "thesis", Grid: text}
		x, y, err := sw.grid()
		if err != nil {
			if !strings.Contains(err.Error(), "grid") {
				t.Errorf("%q: error %v does not name the key", text, err)
			}
			return
		}
		if text == "" {
			if x != 0 || y != 0 {
				t.Errorf("empty grid gave %dx%d", x, y)
			}
			return
		}
		if x < 1 || y < 1 || fmt.Sprintf("%dx%d", x, y) != text {
			t.Errorf("%q parsed as %dx%d", text, x, y)
		}
	})
}
