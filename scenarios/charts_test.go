package scenarios

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"nocsim/calibrate"
	"nocsim/logp"
	"nocsim/mpi"
	"nocsim/plots"
)

// chartWant is what every chart test checks beyond its series: the
// phrases its title must hold (machine, protocol, library, parameters),
// phrases it must not, its log axes and the x ticks (the values run).
type chartWant struct {
	title, notTitle []string
	logX, logY      bool
	ticks           []float64
}

// checkChart checks what issue 13 asks of every chart: it validates and
// draws, both axis labels name a unit, the axes holding P or sizes are
// logarithmic, the x axis is ticked at the values run and the title says
// what ran.
func checkChart(t *testing.T, c plots.Chart, w chartWant) {
	t.Helper()
	if err := c.Validate(); err != nil {
		t.Errorf("%q: %v", c.Title, err)
	}
	if err := c.CheckLabels(); err != nil {
		t.Errorf("%q: %v", c.Title, err)
	}
	if c.LogX != w.logX || c.LogY != w.logY {
		t.Errorf("%q: log x %v, log y %v; want %v, %v", c.Title, c.LogX, c.LogY, w.logX, w.logY)
	}
	if got := c.XTickValues(); !slices.Equal(got, w.ticks) {
		t.Errorf("%q: x ticks %v, want the values run %v", c.Title, got, w.ticks)
	}
	for _, s := range w.title {
		if !strings.Contains(c.Title, s) {
			t.Errorf("title %q lacks %q", c.Title, s)
		}
	}
	for _, s := range w.notTitle {
		if strings.Contains(c.Title, s) {
			t.Errorf("title %q holds %q", c.Title, s)
		}
	}
	if err := c.Save(filepath.Join(t.TempDir(), "c.png"), 0, 0); err != nil {
		t.Errorf("%q: %v", c.Title, err)
	}
}

// seriesWant is one series as the chart should hold it: name, points and
// how it is drawn (solid measured, dashed companion model, grey reference).
type seriesWant struct {
	name                         string
	x, y                         []float64
	dashed, companion, reference bool
	marked                       []bool // nil: none marked
	sameAs                       string // the series it is named as lying on
	panel                        string // the small multiple it is drawn in
}

func checkSeries(t *testing.T, c plots.Chart, want []seriesWant) {
	t.Helper()
	if len(c.Series) != len(want) {
		var names []string
		for _, s := range c.Series {
			names = append(names, s.Name)
		}
		t.Fatalf("%q: series %q, want %d", c.Title, names, len(want))
	}
	for i, w := range want {
		s := c.Series[i]
		if s.Name != w.name || s.Dashed != w.dashed || s.Companion != w.companion || s.Reference != w.reference || s.SameAs != w.sameAs || s.Panel != w.panel {
			t.Errorf("series %d: %q dashed %v companion %v reference %v same as %q panel %q; want %q %v %v %v %q %q", i, s.Name, s.Dashed, s.Companion, s.Reference, s.SameAs, s.Panel,
				w.name, w.dashed, w.companion, w.reference, w.sameAs, w.panel)
		}
		if !slices.Equal(s.X, w.x) || !slices.Equal(s.Y, w.y) {
			t.Errorf("series %q: X %v Y %v, want %v %v", s.Name, s.X, s.Y, w.x, w.y)
		}
		marked := slices.Contains(s.Marks, true)
		if w.marked == nil && marked || w.marked != nil && !slices.Equal(s.Marks, w.marked) {
			t.Errorf("series %q: marks %v, want %v", s.Name, s.Marks, w.marked)
		}
	}
}

// A machine text unlike the default's, so a title holding it was given it.
const testMachine = "3x5 mesh, niu protocol, thesis library"

