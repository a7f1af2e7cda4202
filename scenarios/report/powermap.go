package report

import (
	"fmt"

	"nocsim/endpoint/traffic"
	"nocsim/plots"
)

// PowerMapPoint is one noc point's dynamic power where it was spent, on
// the router grid: what NocPowerMap draws.
type PowerMapPoint struct {
	Machine string  // what ran, as the other charts' titles say it (Scenario.NocTitle)
	Traffic string  // the point's pattern
	Rate    float64 // its offered load (flits/node/cycle)
	Energy  string  // the model, as ModelText says it
	// Cols and Rows are the router grid: router i is at column i % Cols,
	// row i / Cols, row 0 the north edge (a cmesh's routers, not its
	// tiles).
	Cols, Rows int
	RouterMW   []float64 // each router's dynamic power (mW)
	// Links are the router-to-router links, LinkMW each one's power (mW),
	// in the same order.
	Links  []traffic.LinkVCFlits
	LinkMW []float64
}

const (
	// laneOffset is how far, in grid units, a link is drawn to the right
	// of the line between its routers' centres: the two directions of a
	// pair of routers lie side by side, as traffic on a road.
	laneOffset = 0.11
	// cellGap keeps an arrow's ends off the cells' edges.
	cellGap = 0.03
)

// portStep is the grid step a link leaving by port dir takes (north is
// up, row - 1), false for a port that is no link.
func portStep(dir string) (dx, dy float64, ok bool) {
	switch dir {
	case "N":
		return 0, -1, true
	case "S":
		return 0, 1, true
	case "E":
		return 1, 0, true
	case "W":
		return -1, 0, true
	}
	return 0, 0, false
}

// NocPowerMap draws p: each router a cell coloured by its dynamic power
// (buffers, crossbar and allocators: the energy its own flits cost over
// the window, per second), each link an arrow in its direction of travel
// coloured by its power. A torus's wrap-around link is drawn as two
// stubs, one leaving its router for the grid's edge, one entering the
// router it reaches from the opposite edge. Clock and leakage are left
// out: every router draws the same of them, whatever it carries.
func NocPowerMap(p PowerMapPoint) (plots.Map, error) {
	if p.Cols < 1 || p.Rows < 1 || len(p.RouterMW) != p.Cols*p.Rows {
		return plots.Map{}, fmt.Errorf("power map: %d router powers for a %dx%d router grid", len(p.RouterMW), p.Cols, p.Rows)
	}
	if len(p.Links) != len(p.LinkMW) {
		return plots.Map{}, fmt.Errorf("power map: %d link powers for %d links", len(p.LinkMW), len(p.Links))
	}
	m := plots.Map{
		Title: fmt.Sprintf("dynamic power, %s at %s flits/node/cycle: %s; %s (clock and leakage left out)",
			p.Traffic, rateText(p.Rate), p.Machine, p.Energy),
		XLabel: "router column (x, west to east)", YLabel: "router row (y, north at top)",
		Cols: p.Cols, Rows: p.Rows,
		CellLabel:    "router dynamic power (mW): buffers, crossbar and allocators",
		SegmentLabel: "link power (mW), each arrow one direction of travel",
	}
	for i, v := range p.RouterMW {
		m.Cells = append(m.Cells, plots.MapCell{Col: i % p.Cols, Row: i / p.Cols, Value: v})
	}
	segs, err := linkSegments(p.Cols, p.Rows, p.Links, p.LinkMW)
	if err != nil {
		return plots.Map{}, fmt.Errorf("power map: %v", err)
	}
	m.Segments = segs
	return m, nil
}

// linkSegments draws each link k as an arrow in its direction of travel
// between its routers' cells on a cols x rows router grid, valued v[k];
// a torus's wrap-around link as two stubs, one leaving its router for
// the grid's edge, one entering the router it reaches from the opposite
// edge.
func linkSegments(cols, rows int, links []traffic.LinkVCFlits, v []float64) ([]plots.MapSegment, error) {
	var segs []plots.MapSegment
	h := plots.MapCellSide/2 + cellGap
	for k, l := range links {
		dx, dy, ok := portStep(l.Dir)
		n := cols * rows
		if !ok || l.From < 0 || l.From >= n || l.To < 0 || l.To >= n {
			return nil, fmt.Errorf("link %d from router %d to %d by port %q is not on the %dx%d router grid", k, l.From, l.To, l.Dir, cols, rows)
		}
		ax, ay := float64(l.From%cols), float64(l.From/cols)
		bx, by := float64(l.To%cols), float64(l.To/cols)
		// To the right of the direction of travel (y grows southwards).
		ox, oy := -dy*laneOffset, dx*laneOffset
		seg := func(x0, y0, x1, y1 float64) plots.MapSegment {
			return plots.MapSegment{X0: x0 + ox, Y0: y0 + oy, X1: x1 + ox, Y1: y1 + oy, Value: v[k]}
		}
		if ax+dx == bx && ay+dy == by {
			segs = append(segs, seg(ax+dx*h, ay+dy*h, bx-dx*h, by-dy*h))
			continue
		}
		// A wrap-around link: out to the edge, in from the other.
		segs = append(segs, seg(ax+dx*h, ay+dy*h, ax+dx*0.5, ay+dy*0.5), seg(bx-dx*0.5, by-dy*0.5, bx-dx*h, by-dy*h))
	}
	return segs, nil
}
