package scenarios

import (
	"strings"
	"testing"

	"nocsim/calibrate"
	"nocsim/logp"
	"nocsim/mpi"
	"nocsim/plots/plotstest"
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

// The thesis figures: nocsim's line and the thesis's dashed beside it, per
// P (ratio) or per version (time, speedup, the latter over the ideal
// line); titles name the figure and the machine given.
func TestThesisCharts(t *testing.T) {
	res51 := []report.ThesisResult{
		{Row: report.ThesisRow{Table: "5.1", Nonzeros: 2000, Procs: 4, NativeK: 100, MPIK: 150}, Native: 110000, MPI: 160000},
		{Row: report.ThesisRow{Table: "5.1", Nonzeros: 5000, Procs: 4, NativeK: 200, MPIK: 260}, Native: 190000, MPI: 250000},
		{Row: report.ThesisRow{Table: "5.1", Nonzeros: 2000, Procs: 8, NativeK: 60, MPIK: 120}, Native: 64000, MPI: 128000},
		{Row: report.ThesisRow{Table: "5.1", Nonzeros: 5000, Procs: 8, NativeK: 120, MPIK: 180}, Native: 100000, MPI: 200000},
	}
	nz := []float64{2000, 5000}
	// The scenario's mesh is not what the rows ran on: each P runs on
	// its own grid (P=4 on 2x2, P=8 on 4x2, P=16 on 4x4).
	sc := &Scenario{Network: Network{Mesh: "3x5"}, MPI: mpi.Config{Protocol: "niu", Library: "thesis"}}
	cs := report.ThesisCharts(res51, ThesisMachineText(res51, "m.toml", sc))
	if len(cs) != 2 || cs[0].File != "fig5.2-cg-ratio.png" || cs[1].File != "fig5.6-cg-time-p4.png" {
		t.Fatalf("table 5.1 charts: %+v", cs)
	}
	plotstest.CheckChart(t, cs[0].Chart, plotstest.ChartWant{Title: []string{"5.2", "m.toml: 2x2 mesh at P=4, 4x2 mesh at P=8, niu protocol, thesis library"}, NotTitle: []string{"3x5"}, LogX: true, Ticks: nz})
	plotstest.CheckSeries(t, cs[0].Chart, []plotstest.SeriesWant{
		{Name: "P=4 nocsim", X: nz, Y: []float64{160.0 / 110, 250.0 / 190}},
		{Name: "P=4 thesis", X: nz, Y: []float64{1.5, 1.3}, Dashed: true, Companion: true},
		{Name: "P=8 nocsim", X: nz, Y: []float64{2, 2}},
		{Name: "P=8 thesis", X: nz, Y: []float64{2, 1.5}, Dashed: true, Companion: true},
	})
	plotstest.CheckChart(t, cs[1].Chart, plotstest.ChartWant{Title: []string{"5.6", "m.toml: 2x2 mesh, niu protocol"}, NotTitle: []string{"3x5", "4x2"}, LogX: true, LogY: true, Ticks: nz})
	plotstest.CheckSeries(t, cs[1].Chart, []plotstest.SeriesWant{
		{Name: "native nocsim", X: nz, Y: []float64{110, 190}},
		{Name: "native thesis", X: nz, Y: []float64{100, 200}, Dashed: true, Companion: true},
		{Name: "MPI nocsim", X: nz, Y: []float64{160, 250}},
		{Name: "MPI thesis", X: nz, Y: []float64{150, 260}, Dashed: true, Companion: true},
	})

	res52 := []report.ThesisResult{
		{Row: report.ThesisRow{Table: "5.2", Matrix: 256, Procs: 4, NativeK: 800, MPIK: 1000}, Native: 800000, MPI: 1200000},
		{Row: report.ThesisRow{Table: "5.2", Matrix: 256, Procs: 16, NativeK: 400, MPIK: 500}, Native: 320000, MPI: 400000},
	}
	cs = report.ThesisCharts(res52, ThesisMachineText(res52, "m.toml", sc))
	if len(cs) != 1 || cs[0].File != "fig5.4-qr-speedup-256.png" {
		t.Fatalf("table 5.2 charts (one size, so no ratio line and no 512 figure): %+v", cs)
	}
	p := []float64{4, 16}
	c := cs[0].Chart
	plotstest.CheckChart(t, c, plotstest.ChartWant{Title: []string{"5.4", "2x2 mesh at P=4, 4x4 mesh at P=16, niu protocol, thesis library"}, NotTitle: []string{"3x5"}, LogX: true, Ticks: p})
	// Speedup counts the smallest P as that many processors' worth.
	plotstest.CheckSeries(t, c, []plotstest.SeriesWant{
		{Name: "native nocsim", X: p, Y: []float64{4, 10}},
		{Name: "native thesis", X: p, Y: []float64{4, 8}, Dashed: true, Companion: true},
		{Name: "MPI nocsim", X: p, Y: []float64{4, 12}},
		{Name: "MPI thesis", X: p, Y: []float64{4, 8}, Dashed: true, Companion: true},
		{Name: "ideal", X: p, Y: p, Reference: true},
	})
}

// The latency chart: linear load axis ticked at the rates run, latency on
// a log axis, the title as given (sc.NocTitle names the machine).
func TestNocChartAxes(t *testing.T) {
	sc := Defaults()
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
