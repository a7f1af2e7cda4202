package thesis

import (
	"os"
	"path/filepath"
	"testing"

	"nocsim/mpi"
	"nocsim/plots/plotstest"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

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
	sc := &scenarios.Scenario{Network: scenarios.Network{Mesh: "3x5"}, MPI: mpi.Config{Protocol: "niu", Library: "thesis"}}
	cs := report.ThesisCharts(res51, MachineText(res51, "m.toml", sc))
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
	cs = report.ThesisCharts(res52, MachineText(res52, "m.toml", sc))
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

// SaveCharts makes the directory and writes every one of Charts' files
// into it.
func TestSaveCharts(t *testing.T) {
	res := []report.ThesisResult{
		{Row: report.ThesisRow{Table: "5.1", Nonzeros: 2000, Procs: 4, NativeK: 100, MPIK: 150}, Native: 110000, MPI: 160000},
		{Row: report.ThesisRow{Table: "5.1", Nonzeros: 5000, Procs: 4, NativeK: 200, MPIK: 260}, Native: 190000, MPI: 250000},
	}
	sc := &scenarios.Scenario{Network: scenarios.Network{Mesh: "2x2"}, MPI: mpi.Config{Protocol: "niu", Library: "thesis"}}
	dir := filepath.Join(t.TempDir(), "figs")
	if err := SaveCharts(dir, res, "m.toml", sc); err != nil {
		t.Fatal(err)
	}
	cs := Charts(res, "m.toml", sc)
	if len(cs) == 0 {
		t.Fatal("no charts")
	}
	for _, ch := range cs {
		if _, err := os.Stat(filepath.Join(dir, ch.File)); err != nil {
			t.Errorf("%s: %v", ch.File, err)
		}
	}
}