func TestBreakEvenChart(t *testing.T) {
	bs := []BreakEven{
		{Size: 16, SerialVersion: "native", HypercubeVersion: "mpi", Ratios: []ProcsRatio{{2, 0.5}, {4, 0.9}, {8, 1.4}}},
		{Size: 16, SerialVersion: "mpi", HypercubeVersion: "mpi", Ratios: []ProcsRatio{{4, 0.8}, {16, 2}}},
	}
	c := BreakEvenChart(bs, testMachine)
	checkChart(t, c, chartWant{title: []string{"global sum", testMachine}, logX: true, ticks: []float64{2, 4, 8, 16}})
	checkSeries(t, c, []seriesWant{
		{name: "serial native / hypercube mpi", panel: "size 16 (elements)", x: []float64{2, 4, 8}, y: []float64{0.5, 0.9, 1.4}},
		{name: "serial mpi / hypercube mpi", panel: "size 16 (elements)", x: []float64{4, 16}, y: []float64{0.8, 2}, dashed: true},
		{name: "break-even (ratio 1)", x: []float64{2, 4, 8, 16}, y: []float64{1, 1, 1, 1}, reference: true},
	})
}

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
	var want []seriesWant
	var ticks []float64
	for _, h := range []int{1, 6} {
		sim := seriesWant{name: "simulated, " + hopsText(h)}
		model := seriesWant{name: "LogGP, " + hopsText(h), dashed: true, companion: true}
		for _, m := range sizes {
			x := max(float64(m), 1) // size 0 sits at 1 on the log axis
			sim.x, sim.y = append(sim.x, x), append(sim.y, float64(100*h+m))
			sim.marked = append(sim.marked, m == 128) // the first size past the 64-byte breakpoint
			model.x, model.y = append(model.x, x), append(model.y, p.PointToPoint(m, float64(h)))
			if h == 1 {
				ticks = append(ticks, x)
			}
		}
		want = append(want, sim, model)
	}
	c := CalibrationChart(cal, testMachine, "fit.json")
	checkChart(t, c, chartWant{title: []string{testMachine, "fit.json"}, logX: true, logY: true, ticks: ticks})
	checkSeries(t, c, want)
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
	checkChart(t, c, chartWant{title: []string{"bcast", testMachine, "params p.json"}, logX: true, logY: true, ticks: []float64{8, 1024}})
	sz := []float64{8, 1024}
	checkSeries(t, c, []seriesWant{
		{name: "binomial", panel: "P=4", x: sz, y: []float64{100, 400}},
		{name: "binomial (LogGP)", panel: "P=4", x: sz, y: []float64{90, 420}, dashed: true, companion: true},
		{name: "linear", panel: "P=4", x: sz, y: []float64{150, 700}},
		{name: "linear (LogGP)", panel: "P=4", x: sz, y: []float64{140, 650}, dashed: true, companion: true},
		{name: "binomial", panel: "P=16", x: sz, y: []float64{200, 900}},
		{name: "binomial (LogGP)", panel: "P=16", x: sz, y: []float64{210, 800}, dashed: true, companion: true},
	})
	// One P: no panels, and the title says which.
	one := CollChart(rows[:4], "size", testMachine, "p.json")
	checkChart(t, one, chartWant{title: []string{"bcast", testMachine, "P=4", "params p.json"}, logX: true, logY: true, ticks: sz})
	checkSeries(t, one, []seriesWant{
		{name: "binomial", x: sz, y: []float64{100, 400}},
		{name: "binomial (LogGP)", x: sz, y: []float64{90, 420}, dashed: true, companion: true},
		{name: "linear", x: sz, y: []float64{150, 700}},
		{name: "linear (LogGP)", x: sz, y: []float64{140, 650}, dashed: true, companion: true},
	})

	// Against P, without a model: no companions and no parameters named.
	for i := range rows {
		rows[i].Predicted = 0
	}
	c = CollChart(rows, "procs", testMachine, "p.json")
	checkChart(t, c, chartWant{title: []string{"bcast", testMachine}, notTitle: []string{"p.json"}, logX: true, logY: true, ticks: []float64{4, 16}})
	checkSeries(t, c, []seriesWant{
		{name: "binomial", panel: "8-byte messages", x: []float64{4, 16}, y: []float64{100, 200}},
		{name: "binomial", panel: "1024-byte messages", x: []float64{4, 16}, y: []float64{400, 900}},
		{name: "linear", panel: "8-byte messages", x: []float64{4}, y: []float64{150}},
		{name: "linear", panel: "1024-byte messages", x: []float64{4}, y: []float64{700}},
	})
}

