package report

import (
	"nocsim/plots/plotstest"
	"slices"
	"strings"
	"testing"
)

// A machine text unlike the default's, so a title holding it was given it.
const testMachine = "3x5 mesh, niu protocol, thesis library"

func TestBreakEvenChart(t *testing.T) {
	bs := []BreakEven{
		{Size: 16, SerialVersion: "native", HypercubeVersion: "mpi", Ratios: []ProcsRatio{{2, 0.5}, {4, 0.9}, {8, 1.4}}},
		{Size: 16, SerialVersion: "mpi", HypercubeVersion: "mpi", Ratios: []ProcsRatio{{4, 0.8}, {16, 2}}},
	}
	c := BreakEvenChart(bs, testMachine)
	plotstest.CheckChart(t, c, plotstest.ChartWant{Title: []string{"global sum", testMachine}, LogX: true, Ticks: []float64{2, 4, 8, 16}})
	plotstest.CheckSeries(t, c, []plotstest.SeriesWant{
		{Name: "serial native / hypercube mpi", Panel: "size 16 (elements)", X: []float64{2, 4, 8}, Y: []float64{0.5, 0.9, 1.4}},
		{Name: "serial mpi / hypercube mpi", Panel: "size 16 (elements)", X: []float64{4, 16}, Y: []float64{0.8, 2}, Dashed: true},
		{Name: "break-even (ratio 1)", X: []float64{2, 4, 8, 16}, Y: []float64{1, 1, 1, 1}, Reference: true},
	})
}

// The collective chart, against size or against P, one line per algorithm
// and the other dimension; with a model, its prediction follows each line
// dashed and the title names the parameters.
func TestCollChart(t *testing.T) {
	rows := []CollRow{
		{Op: "bcast", Algorithm: "binomial", Procs: 4, SizeBytes: 8, Cycles: 100, Predicted: 90},
		{Op: "bcast", Algorithm: "binomial", Procs: 4, SizeBytes: 1024, Cycles: 400, Predicted: 420},
		{Op: "bcast", Algorithm: "linear", Procs: 4, SizeBytes: 8, Cycles: 150, Predicted: 140},
		{Op: "bcast", Algorithm: "linear", Procs: 4, SizeBytes: 1024, Cycles: 700, Predicted: 650},
		{Op: "bcast", Algorithm: "binomial", Procs: 16, SizeBytes: 8, Cycles: 200, Predicted: 210},
		{Op: "bcast", Algorithm: "binomial", Procs: 16, SizeBytes: 1024, Cycles: 900, Predicted: 800},
	}
	c := CollChart(rows, "size", testMachine, "p.json")
	plotstest.CheckChart(t, c, plotstest.ChartWant{Title: []string{"bcast", testMachine, "params p.json"}, LogX: true, LogY: true, Ticks: []float64{8, 1024}})
	sz := []float64{8, 1024}
	plotstest.CheckSeries(t, c, []plotstest.SeriesWant{
		{Name: "binomial", Panel: "P=4", X: sz, Y: []float64{100, 400}},
		{Name: "binomial (LogGP)", Panel: "P=4", X: sz, Y: []float64{90, 420}, Dashed: true, Companion: true},
		{Name: "linear", Panel: "P=4", X: sz, Y: []float64{150, 700}},
		{Name: "linear (LogGP)", Panel: "P=4", X: sz, Y: []float64{140, 650}, Dashed: true, Companion: true},
		{Name: "binomial", Panel: "P=16", X: sz, Y: []float64{200, 900}},
		{Name: "binomial (LogGP)", Panel: "P=16", X: sz, Y: []float64{210, 800}, Dashed: true, Companion: true},
	})
	// One P: no panels, and the title says which.
	one := CollChart(rows[:4], "size", testMachine, "p.json")
	plotstest.CheckChart(t, one, plotstest.ChartWant{Title: []string{"bcast", testMachine, "P=4", "params p.json"}, LogX: true, LogY: true, Ticks: sz})
	plotstest.CheckSeries(t, one, []plotstest.SeriesWant{
		{Name: "binomial", X: sz, Y: []float64{100, 400}},
		{Name: "binomial (LogGP)", X: sz, Y: []float64{90, 420}, Dashed: true, Companion: true},
		{Name: "linear", X: sz, Y: []float64{150, 700}},
		{Name: "linear (LogGP)", X: sz, Y: []float64{140, 650}, Dashed: true, Companion: true},
	})

	// Against P, without a model: no companions and no parameters named.
	for i := range rows {
		rows[i].Predicted = 0
	}
	c = CollChart(rows, "procs", testMachine, "p.json")
	plotstest.CheckChart(t, c, plotstest.ChartWant{Title: []string{"bcast", testMachine}, NotTitle: []string{"p.json"}, LogX: true, LogY: true, Ticks: []float64{4, 16}})
	plotstest.CheckSeries(t, c, []plotstest.SeriesWant{
		{Name: "binomial", Panel: "8-byte messages", X: []float64{4, 16}, Y: []float64{100, 200}},
		{Name: "binomial", Panel: "1024-byte messages", X: []float64{4, 16}, Y: []float64{400, 900}},
		{Name: "linear", Panel: "8-byte messages", X: []float64{4}, Y: []float64{150}},
		{Name: "linear", Panel: "1024-byte messages", X: []float64{4}, Y: []float64{700}},
	})
}

