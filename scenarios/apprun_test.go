package scenarios

import (
	"math"
	"nocsim/scenarios/report"
	"strings"
	"testing"
)

// The slides' Hockney prediction of matrix multiply, with t_s and t_e from
// the simulator's own calibration, follows the simulated times: within
// 20% for both decompositions, and it agrees that 2d beats 1d at P=16.
func TestMatMulHockneyFollowsSimulation(t *testing.T) {
	sc := Defaults()
	sc.Network.Mesh = "4x4"
	cal, err := sc.Calibrate([]int{8, 64, 128, 1024, 4096, 16384}, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := cal.Report.Params
	pred := map[string]float64{}
	sim := map[string]float64{}
	for _, d := range []string{"1d", "2d"} {
		sw := &AppSweep{App: "matmul", Variant: d, Procs: []int{4, 16}, Sizes: []int{64}, Versions: []string{"native"}, Seed: 1, Params: &p}
		rows, err := sw.Run(&sc, RunOptions{})
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
	sc := Defaults()
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
