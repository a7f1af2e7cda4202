package report

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"nocsim/endpoint/traffic"
	"nocsim/plots"
	"nocsim/plots/plotstest"
)

// energyRow is a priced point: total power, its clock and leakage parts,
// and energy per delivered flit; every other figure follows from them
// (a window of 10 us).
func energyRow(traffic string, rate, powerMW, clockMW, leakMW, perFlit float64, sat bool) NocRow {
	const secs = 1e-5
	pj := func(mw float64) float64 { return mw * 1e-3 * secs * 1e12 }
	e := &Energy{Model: "dsent", Tech: "22nm", FlitBits: 64, ClockHz: 1e9, PowerMW: powerMW, TotalPJ: pj(powerMW), PerFlitPJ: perFlit,
		ClockPJ: pj(clockMW), LeakagePJ: pj(leakMW), DynamicPJ: pj(powerMW - clockMW - leakMW),
		Components: []EnergyComponent{
			{Name: "buffer write", Kind: "dynamic", PJ: pj(powerMW - clockMW - leakMW), PowerMW: powerMW - clockMW - leakMW},
			{Name: "router clock", Kind: "clock", PJ: pj(clockMW), PowerMW: clockMW},
			{Name: "router leakage", Kind: "leakage", PJ: pj(leakMW), PowerMW: leakMW},
		}}
	return NocRow{Traffic: traffic, OfferedRate: rate, Saturated: sat, Energy: e}
}

// The power chart is the rows' power, one line per pattern, saturated
// points marked but joined; the static power (clock + leakage) dashed:
// once, as a guide, when the patterns' coincide (the same routers over
// the same window), else as each pattern's companion. The title names
// what ran and the model.
func TestNocPowerChart(t *testing.T) {
	rows := []NocRow{
		energyRow("uniform", 0.05, 150, 20, 100, 300, false),
		energyRow("uniform", 0.3, 260, 20, 100, 40, false),
		energyRow("transpose", 0.05, 151, 20, 100, 310, false),
		energyRow("uniform", 0.5, 300, 20, 100, 35, true),
		energyRow("transpose", 0.3, 200, 20, 100, 60, true),
		energyRow("transpose", 0.5, 205, 20, 100, 55, true),
	}
	x := []float64{0.05, 0.3, 0.5}
	c := NocPowerChart(rows, testMachine)
	want := plotstest.ChartWant{Title: []string{"power", testMachine, "dsent model", "22nm", "64-bit flits"}, Ticks: x}
	plotstest.CheckChart(t, c, want)
	plotstest.CheckSeries(t, c, []plotstest.SeriesWant{
		{Name: "uniform total", X: x, Y: []float64{150, 260, 300}, Marked: []bool{false, false, true}},
		{Name: "transpose total", X: x, Y: []float64{151, 200, 205}, Marked: []bool{false, true, true}},
		{Name: "leakage + clock (every pattern)", X: x, Y: []float64{120, 120, 120}, Dashed: true, Reference: true},
	})
	if !c.Series[0].JoinMarked || c.MarkLegend == "" {
		t.Errorf("saturated points: joined %v, legend %q; want joined and named", c.Series[0].JoinMarked, c.MarkLegend)
	}
	// The series' power is the rows' own, point for point.
	for _, r := range rows {
		s := c.Series[0]
		if r.Traffic == "transpose" {
			s = c.Series[1]
		}
		found := false
		for i := range s.X {
			found = found || s.X[i] == r.OfferedRate && s.Y[i] == r.Energy.PowerMW
		}
		if !found {
			t.Errorf("%s at %g: power %g not drawn", r.Traffic, r.OfferedRate, r.Energy.PowerMW)
		}
	}
	lay, err := c.Layout(0, 0)
	if err != nil || lay.Check() != nil {
		t.Errorf("layout: %v, %v", err, lay.Check())
	}

	// Static power that differs (patterns run at other loads): each
	// pattern's own dashed companion.
	rows[2] = energyRow("transpose", 0.1, 151, 20, 100, 310, false)
	c = NocPowerChart(rows, testMachine)
	plotstest.CheckSeries(t, c, []plotstest.SeriesWant{
		{Name: "uniform total", X: x, Y: []float64{150, 260, 300}, Marked: []bool{false, false, true}},
		{Name: "uniform leakage + clock", X: x, Y: []float64{120, 120, 120}, Dashed: true, Companion: true},
		{Name: "transpose total", X: []float64{0.1, 0.3, 0.5}, Y: []float64{151, 200, 205}, Marked: []bool{false, true, true}},
		{Name: "transpose leakage + clock", X: []float64{0.1, 0.3, 0.5}, Y: []float64{120, 120, 120}, Dashed: true, Companion: true},
	})
}