// The tier chart ticks every P run, the P = 1 with nothing to draw
// included, and its title names the parameters and the machine they were
// fitted on.
func TestCollTierChart(t *testing.T) {
	rows := []TierRow{
		{Op: "allreduce", Algorithm: "ring", Procs: 1, SizeBytes: 8, Cycles: 0},
		{Op: "allreduce", Algorithm: "ring", Procs: 64, SizeBytes: 8, Cycles: 900},
		{Op: "allreduce", Algorithm: "ring", Procs: 1024, SizeBytes: 8, Cycles: 9000},
		{Op: "allreduce", Algorithm: "recursive-doubling", Procs: 64, SizeBytes: 8, Cycles: 500},
		{Op: "allreduce", Algorithm: "recursive-doubling", Procs: 1024, SizeBytes: 8, Cycles: 800},
	}
	name := FittedParamsName("dir/p.toml", logp.Params{Mesh: "3x5", Protocol: "niu", Source: logp.SourceSimulator})
	c := CollTierChart(rows, name)
	checkChart(t, c, chartWant{title: []string{"allreduce", "LogGOPS", "p.toml", "3x5 mesh", "niu protocol"}, notTitle: []string{"dir/"},
		logX: true, logY: true, ticks: []float64{1, 64, 1024}})
	checkSeries(t, c, []seriesWant{
		{name: "ring 8B", x: []float64{64, 1024}, y: []float64{900, 9000}},
		{name: "recursive-doubling 8B", x: []float64{64, 1024}, y: []float64{500, 800}},
	})
	if n := FittedParamsName("m.toml", logp.Params{Source: logp.SourceCSVPrefix + "/x/m.csv"}); n != "fitted m.toml: measured in m.csv" {
		t.Errorf("a CSV fit is named %q", n)
	}
}

// The thesis figures: nocsim's line and the thesis's dashed beside it, per
// P (ratio) or per version (time, speedup, the latter over the ideal
// line); titles name the figure and the machine given.
func TestThesisCharts(t *testing.T) {
	res51 := []ThesisResult{
		{Row: ThesisRow{Table: "5.1", Nonzeros: 2000, Procs: 4, NativeK: 100, MPIK: 150}, Native: 110000, MPI: 160000},
		{Row: ThesisRow{Table: "5.1", Nonzeros: 5000, Procs: 4, NativeK: 200, MPIK: 260}, Native: 190000, MPI: 250000},
		{Row: ThesisRow{Table: "5.1", Nonzeros: 2000, Procs: 8, NativeK: 60, MPIK: 120}, Native: 64000, MPI: 128000},
		{Row: ThesisRow{Table: "5.1", Nonzeros: 5000, Procs: 8, NativeK: 120, MPIK: 180}, Native: 100000, MPI: 200000},
	}
	nz := []float64{2000, 5000}
	// The scenario's mesh is not what the rows ran on: each P runs on
	// its own grid (P=4 on 2x2, P=8 on 4x2, P=16 on 4x4).
	sc := &Scenario{Network: Network{Mesh: "3x5"}, MPI: mpi.Config{Protocol: "niu", Library: "thesis"}}
	cs := ThesisCharts(res51, "m.toml", sc)
	if len(cs) != 2 || cs[0].File != "fig5.2-cg-ratio.png" || cs[1].File != "fig5.6-cg-time-p4.png" {
		t.Fatalf("table 5.1 charts: %+v", cs)
	}
	checkChart(t, cs[0].Chart, chartWant{title: []string{"5.2", "m.toml: 2x2 mesh at P=4, 4x2 mesh at P=8, niu protocol, thesis library"}, notTitle: []string{"3x5"}, logX: true, ticks: nz})
	checkSeries(t, cs[0].Chart, []seriesWant{
		{name: "P=4 nocsim", x: nz, y: []float64{160.0 / 110, 250.0 / 190}},
		{name: "P=4 thesis", x: nz, y: []float64{1.5, 1.3}, dashed: true, companion: true},
		{name: "P=8 nocsim", x: nz, y: []float64{2, 2}},
		{name: "P=8 thesis", x: nz, y: []float64{2, 1.5}, dashed: true, companion: true},
	})
	checkChart(t, cs[1].Chart, chartWant{title: []string{"5.6", "m.toml: 2x2 mesh, niu protocol"}, notTitle: []string{"3x5", "4x2"}, logX: true, logY: true, ticks: nz})
	checkSeries(t, cs[1].Chart, []seriesWant{
		{name: "native nocsim", x: nz, y: []float64{110, 190}},
		{name: "native thesis", x: nz, y: []float64{100, 200}, dashed: true, companion: true},
		{name: "MPI nocsim", x: nz, y: []float64{160, 250}},
		{name: "MPI thesis", x: nz, y: []float64{150, 260}, dashed: true, companion: true},
	})

	res52 := []ThesisResult{
		{Row: ThesisRow{Table: "5.2", Matrix: 256, Procs: 4, NativeK: 800, MPIK: 1000}, Native: 800000, MPI: 1200000},
		{Row: ThesisRow{Table: "5.2", Matrix: 256, Procs: 16, NativeK: 400, MPIK: 500}, Native: 320000, MPI: 400000},
	}
	cs = ThesisCharts(res52, "m.toml", sc)
	if len(cs) != 1 || cs[0].File != "fig5.4-qr-speedup-256.png" {
		t.Fatalf("table 5.2 charts (one size, so no ratio line and no 512 figure): %+v", cs)
	}
	p := []float64{4, 16}
	c := cs[0].Chart
	checkChart(t, c, chartWant{title: []string{"5.4", "2x2 mesh at P=4, 4x4 mesh at P=16, niu protocol, thesis library"}, notTitle: []string{"3x5"}, logX: true, ticks: p})
	// Speedup counts the smallest P as that many processors' worth.
	checkSeries(t, c, []seriesWant{
		{name: "native nocsim", x: p, y: []float64{4, 10}},
		{name: "native thesis", x: p, y: []float64{4, 8}, dashed: true, companion: true},
		{name: "MPI nocsim", x: p, y: []float64{4, 12}},
		{name: "MPI thesis", x: p, y: []float64{4, 8}, dashed: true, companion: true},
		{name: "ideal", x: p, y: p, reference: true},
	})
}

