package study_test

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"nocsim/endpoint/energy"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

// The power map of a real point, on a mesh, a torus and a cmesh: a cell
// per router of the router grid, whose values sum to the breakdown's
// router dynamic energy (buffers, crossbar, allocators) over the window's
// time, and segments whose values, a wrap-around link's counted once, sum
// to its links' energy over that time.
func TestNocPowerMapOfRun(t *testing.T) {
	for _, c := range []struct {
		topo       string
		mesh       string
		vcs        int
		cols, rows int
	}{
		{"mesh", "4x4", 2, 4, 4},
		{"torus", "4x3", 4, 4, 3},
		{"cmesh", "8x4", 2, 4, 2},
	} {
		sc := smallScenario()
		sc.Network.Mesh, sc.Network.Topo, sc.Network.VCs = c.mesh, c.topo, c.vcs
		sc.Noc.Traffic, sc.Noc.Rates, sc.Noc.MeasureCycles = []string{"uniform"}, []float64{0.05, 0.2}, 800
		pts := points(t, sc)
		res, err := study.RunNoc(pts, scenarios.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		k := study.LastRateOfFirst(pts)
		if k != 1 {
			t.Fatalf("the default point is %d, want the last load of the first pattern (1)", k)
		}
		m, err := study.NocPowerMap(pts[k], res[k], sc.NocTitle())
		if err != nil {
			t.Fatal(err)
		}
		if m.Cols != c.cols || m.Rows != c.rows || len(m.Cells) != c.cols*c.rows {
			t.Fatalf("%s %s: a %dx%d map of %d cells, want the %dx%d router grid", c.topo, c.mesh, m.Cols, m.Rows, len(m.Cells), c.cols, c.rows)
		}
		b := res[k].Energy
		secs := b.Seconds()
		var routerPJ, linkPJ float64
		for _, comp := range b.Components {
			switch {
			case comp.Name == "links":
				linkPJ += comp.PJ
			case comp.Kind == energy.KindDynamic:
				routerPJ += comp.PJ
			}
		}
		var cells float64
		for _, cell := range m.Cells {
			cells += cell.Value
		}
		if want := routerPJ * 1e-9 / secs; !(want > 0) || math.Abs(cells-want) > 1e-9*want {
			t.Errorf("%s: cells sum to %.9g mW, the routers' dynamic energy over the window is %.9g mW", c.topo, cells, want)
		}
		// A wrap-around link is two stubs, the second starting at the
		// grid's edge as it enters: counted once.
		var segs float64
		for _, s := range m.Segments {
			if s.X0 == -0.5 || s.Y0 == -0.5 || s.X0 == float64(m.Cols)-0.5 || s.Y0 == float64(m.Rows)-0.5 {
				continue
			}
			segs += s.Value
		}
		if want := linkPJ * 1e-9 / secs; !(want > 0) || math.Abs(segs-want) > 1e-9*want {
			t.Errorf("%s: links sum to %.9g mW, the breakdown's links over the window %.9g mW", c.topo, segs, want)
		}
		if !strings.Contains(m.Title, sc.NocTitle()) || !strings.Contains(m.Title, "dsent model") {
			t.Errorf("title %q", m.Title)
		}
		if err := m.Save(filepath.Join(t.TempDir(), "map.png")); err != nil {
			t.Error(err)
		}
		rows := study.NocRows(pts, res)
		// The power chart of the same sweep draws the rows' power.
		pc := report.NocPowerChart(rows, sc.NocTitle())
		if got, want := pc.Series[0].Y, []float64{rows[0].Energy.PowerMW, rows[1].Energy.PowerMW}; !slices.Equal(got, want) {
			t.Errorf("power series %v, rows' power %v", got, want)
		}
	}
}

// A ring's routers lie on no grid: its map is refused, naming it.
func TestNocPowerMapRefusesRing(t *testing.T) {
	sc := smallScenario()
	sc.Network.Mesh, sc.Network.Topo = "8x1", "ring"
	sc.Noc.Traffic, sc.Noc.Rates, sc.Noc.MeasureCycles = []string{"uniform"}, []float64{0.05}, 200
	pts := points(t, sc)
	res, err := study.RunNoc(pts, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := study.NocPowerMap(pts[0], res[0], "ring"); err == nil || !strings.Contains(err.Error(), "ring") {
		t.Errorf("NocPowerMap on a ring = %v, want an error naming it", err)
	}
}