// The ping-pong chart's title says the pair, its distance and the machine.
func TestPingPongChartTitle(t *testing.T) {
	rows := []PingRow{{SizeBytes: 8, Protocol: "niu", From: 0, To: 14, Hops: 6, OneWayCycles: 210}, {SizeBytes: 1024, Protocol: "niu", From: 0, To: 14, Hops: 6, OneWayCycles: 500}}
	plotstest.CheckChart(t, PingPongChart(rows, testMachine), plotstest.ChartWant{Title: []string{"0 <-> 14", "6 hops", testMachine}, LogX: true, LogY: true, Ticks: []float64{8, 1024}})
}

// The application charts: series per version and size against P on log
// axes ticked at the P run, the machine in every title, the parameters in
// those that draw a model.
func TestAppCharts(t *testing.T) {
	row := func(v string, p, size int, cyc int64, hockney float64) AppRow {
		return AppRow{App: "matmul", Variant: "2d", Version: v, Procs: p, Size: size, Cycles: cyc, BaselineProcs: 1, Hockney: hockney}
	}
	rows := []AppRow{row("mpi", 1, 64, 1000, 900), row("mpi", 4, 64, 400, 300), row("mpi", 16, 64, 200, 100),
		row("native", 1, 64, 800, 0), row("native", 4, 64, 250, 0), row("native", 16, 64, 100, 0)}
	for i := range rows {
		base := float64(rows[i/3*3].Cycles)
		rows[i].Speedup = base / float64(rows[i].Cycles)
		rows[i].Efficiency = rows[i].Speedup / float64(rows[i].Procs)
		if rows[i].Version == "mpi" {
			rows[i].MPIOverNative = float64(rows[i].Cycles) / float64(rows[i+3].Cycles)
		}
	}
	p := []float64{1, 4, 16}
	sp := SpeedupChart(rows, testMachine, "p.json")
	plotstest.CheckChart(t, sp, plotstest.ChartWant{Title: []string{"matmul 2d speedup", testMachine, "params p.json"}, LogX: true, LogY: true, Ticks: p})
	plotstest.CheckSeries(t, sp, []plotstest.SeriesWant{
		{Name: "mpi, size 64", X: p, Y: []float64{1, 2.5, 5}},
		{Name: "mpi, size 64 (Hockney)", X: p, Y: []float64{1, 3, 9}, Dashed: true, Companion: true},
		{Name: "native, size 64", X: p, Y: []float64{1, 3.2, 8}},
		{Name: "ideal", X: p, Y: p, Reference: true},
	})
	ef := EfficiencyChart(rows, testMachine)
	plotstest.CheckChart(t, ef, plotstest.ChartWant{Title: []string{"efficiency", testMachine}, LogX: true, Ticks: p})
	plotstest.CheckSeries(t, ef, []plotstest.SeriesWant{
		{Name: "mpi, size 64", X: p, Y: []float64{1, 2.5 / 4, 5.0 / 16}},
		{Name: "native, size 64", X: p, Y: []float64{1, 3.2 / 4, 8.0 / 16}},
	})
	tm := TimeChart(rows, 100e6, testMachine)
	plotstest.CheckChart(t, tm, plotstest.ChartWant{Title: []string{"time", testMachine, "100 MHz"}, LogX: true, LogY: true, Ticks: p})
	plotstest.CheckSeries(t, tm, []plotstest.SeriesWant{
		{Name: "mpi, size 64", X: p, Y: []float64{1000, 400, 200}},
		{Name: "native, size 64", X: p, Y: []float64{800, 250, 100}},
	})
	// Without Hockney lines the speedup chart names no parameters.
	for i := range rows {
		rows[i].Hockney = 0
	}
	plotstest.CheckChart(t, SpeedupChart(rows, testMachine, "p.json"), plotstest.ChartWant{Title: []string{testMachine}, NotTitle: []string{"p.json"}, LogX: true, LogY: true, Ticks: p})

	// The ratio chart is against size, one line per P.
	ratio := RatioChart([]AppRow{row("mpi", 4, 64, 0, 0), row("mpi", 4, 256, 0, 0), row("mpi", 16, 64, 0, 0)}, testMachine)
	plotstest.CheckSeries(t, ratio, nil)
	rr := []AppRow{{App: "cg", Version: "mpi", Procs: 4, Size: 64, MPIOverNative: 2}, {App: "cg", Version: "mpi", Procs: 4, Size: 256, MPIOverNative: 1.5},
		{App: "cg", Version: "mpi", Procs: 16, Size: 64, MPIOverNative: 3}}
	ratio = RatioChart(rr, testMachine)
	plotstest.CheckChart(t, ratio, plotstest.ChartWant{Title: []string{"cg", testMachine}, LogX: true, Ticks: []float64{64, 256}})
	plotstest.CheckSeries(t, ratio, []plotstest.SeriesWant{
		{Name: "P=4", X: []float64{64, 256}, Y: []float64{2, 1.5}},
		{Name: "P=16", X: []float64{64}, Y: []float64{3}},
	})

	// The tier chart: the runs with a prediction, the tier's dashed.
	tr := []AppRow{{App: "cg", Version: "mpi", Procs: 4, Size: 64, Cycles: 500, TierColumns: &TierColumns{TierCycles: 450}},
		{App: "cg", Version: "mpi", Procs: 16, Size: 64, Cycles: 300, TierColumns: &TierColumns{TierCycles: 330}},
		{App: "cg", Version: "native", Procs: 4, Size: 64, Cycles: 200}}
	tc := AppTierChart(tr, testMachine, "p.json")
	plotstest.CheckChart(t, tc, plotstest.ChartWant{Title: []string{"cg", testMachine, "p.json"}, LogX: true, LogY: true, Ticks: []float64{4, 16}})
	plotstest.CheckSeries(t, tc, []plotstest.SeriesWant{
		{Name: "size 64, simulated", X: []float64{4, 16}, Y: []float64{500, 300}},
		{Name: "size 64, tier", X: []float64{4, 16}, Y: []float64{450, 330}, Dashed: true, Companion: true},
	})
}