// The GOAL comparison draws both tiers' finish per rank and names the
// schedule, the machine and the parameters.
func TestScheduleComparisonChart(t *testing.T) {
	cmp := &ScheduleComparison{Mesh: "3x5", Protocol: "niu", Ranks: []RankComparison{{Rank: 0, Simulated: 100, Predicted: 90}, {Rank: 1, Simulated: 300, Predicted: 310}, {Rank: 2, Simulated: 200, Predicted: 180}}}
	c := cmp.Chart("ring.goal", "p.json")
	checkChart(t, c, chartWant{title: []string{"ring.goal", "3x5 mesh", "niu protocol", "p.json"}, ticks: []float64{0, 1, 2}})
	r := []float64{0, 1, 2}
	checkSeries(t, c, []seriesWant{
		{name: "simulated (flit level)", x: r, y: []float64{100, 300, 200}},
		{name: "predicted (LogGOPS tier)", x: r, y: []float64{90, 310, 180}, dashed: true},
	})
}

// The ping-pong chart's title says the pair, its distance and the machine.
func TestPingPongChartTitle(t *testing.T) {
	rows := []PingRow{{SizeBytes: 8, Protocol: "niu", From: 0, To: 14, Hops: 6, OneWayCycles: 210}, {SizeBytes: 1024, Protocol: "niu", From: 0, To: 14, Hops: 6, OneWayCycles: 500}}
	checkChart(t, PingPongChart(rows, testMachine), chartWant{title: []string{"0 <-> 14", "6 hops", testMachine}, logX: true, logY: true, ticks: []float64{8, 1024}})
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
	checkChart(t, sp, chartWant{title: []string{"matmul 2d speedup", testMachine, "params p.json"}, logX: true, logY: true, ticks: p})
	checkSeries(t, sp, []seriesWant{
		{name: "mpi, size 64", x: p, y: []float64{1, 2.5, 5}},
		{name: "mpi, size 64 (Hockney)", x: p, y: []float64{1, 3, 9}, dashed: true, companion: true},
		{name: "native, size 64", x: p, y: []float64{1, 3.2, 8}},
		{name: "ideal", x: p, y: p, reference: true},
	})
	ef := EfficiencyChart(rows, testMachine)
	checkChart(t, ef, chartWant{title: []string{"efficiency", testMachine}, logX: true, ticks: p})
	checkSeries(t, ef, []seriesWant{
		{name: "mpi, size 64", x: p, y: []float64{1, 2.5 / 4, 5.0 / 16}},
		{name: "native, size 64", x: p, y: []float64{1, 3.2 / 4, 8.0 / 16}},
	})
	tm := TimeChart(rows, 100e6, testMachine)
	checkChart(t, tm, chartWant{title: []string{"time", testMachine, "100 MHz"}, logX: true, logY: true, ticks: p})
	checkSeries(t, tm, []seriesWant{
		{name: "mpi, size 64", x: p, y: []float64{1000, 400, 200}},
		{name: "native, size 64", x: p, y: []float64{800, 250, 100}},
	})
	// Without Hockney lines the speedup chart names no parameters.
	for i := range rows {
		rows[i].Hockney = 0
	}
	checkChart(t, SpeedupChart(rows, testMachine, "p.json"), chartWant{title: []string{testMachine}, notTitle: []string{"p.json"}, logX: true, logY: true, ticks: p})

	// The ratio chart is against size, one line per P.
	ratio := RatioChart([]AppRow{row("mpi", 4, 64, 0, 0), row("mpi", 4, 256, 0, 0), row("mpi", 16, 64, 0, 0)}, testMachine)
	checkSeries(t, ratio, nil)
	rr := []AppRow{{App: "cg", Version: "mpi", Procs: 4, Size: 64, MPIOverNative: 2}, {App: "cg", Version: "mpi", Procs: 4, Size: 256, MPIOverNative: 1.5},
		{App: "cg", Version: "mpi", Procs: 16, Size: 64, MPIOverNative: 3}}
	ratio = RatioChart(rr, testMachine)
	checkChart(t, ratio, chartWant{title: []string{"cg", testMachine}, logX: true, ticks: []float64{64, 256}})
	checkSeries(t, ratio, []seriesWant{
		{name: "P=4", x: []float64{64, 256}, y: []float64{2, 1.5}},
		{name: "P=16", x: []float64{64}, y: []float64{3}},
	})

	// The tier chart: the runs with a prediction, the tier's dashed.
	tr := []AppRow{{App: "cg", Version: "mpi", Procs: 4, Size: 64, Cycles: 500, TierColumns: &TierColumns{TierCycles: 450}},
		{App: "cg", Version: "mpi", Procs: 16, Size: 64, Cycles: 300, TierColumns: &TierColumns{TierCycles: 330}},
		{App: "cg", Version: "native", Procs: 4, Size: 64, Cycles: 200}}
	tc := AppTierChart(tr, testMachine, "p.json")
	checkChart(t, tc, chartWant{title: []string{"cg", testMachine, "p.json"}, logX: true, logY: true, ticks: []float64{4, 16}})
	checkSeries(t, tc, []seriesWant{
		{name: "size 64, simulated", x: []float64{4, 16}, y: []float64{500, 300}},
		{name: "size 64, tier", x: []float64{4, 16}, y: []float64{450, 330}, dashed: true, companion: true},
	})
}

