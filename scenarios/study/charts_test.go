package study

import (
	"strings"
	"testing"

	"nocsim/calibrate"
	"nocsim/logp"
	"nocsim/plots/plotstest"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// A machine text unlike the default's, so a title holding it was given it.
const testMachine = "3x5 mesh, niu protocol, thesis library"

// The calibration chart draws each hop count's one-way times (half the
// round trip) with the fitted model's prediction as a dashed companion,
// marks the first size past every breakpoint, ticks every size run (even
// past ten) and names the machine and the file the fit went to.
func TestCalibrationChart(t *testing.T) {
	sizes := []int{0, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, 16384, 65536}
	p := logp.Params{Protocol: "niu", Source: logp.SourceSimulator, Mesh: "3x5",
		Segments: []logp.Segment{{MaxBytes: 64, L: 20, Lh: 3, Os: 10, Or: 12, Gap: 15, G: 0.5}, {L: 40, Lh: 3, Os: 30, Or: 30, Gap: 35, G: 0.25}}}
	var cal Calibration
	cal.Report.Params, cal.Report.Breakpoints = p, []int{64}
	for _, h := range []int{1, 6} {
		for _, m := range sizes {
			cal.Measurements = append(cal.Measurements, calibrate.Measurement{Kind: calibrate.KindRTT, Bytes: m, Hops: h, Cycles: float64(200*h + 2*m)})
		}
	}
	// Not round trips: not drawn.
	cal.Measurements = append(cal.Measurements, calibrate.Measurement{Kind: "train", Bytes: 8, Hops: 1, Cycles: 5})
	var want []plotstest.SeriesWant
	var ticks []float64
	for _, h := range []int{1, 6} {
		sim := plotstest.SeriesWant{Name: "simulated, " + hopsText(h)}
		model := plotstest.SeriesWant{Name: "LogGP, " + hopsText(h), Dashed: true, Companion: true}
		for _, m := range sizes {
			x := max(float64(m), 1) // size 0 sits at 1 on the log axis
			sim.X, sim.Y = append(sim.X, x), append(sim.Y, float64(100*h+m))
			sim.Marked = append(sim.Marked, m == 128) // the first size past the 64-byte breakpoint
			model.X, model.Y = append(model.X, x), append(model.Y, p.PointToPoint(m, float64(h)))
			if h == 1 {
				ticks = append(ticks, x)
			}
		}
		want = append(want, sim, model)
	}
	c := CalibrationChart(cal, testMachine, "fit.json")
	plotstest.CheckChart(t, c, plotstest.ChartWant{Title: []string{testMachine, "fit.json"}, LogX: true, LogY: true, Ticks: ticks})
	plotstest.CheckSeries(t, c, want)
	if c.MarkLegend == "" {
		t.Error("segment starts are marked without a legend entry")
	}
	if c := CalibrationChart(cal, testMachine, ""); !strings.Contains(c.Title, "not saved") {
		t.Errorf("title %q: want it to say the fit was not saved", c.Title)
	}
	cal.Report.Params.Source = logp.SourceCSVPrefix + "m.csv"
	if c := CalibrationChart(cal, "measured in m.csv", ""); !strings.HasPrefix(c.Series[0].Name, "measured") || !strings.Contains(c.Title, "measured") {
		t.Errorf("a CSV fit's chart: title %q, series %q; want measured, not simulated", c.Title, c.Series[0].Name)
	}
}

// The latency chart: linear load axis ticked at the rates run, latency on
// a log axis, the title as given (sc.NocTitle names the machine).
func TestNocChartAxes(t *testing.T) {
	sc := scenarios.Defaults()
	rows := []report.NocRow{{Traffic: "uniform", OfferedRate: 0.1, AvgPacketLatency: 40, ZeroLoadLatency: 35, DeliveredPackets: 5},
		{Traffic: "uniform", OfferedRate: 0.3, AvgPacketLatency: 900, ZeroLoadLatency: 35, DeliveredPackets: 5, Saturated: true}}
	c := report.NocChart(rows, sc.NocTitle())
	plotstest.CheckChart(t, c, plotstest.ChartWant{Title: []string{sc.Network.Mesh + " mesh", "-flit packets", "VCs"}, LogY: true, Ticks: []float64{0.1, 0.3}})
	plotstest.CheckSeries(t, c, []plotstest.SeriesWant{
		{Name: "uniform", X: []float64{0.1, 0.3}, Y: []float64{40, 900}, Marked: []bool{false, true}},
		{Name: "uniform zero-load", X: []float64{0.1, 0.3}, Y: []float64{35, 35}, Dashed: true, Companion: true},
	})
}

// The tier chart ticks every P run, the P = 1 with nothing to draw
// included, and its title names the parameters and the machine they were
// fitted on.
func TestCollTierChart(t *testing.T) {
	rows := []report.TierRow{
		{Op: "allreduce", Algorithm: "ring", Procs: 1, SizeBytes: 8, Cycles: 0},
		{Op: "allreduce", Algorithm: "ring", Procs: 64, SizeBytes: 8, Cycles: 900},
		{Op: "allreduce", Algorithm: "ring", Procs: 1024, SizeBytes: 8, Cycles: 9000},
		{Op: "allreduce", Algorithm: "recursive-doubling", Procs: 64, SizeBytes: 8, Cycles: 500},
		{Op: "allreduce", Algorithm: "recursive-doubling", Procs: 1024, SizeBytes: 8, Cycles: 800},
	}
	name := FittedParamsName("dir/p.toml", logp.Params{Mesh: "3x5", Protocol: "niu", Source: logp.SourceSimulator})
	c := report.CollTierChart(rows, name)
	plotstest.CheckChart(t, c, plotstest.ChartWant{Title: []string{"allreduce", "LogGOPS", "p.toml", "3x5 mesh", "niu protocol"}, NotTitle: []string{"dir/"},
		LogX: true, LogY: true, Ticks: []float64{1, 64, 1024}})
	plotstest.CheckSeries(t, c, []plotstest.SeriesWant{
		{Name: "ring 8B", X: []float64{64, 1024}, Y: []float64{900, 9000}},
		{Name: "recursive-doubling 8B", X: []float64{64, 1024}, Y: []float64{500, 800}},
	})
	if n := FittedParamsName("m.toml", logp.Params{Source: logp.SourceCSVPrefix + "/x/m.csv"}); n != "fitted m.toml: measured in m.csv" {
		t.Errorf("a CSV fit is named %q", n)
	}
}