// The per-flit chart is the rows' energy per delivered flit, and the
// clock and leakage share of it dashed; a point that delivered nothing has
// none and is left out.
func TestNocPerFlitChart(t *testing.T) {
	rows := []NocRow{
		energyRow("uniform", 0, 120, 20, 100, 0, false), // nothing delivered
		energyRow("uniform", 0.05, 150, 20, 100, 300, false),
		energyRow("uniform", 0.3, 240, 20, 100, 40, true),
	}
	c := NocPerFlitChart(rows, testMachine)
	plotstest.CheckChart(t, c, plotstest.ChartWant{Title: []string{"energy per delivered flit", testMachine, "dsent model"}, Ticks: []float64{0.05, 0.3}})
	plotstest.CheckSeries(t, c, []plotstest.SeriesWant{
		{Name: "uniform total", X: []float64{0.05, 0.3}, Y: []float64{300, 40}, Marked: []bool{false, true}},
		{Name: "uniform leakage + clock", X: []float64{0.05, 0.3}, Y: c.Series[1].Y, Dashed: true, Companion: true},
	})
	for i, want := range []float64{300 * 120 / 150.0, 40 * 120 / 240.0} {
		if got := c.Series[1].Y[i]; math.Abs(got-want) > 1e-9*want {
			t.Errorf("static share at point %d: %g pJ, want %g", i, got, want)
		}
	}
	if len(NocPerFlitChart(rows[:1], testMachine).Series) != 0 {
		t.Error("a sweep that delivered nothing has a per-flit series")
	}
}

// The power map: a cell per router at its place on the grid, valued at
// its power, so that the cells sum to the routers' power; an arrow per
// link from cell edge to cell edge, to the right of the line between the
// routers; a torus's wrap-around link as two stubs at the grid's edges.
func TestNocPowerMap(t *testing.T) {
	links := []traffic.LinkVCFlits{
		{From: 0, To: 1, Dir: "E"}, {From: 0, To: 3, Dir: "S"}, {From: 1, To: 0, Dir: "W"},
		{From: 2, To: 0, Dir: "E"}, // wraps round
	}
	p := PowerMapPoint{Machine: testMachine, Traffic: "uniform", Rate: 0.4, Energy: "dsent model, 45nm, 32-bit flits",
		Cols: 3, Rows: 2, RouterMW: []float64{1, 2, 3, 4, 5, 6}, Links: links, LinkMW: []float64{0.5, 0.25, 0.125, 1}}
	m, err := NocPowerMap(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckLabels(); err != nil {
		t.Error(err)
	}
	for _, s := range []string{"uniform", "0.400 flits/node/cycle", testMachine, "dsent model", "clock and leakage left out"} {
		if !strings.Contains(m.Title, s) {
			t.Errorf("title %q lacks %q", m.Title, s)
		}
	}
	if !strings.Contains(m.CellLabel, "(mW)") || !strings.Contains(m.SegmentLabel, "(mW)") {
		t.Errorf("colour bars %q, %q: want mW", m.CellLabel, m.SegmentLabel)
	}
	sum := 0.0
	for i, c := range m.Cells {
		if c.Col != i%3 || c.Row != i/3 || c.Value != p.RouterMW[i] {
			t.Errorf("cell %d: (%d,%d) = %g, want (%d,%d) = %g", i, c.Col, c.Row, c.Value, i%3, i/3, p.RouterMW[i])
		}
		sum += c.Value
	}
	if sum != 21 {
		t.Errorf("cells sum to %g mW, the routers draw 21", sum)
	}
	h := plots.MapCellSide/2 + cellGap
	want := []plots.MapSegment{
		{X0: h, Y0: laneOffset, X1: 1 - h, Y1: laneOffset, Value: 0.5},     // east, lane to the south
		{X0: -laneOffset, Y0: h, X1: -laneOffset, Y1: 1 - h, Value: 0.25},  // south, lane to the west
		{X0: 1 - h, Y0: -laneOffset, X1: h, Y1: -laneOffset, Value: 0.125}, // west, lane to the north
		{X0: 2 + h, Y0: laneOffset, X1: 2.5, Y1: laneOffset, Value: 1},     // out of the east edge
		{X0: -0.5, Y0: laneOffset, X1: -h, Y1: laneOffset, Value: 1},       // in from the west edge
	}
	if len(m.Segments) != len(want) {
		t.Fatalf("%d segments, want %d", len(m.Segments), len(want))
	}
	for i, w := range want {
		g := m.Segments[i]
		if math.Abs(g.X0-w.X0)+math.Abs(g.Y0-w.Y0)+math.Abs(g.X1-w.X1)+math.Abs(g.Y1-w.Y1) > 1e-12 || g.Value != w.Value {
			t.Errorf("segment %d: %+v, want %+v", i, g, w)
		}
	}
	lay, err := m.Layout()
	if err != nil || lay.Check() != nil {
		t.Errorf("layout: %v, %v", err, lay.Check())
	}
	if err := m.Save(filepath.Join(t.TempDir(), "m.svg")); err != nil {
		t.Error(err)
	}

	// Bad input is an error, not a panic.
	for _, c := range []struct {
		mod  func(*PowerMapPoint)
		want string
	}{
		{func(p *PowerMapPoint) { p.RouterMW = p.RouterMW[:5] }, "5 router powers for a 3x2 router grid"},
		{func(p *PowerMapPoint) { p.LinkMW = p.LinkMW[:1] }, "1 link powers for 4 links"},
		{func(p *PowerMapPoint) {
			p.Links = append([]traffic.LinkVCFlits{{From: 0, To: 9, Dir: "E"}}, p.Links[1:]...)
		}, "not on the 3x2 router grid"},
		{func(p *PowerMapPoint) {
			p.Links = append([]traffic.LinkVCFlits{{From: 0, To: 1, Dir: "L"}}, p.Links[1:]...)
		}, `by port "L"`},
	} {
		q := p
		c.mod(&q)
		if _, err := NocPowerMap(q); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NocPowerMap = %v, want an error containing %q", err, c.want)
		}
	}
}