// The sweep chart's title names only the machine parts no axis varies; a
// rank-count axis is logarithmic, labelled with its unit.
func TestSweepChartMachineAndAxes(t *testing.T) {
	sc := Defaults()
	sc.Network.Mesh, sc.MPI.Protocol, sc.MPI.Library = "3x5", "niu", "thesis"
	sc.Workload.Kind = "coll"
	var pts []SweepPoint
	for i, p := range []string{"2", "4", "8"} {
		for _, proto := range []string{"scmp", "eager"} {
			pts = append(pts, SweepPoint{Index: len(pts), Settings: map[string]string{"workload.procs": p, "mpi.protocol": proto}, Status: "ok",
				Metric: "cycles", Values: []float64{float64(100 * (i + 1))}, RowStatus: []string{"ok"}})
		}
	}
	c, ok := SweepChart(pts, "s", &sc)
	if !ok {
		t.Fatal("no chart")
	}
	checkChart(t, c, chartWant{title: []string{"sweep s", "3x5 mesh", "thesis library"}, notTitle: []string{"niu"}, logX: true, ticks: []float64{2, 4, 8}})
	if c.XLabel != "workload.procs (ranks, log scale)" {
		t.Errorf("x label %q", c.XLabel)
	}
	if names := []string{c.Series[0].Name, c.Series[len(c.Series)-1].Name}; len(c.Series) != 2 || !slices.Contains(names, "mpi.protocol=eager") || !slices.Contains(names, "mpi.protocol=scmp") {
		t.Errorf("series %+v: want one per protocol", c.Series)
	}
	// Without the scenario the chart is still drawn, the title without a machine.
	if c, _ := SweepChart(pts, "s", nil); strings.Contains(c.Title, "mesh") {
		t.Errorf("title %q names a machine it was not given", c.Title)
	}
	// A swept preset varies the whole network.
	if m := sc.fixedMachineText([]string{"network.preset"}); strings.Contains(m, "mesh") || !strings.Contains(m, "niu protocol") {
		t.Errorf("preset swept: %q", m)
	}
	noc := Defaults()
	if m := noc.fixedMachineText(nil); m != fmt.Sprintf("%s mesh, %d-flit packets, %d VCs x %d flits", noc.Network.Mesh, noc.Noc.PacketFlits, noc.Network.VCs, noc.Network.VCBuf) {
		t.Errorf("noc machine %q", m)
	}
}