// The pairs charts: one series per pair count of the version asked for,
// bandwidth per pair in MB/s against size on a log axis; the aggregate
// chart one series per version at the largest size, against pairs on a
// log axis, with the no-sharing guide (the fewest pairs' best aggregate
// times the pair count); both titles name the machine and the placement.
func TestPairsCharts(t *testing.T) {
	var rows []PairsRow
	for _, v := range []string{"mpi", "native"} {
		for _, k := range []int{1, 2, 4} {
			for _, n := range []int{16, 1024, 65536} {
				bw := float64(n) / float64(k*100)
				if v == "native" {
					bw *= 2
				}
				rows = append(rows, PairsRow{Version: v, Placement: "across", Pairs: k, SizeBytes: n, MeanPairMBps: bw, AggregateMBps: bw * float64(k) / 2})
			}
		}
	}
	c := PairsChart(rows, "native", testMachine)
	plotstest.CheckChart(t, c, plotstest.ChartWant{Title: []string{"native DMA", "across placement", testMachine}, NotTitle: []string{"MPI"}, LogX: true, Ticks: []float64{16, 1024, 65536}})
	var want []plotstest.SeriesWant
	for _, k := range []int{1, 2, 4} {
		s := plotstest.SeriesWant{Name: pairsText(k), X: []float64{16, 1024, 65536}}
		for _, n := range []float64{16, 1024, 65536} {
			s.Y = append(s.Y, 2*n/float64(k*100))
		}
		want = append(want, s)
	}
	plotstest.CheckSeries(t, c, want)
	if !strings.Contains(c.YLabel, "MB/s") || !strings.Contains(c.XLabel, "bytes") {
		t.Errorf("labels %q, %q: want MB/s and bytes", c.YLabel, c.XLabel)
	}

	a := PairsAggregateChart(rows, testMachine)
	plotstest.CheckChart(t, a, plotstest.ChartWant{Title: []string{"65536 bytes", "across placement", testMachine}, LogX: true, Ticks: []float64{1, 2, 4}})
	agg := func(scale float64) []float64 {
		var y []float64
		for _, k := range []float64{1, 2, 4} {
			y = append(y, scale*65536/(k*100)*k/2)
		}
		return y
	}
	best := agg(2)[0] // native's one pair
	plotstest.CheckSeries(t, a, []plotstest.SeriesWant{
		{Name: "MPI Send/Recv", X: []float64{1, 2, 4}, Y: agg(1)},
		{Name: "native DMA", X: []float64{1, 2, 4}, Y: agg(2)},
		{Name: "no sharing (fewest pairs' x pairs)", X: []float64{1, 2, 4}, Y: []float64{best, 2 * best, 4 * best}, Reference: true},
	})

	// The topology comparison: one series per topology of the version
	// asked for, at the largest size, against pairs; a series that lies
	// on an earlier one is marked as the same as it, since it hides under it.
	var trows []PairsRow
	for _, topo := range []string{"mesh", "ring", "bus"} {
		for _, k := range []int{1, 2, 4} {
			bw := 4000.0
			if topo == "bus" {
				bw /= float64(k)
			}
			trows = append(trows, PairsRow{Topology: topo, Version: "native", Placement: "neighbor", Pairs: k, SizeBytes: 65536, MeanPairMBps: bw},
				PairsRow{Topology: topo, Version: "native", Placement: "neighbor", Pairs: k, SizeBytes: 16, MeanPairMBps: 1})
		}
	}
	tc := PairsTopologyChart(trows, "native", testMachine)
	plotstest.CheckChart(t, tc, plotstest.ChartWant{Title: []string{"65536 bytes", "native DMA", "neighbor placement", testMachine}, LogX: true, Ticks: []float64{1, 2, 4}})
	plotstest.CheckSeries(t, tc, []plotstest.SeriesWant{
		{Name: "mesh", X: []float64{1, 2, 4}, Y: []float64{4000, 4000, 4000}},
		{Name: "bidirectional ring", X: []float64{1, 2, 4}, Y: []float64{4000, 4000, 4000}, SameAs: "mesh"},
		{Name: "bus", X: []float64{1, 2, 4}, Y: []float64{4000, 2000, 1000}},
	})
}

