package report

import (
	"fmt"
	"math"

	"nocsim/endpoint/traffic"
	"nocsim/plots"
)

// LinkMapPoint is one noc point's traffic where it went, on the router
// grid: what NocLinkMap and NocStallMap draw.
type LinkMapPoint struct {
	// Title, when set, says what ran in place of Machine, Traffic and
	// Rate (an MPI call's chip: its operation, algorithm, P and size).
	Title   string
	Machine string  // what ran, as the other charts' titles say it (Scenario.NocTitle)
	Traffic string  // the point's pattern
	Rate    float64 // its offered load (flits/node/cycle)
	Cycles  float64 // the measurement window's cycles
	// Cols and Rows are the router grid, as PowerMapPoint's; router i at
	// column i % Cols, row i / Cols, unless Pos places it (a ring's
	// routers around a loop of two rows).
	Cols, Rows int
	Pos        [][2]int               // router i's column and row; nil: the grid's order
	Links      []traffic.LinkVCFlits  // the window's flits per link and VC
	Routers    []traffic.RouterWindow // the window's counts per router, in router order
}

// LinkUtil is each link's utilisation in the window, flits per cycle, in
// p.Links' order.
func (p LinkMapPoint) LinkUtil() []float64 {
	u := make([]float64, len(p.Links))
	for k, l := range p.Links {
		var n uint64
		for _, f := range l.VCFlits {
			n += f
		}
		u[k] = float64(n) / p.Cycles
	}
	return u
}

// at is router i's column and row.
func (p LinkMapPoint) at(i int) (col, row int) {
	if p.Pos != nil {
		return p.Pos[i][0], p.Pos[i][1]
	}
	return i % p.Cols, i / p.Cols
}

// RingPos places a ring's n routers around a loop of two rows: 0 to
// ceil(n/2)-1 left to right along the top, the rest right to left along
// the bottom, so that each router's neighbours are beside it and the
// ring closes at the left edge. It returns the grid's columns too.
func RingPos(n int) (pos [][2]int, cols int) {
	top := (n + 1) / 2
	for i := range n {
		if i < top {
			pos = append(pos, [2]int{i, 0})
		} else {
			pos = append(pos, [2]int{n - 1 - i, 1})
		}
	}
	return pos, top
}

// placedSegments draws each link k as an arrow from its router's cell to
// the next's, wherever Pos places them, to the right of its direction of
// travel so that the two directions lie side by side, valued v[k].
func placedSegments(pos [][2]int, links []traffic.LinkVCFlits, v []float64) ([]plots.MapSegment, error) {
	var segs []plots.MapSegment
	h := plots.MapCellSide/2 + cellGap
	for k, l := range links {
		if l.From < 0 || l.From >= len(pos) || l.To < 0 || l.To >= len(pos) || l.From == l.To {
			return nil, fmt.Errorf("link %d from router %d to %d: not between two of the %d routers", k, l.From, l.To, len(pos))
		}
		ax, ay := float64(pos[l.From][0]), float64(pos[l.From][1])
		bx, by := float64(pos[l.To][0]), float64(pos[l.To][1])
		d := math.Hypot(bx-ax, by-ay)
		ux, uy := (bx-ax)/d, (by-ay)/d
		ox, oy := -uy*laneOffset, ux*laneOffset
		segs = append(segs, plots.MapSegment{X0: ax + ux*h + ox, Y0: ay + uy*h + oy, X1: bx - ux*h + ox, Y1: by - uy*h + oy, Value: v[k]})
	}
	return segs, nil
}

func (p LinkMapPoint) check(what string) error {
	if p.Pos != nil {
		if len(p.Pos) != len(p.Routers) {
			return fmt.Errorf("%s: %d routers placed, %d counted", what, len(p.Pos), len(p.Routers))
		}
	} else if p.Cols < 1 || p.Rows < 1 || len(p.Routers) != p.Cols*p.Rows {
		return fmt.Errorf("%s: %d routers counted for a %dx%d router grid", what, len(p.Routers), p.Cols, p.Rows)
	}
	if !(p.Cycles > 0) {
		return fmt.Errorf("%s: a window of %g cycles", what, p.Cycles)
	}
	return nil
}

// NocLinkMap draws p's load: each link an arrow in its direction of
// travel coloured by its utilisation (flits per cycle, 1 the most a
// one-flit-wide link carries), each router a cell coloured by its mean
// buffer occupancy (flits held in its input buffers, averaged over the
// window's cycles).
func NocLinkMap(p LinkMapPoint) (plots.Map, error) {
	return p.gridMap("link map", "link utilisation and buffer occupancy",
		"router buffer occupancy (flits held, mean over the window's cycles)",
		func(r traffic.RouterWindow) float64 { return float64(r.BufferedFlitCycles) })
}