// The latency chart: linear load axis ticked at the rates run, latency on
// a log axis, the title as given (sc.NocTitle names the machine).
func TestNocChartAxes(t *testing.T) {
	sc := Defaults()
	rows := []NocRow{{Traffic: "uniform", OfferedRate: 0.1, AvgPacketLatency: 40, ZeroLoadLatency: 35, DeliveredPackets: 5},
		{Traffic: "uniform", OfferedRate: 0.3, AvgPacketLatency: 900, ZeroLoadLatency: 35, DeliveredPackets: 5, Saturated: true}}
	c := NocChart(rows, sc.NocTitle())
	checkChart(t, c, chartWant{title: []string{sc.Network.Mesh + " mesh", "-flit packets", "VCs"}, logY: true, ticks: []float64{0.1, 0.3}})
	checkSeries(t, c, []seriesWant{
		{name: "uniform", x: []float64{0.1, 0.3}, y: []float64{40, 900}, marked: []bool{false, true}},
		{name: "uniform zero-load", x: []float64{0.1, 0.3}, y: []float64{35, 35}, dashed: true, companion: true},
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
	checkChart(t, c, chartWant{title: []string{"native DMA", "across placement", testMachine}, notTitle: []string{"MPI"}, logX: true, ticks: []float64{16, 1024, 65536}})
	var want []seriesWant
	for _, k := range []int{1, 2, 4} {
		s := seriesWant{name: pairsText(k), x: []float64{16, 1024, 65536}}
		for _, n := range []float64{16, 1024, 65536} {
			s.y = append(s.y, 2*n/float64(k*100))
		}
		want = append(want, s)
	}
	checkSeries(t, c, want)
	if !strings.Contains(c.YLabel, "MB/s") || !strings.Contains(c.XLabel, "bytes") {
		t.Errorf("labels %q, %q: want MB/s and bytes", c.YLabel, c.XLabel)
	}

	a := PairsAggregateChart(rows, testMachine)
	checkChart(t, a, chartWant{title: []string{"65536 bytes", "across placement", testMachine}, logX: true, ticks: []float64{1, 2, 4}})
	agg := func(scale float64) []float64 {
		var y []float64
		for _, k := range []float64{1, 2, 4} {
			y = append(y, scale*65536/(k*100)*k/2)
		}
		return y
	}
	best := agg(2)[0] // native's one pair
	checkSeries(t, a, []seriesWant{
		{name: "MPI Send/Recv", x: []float64{1, 2, 4}, y: agg(1)},
		{name: "native DMA", x: []float64{1, 2, 4}, y: agg(2)},
		{name: "no sharing (fewest pairs' x pairs)", x: []float64{1, 2, 4}, y: []float64{best, 2 * best, 4 * best}, reference: true},
	})

	// The topology comparison: one series per topology of the version
	// asked for, at the largest size, against pairs; a series that lies
	// on an earlier one is marked as the same as it, since it hides under it.
	var trows []PairsRow
	for _, topo := range []string{TopoMesh, TopoRing, TopoBus} {
		for _, k := range []int{1, 2, 4} {
			bw := 4000.0
			if topo == TopoBus {
				bw /= float64(k)
			}
			trows = append(trows, PairsRow{Topology: topo, Version: "native", Placement: "neighbor", Pairs: k, SizeBytes: 65536, MeanPairMBps: bw},
				PairsRow{Topology: topo, Version: "native", Placement: "neighbor", Pairs: k, SizeBytes: 16, MeanPairMBps: 1})
		}
	}
	tc := PairsTopologyChart(trows, "native", testMachine)
	checkChart(t, tc, chartWant{title: []string{"65536 bytes", "native DMA", "neighbor placement", testMachine}, logX: true, ticks: []float64{1, 2, 4}})
	checkSeries(t, tc, []seriesWant{
		{name: "mesh", x: []float64{1, 2, 4}, y: []float64{4000, 4000, 4000}},
		{name: "bidirectional ring", x: []float64{1, 2, 4}, y: []float64{4000, 4000, 4000}, sameAs: "mesh"},
		{name: "bus", x: []float64{1, 2, 4}, y: []float64{4000, 2000, 1000}},
	})
}