// The ping-pong chart plots exactly the sizes run, one-way times as
// measured, and says what ran.
func TestPingPongChartSeries(t *testing.T) {
	rows := []PingRow{{SizeBytes: 0, Protocol: "scmp", From: 0, To: 3, Hops: 2, OneWayCycles: 200},
		{SizeBytes: 8, Protocol: "scmp", From: 0, To: 3, Hops: 2, OneWayCycles: 210},
		{SizeBytes: 1024, Protocol: "scmp", From: 0, To: 3, Hops: 2, OneWayCycles: 500}}
	c := PingPongChart(rows, "2x2 mesh, scmp protocol, nocsim library")
	if len(c.Series) != 1 || !slices.Equal(c.Series[0].X, []float64{8, 1024}) || !slices.Equal(c.Series[0].Y, []float64{210, 500}) {
		t.Errorf("series %+v: want the non-empty sizes and their one-way times", c.Series)
	}
	for _, w := range []string{"0 <-> 3", "2 hops", "scmp", "2x2"} {
		if !strings.Contains(c.Title, w) {
			t.Errorf("title %q lacks %q", c.Title, w)
		}
	}
	if !strings.Contains(c.XLabel, "bytes") || !strings.Contains(c.YLabel, "cycles") {
		t.Errorf("axis labels %q / %q: want units", c.XLabel, c.YLabel)
	}
}

// The GOAL comparison draws both tiers' finish per rank and names the
// schedule, the machine and the parameters.
func TestScheduleComparisonChart(t *testing.T) {
	cmp := &ScheduleComparison{Mesh: "3x5", Protocol: "niu", Ranks: []RankComparison{{Rank: 0, Simulated: 100, Predicted: 90}, {Rank: 1, Simulated: 300, Predicted: 310}, {Rank: 2, Simulated: 200, Predicted: 180}}}
	c := cmp.Chart("ring.goal", "p.json")
	plotstest.CheckChart(t, c, plotstest.ChartWant{Title: []string{"ring.goal", "3x5 mesh", "niu protocol", "p.json"}, Ticks: []float64{0, 1, 2}})
	r := []float64{0, 1, 2}
	plotstest.CheckSeries(t, c, []plotstest.SeriesWant{
		{Name: "simulated (flit level)", X: r, Y: []float64{100, 300, 200}},
		{Name: "predicted (LogGOPS tier)", X: r, Y: []float64{90, 310, 180}, Dashed: true},
	})
}