// NocStallMap draws where p's flits waited: each router a cell coloured
// by its stalls per cycle (heads waiting for an output VC, flits ready
// but losing switch allocation or without a downstream credit, summed),
// each link by its utilisation as in NocLinkMap, so that a stall can be
// read beside the link it waited for.
func NocStallMap(p LinkMapPoint) (plots.Map, error) {
	return p.gridMap("stall map", "stalls",
		"router stalls (flit-cycles per cycle: VC, switch and credit waits)",
		func(r traffic.RouterWindow) float64 { return float64(r.VCStalls + r.SwitchStalls + r.CreditStalls) })
}

// gridMap draws p's links by utilisation and its routers by count(r)
// per window cycle, on a colour bar labelled cellLabel.
func (p LinkMapPoint) gridMap(what, quantity, cellLabel string, count func(traffic.RouterWindow) float64) (plots.Map, error) {
	if err := p.check(what); err != nil {
		return plots.Map{}, err
	}
	cells := make([]float64, len(p.Routers))
	for i, r := range p.Routers {
		cells[i] = count(r) / p.Cycles
	}
	title := fmt.Sprintf("%s, %s at %s flits/node/cycle: %s", quantity, p.Traffic, rateText(p.Rate), p.Machine)
	if p.Title != "" {
		title = fmt.Sprintf("%s over %.0f cycles, %s", quantity, p.Cycles, p.Title)
	}
	return p.draw(what, title, cellLabel, cells, p.LinkUtil())
}

// draw is p's layout with each router's cell valued cells[i] and each
// link's arrow segs[k].
func (p LinkMapPoint) draw(what, title, cellLabel string, cells, segs []float64) (plots.Map, error) {
	m := plots.Map{
		Title:  title,
		XLabel: "router column (x, west to east)", YLabel: "router row (y, north at top)",
		Cols: p.Cols, Rows: p.Rows,
		CellLabel:    cellLabel,
		SegmentLabel: "link utilisation (flits/cycle), each arrow one direction of travel",
	}
	for i, v := range cells {
		c, row := p.at(i)
		m.Cells = append(m.Cells, plots.MapCell{Col: c, Row: row, Value: v})
	}
	var err error
	if p.Pos != nil {
		top := (len(p.Pos) + 1) / 2
		m.XLabel = fmt.Sprintf("ring position (column): routers 0-%d along the top, %d-%d back along the bottom", top-1, top, len(p.Pos)-1)
		m.YLabel = "side of the ring (row)"
		m.Segments, err = placedSegments(p.Pos, p.Links, segs)
	} else {
		m.Segments, err = linkSegments(p.Cols, p.Rows, p.Links, segs)
	}
	if err != nil {
		return plots.Map{}, fmt.Errorf("%s: %v", what, err)
	}
	return m, nil
}

// NocWindowMaps draws p's network in each sampled window (sample_cycles):
// each link by its utilisation over the window, each router by the
// flits it held at the window's end, every map on the same two colour
// scales, so that they can be read one after another.
func NocWindowMaps(p LinkMapPoint, windows []traffic.Sample) ([]plots.Map, error) {
	if err := p.check("window maps"); err != nil {
		return nil, err
	}
	var cellMax, segMax float64
	util := make([][]float64, len(windows))
	for w, s := range windows {
		if len(s.Links) != len(p.Links) || len(s.Routers) != len(p.Routers) {
			return nil, fmt.Errorf("window maps: window %d has %d links and %d routers, the network %d and %d", w, len(s.Links), len(s.Routers), len(p.Links), len(p.Routers))
		}
		util[w] = make([]float64, len(s.Links))
		for k, n := range s.Links {
			util[w][k] = float64(n) / float64(s.End-s.Start)
			segMax = max(segMax, util[w][k])
		}
		for _, n := range s.Routers {
			cellMax = max(cellMax, float64(n))
		}
	}
	var maps []plots.Map
	for w, s := range windows {
		cells := make([]float64, len(s.Routers))
		for i, n := range s.Routers {
			cells[i] = float64(n)
		}
		title := fmt.Sprintf("window %d of %d, cycles %d to %d: %s at %s flits/node/cycle, %s", w+1, len(windows), s.Start, s.End, p.Traffic, rateText(p.Rate), p.Machine)
		m, err := p.draw("window maps", title, "flits held at the window's end (flits)", cells, util[w])
		if err != nil {
			return nil, err
		}
		m.CellMax, m.SegmentMax = cellMax, segMax
		maps = append(maps, m)
	}
	return maps, nil
}
