package study_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"nocsim/endpoint/traffic"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

// linkMapOf runs one point of an 8x8 mesh with the given traffic and
// returns its link map's data.
func linkMapOf(t *testing.T, traffic string, rate float64, hotspot []int) report.LinkMapPoint {
	t.Helper()
	return linkMapOn(t, "8x8", scenarios.TopoMesh, traffic, rate, hotspot)
}

// linkMapOn is linkMapOf on the tiles of mesh joined by topo.
func linkMapOn(t *testing.T, mesh, topo, traffic string, rate float64, hotspot []int) report.LinkMapPoint {
	t.Helper()
	sc := scenarios.Defaults()
	sc.Network.Mesh, sc.Network.Topo = mesh, topo
	sc.Noc.Traffic, sc.Noc.Rates = []string{traffic}, []float64{rate}
	sc.Noc.WarmupCycles, sc.Noc.MeasureCycles, sc.Noc.DrainCycles = 1000, 20000, 5000
	if hotspot != nil {
		sc.Noc.HotspotNodes, sc.Noc.HotspotFraction = hotspot, 0.5
	}
	p, _ := runLinkMap(t, sc)
	if _, err := report.NocLinkMap(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// runLinkMap runs sc's first point and returns its map's data and its
// result.
func runLinkMap(t *testing.T, sc scenarios.Scenario) (report.LinkMapPoint, traffic.SynthResult) {
	t.Helper()
	pts := points(t, sc)
	res, err := study.RunNoc(pts, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := study.NocLinkMapPoint(pts[0], res[0], sc.NocTitle())
	if err != nil {
		t.Fatal(err)
	}
	return p, res[0]
}

// linkKey names a link by the router it leaves and its port.
func linkKey(from int, dir string) string { return fmt.Sprintf("%d%s", from, dir) }

// xyRoute calls f with every link of the XY route from s to d on a
// W-wide mesh: along s's row first, then along d's column (row 0 is the
// north edge).
func xyRoute(W, s, d int, f func(key string)) {
	x, y := s%W, s/W
	dx, dy := d%W, d/W
	for x != dx {
		dir, step := "E", 1
		if dx < x {
			dir, step = "W", -1
		}
		f(linkKey(y*W+x, dir))
		x += step
	}
	for y != dy {
		dir, step := "S", 1
		if dy < y {
			dir, step = "N", -1
		}
		f(linkKey(y*W+x, dir))
		y += step
	}
}

// checkChannelLoad compares the map's link utilisation with the
// channel-load analysis's load (flits/cycle) per link: within tol each,
// and the links it loads most measured hotter than every other. It
// returns the most loaded links.
func checkChannelLoad(t *testing.T, p report.LinkMapPoint, load map[string]float64, tol float64) []string {
	t.Helper()
	most := 0.0
	for _, v := range load {
		most = max(most, v)
	}
	util := p.LinkUtil()
	var hot, cold []float64
	var hotKeys []string
	for k, l := range p.Links {
		want := load[linkKey(l.From, l.Dir)]
		if math.Abs(util[k]-want) > tol {
			t.Errorf("link %d %s -> %d: %.4f flits/cycle, channel-load analysis %.4f", l.From, l.Dir, l.To, util[k], want)
		}
		if want > most-1e-9 {
			hot, hotKeys = append(hot, util[k]), append(hotKeys, linkKey(l.From, l.Dir))
		} else {
			cold = append(cold, util[k])
		}
	}
	if len(hot) == 0 || slices.Min(hot) <= slices.Max(cold) {
		t.Errorf("the links %v the analysis loads most (%.4f flits/cycle) measured %v, the others up to %.4f: want them hottest", hotKeys, most, hot, slices.Max(cold))
	}
	return hotKeys
}

// Transpose on an 8x8 mesh under XY routing, below saturation: the
// channel-load analysis (each source's flow, rate flits/cycle, over the
// links of its XY route) predicts every link's utilisation, and its most
// loaded links are the map's hottest.
func TestLinkMapTransposeChannelLoad(t *testing.T) {
	const W, rate = 8, 0.1
	p := linkMapOf(t, "transpose", rate, nil)
	if n := len(p.Links); n != 2*2*W*(W-1) {
		t.Fatalf("%d links on the map, want %d", n, 2*2*W*(W-1))
	}
	load := map[string]float64{}
	for s := range W * W {
		x, y := s%W, s/W
		xyRoute(W, s, x*W+y, func(k string) { load[k] += rate }) // (x, y) -> (y, x)
	}
	checkChannelLoad(t, p, load, 0.03)
}

// A hotspot taking half the packets (the rest uniform over every node,
// itself included), below its ejection port's one flit per cycle: the
// analysis's hottest link, the column link into the hotspot from its
// larger side, is the map's hottest; the hotspot's router holds the most
// flits.
func TestLinkMapHotspot(t *testing.T) {
	const W, h, rate = 8, 3*8 + 3, 0.02 // node (3, 3); 0.64 flits/cycle to it
	p := linkMapOf(t, "hotspot", rate, []int{h})
	load := map[string]float64{}
	for s := range W * W {
		xyRoute(W, s, h, func(k string) { load[k] += rate * 0.5 })
		for d := range W * W {
			xyRoute(W, s, d, func(k string) { load[k] += rate * 0.5 / (W * W) })
		}
	}
	if hot := checkChannelLoad(t, p, load, 0.02); !slices.Equal(hot, []string{linkKey(h+W, "N")}) {
		t.Errorf("the analysis's hottest links %v, want the one into the hotspot from the south (%s)", hot, linkKey(h+W, "N"))
	}
	busiest := 0
	for i, r := range p.Routers {
		if r.BufferedFlitCycles > p.Routers[busiest].BufferedFlitCycles {
			busiest = i
		}
	}
	if busiest != h {
		t.Errorf("router %d holds the most flits, want the hotspot %d", busiest, h)
	}
}

// A unidirectional ring of 7 under uniform traffic (destinations over
// every node, itself included): each source's flow covers k links with
// probability 1/7 for k = 0..6, so by symmetry every link carries rate x
// 3 flits per cycle; the map places the routers around a loop, each
// link's arrow between neighbours.
func TestLinkMapRingChannelLoad(t *testing.T) {
	const n, rate = 7, 0.05
	p := linkMapOn(t, "7x1", scenarios.TopoRingUni, "uniform", rate, nil)
	m, err := report.NocLinkMap(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cells) != n || len(m.Segments) != n {
		t.Fatalf("%d cells and %d arrows, want %d of each", len(m.Cells), len(m.Segments), n)
	}
	for k, u := range p.LinkUtil() {
		if want := rate * (n - 1) / 2; math.Abs(u-want) > 0.01 {
			t.Errorf("link %d -> %d: %.4f flits/cycle, the analysis %.4f", p.Links[k].From, p.Links[k].To, u, want)
		}
		a, b := p.Pos[p.Links[k].From], p.Pos[p.Links[k].To]
		if d := max(a[0]-b[0], b[0]-a[0]) + max(a[1]-b[1], b[1]-a[1]); d > 2 || a == b {
			t.Errorf("link %d -> %d drawn from %v to %v: not between neighbouring cells", p.Links[k].From, p.Links[k].To, a, b)
		}
	}
}

// Window maps: one per sampled window, each link's arrow valued its
// flits over the window's cycles, each router's cell the flits it held at
// the window's end, and every map on the same scales, which reach the
// largest value of any window.
func TestNocWindowMaps(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	sc.Noc.Traffic, sc.Noc.Rates = []string{"transpose"}, []float64{0.3}
	sc.Noc.WarmupCycles, sc.Noc.MeasureCycles, sc.Noc.DrainCycles, sc.Noc.SampleCycles = 200, 1000, 1000, 300
	p, r := runLinkMap(t, sc)
	maps, err := report.NocWindowMaps(p, r.Samples)
	if err != nil {
		t.Fatal(err)
	}
	if len(maps) != len(r.Samples) || len(maps) < 4 {
		t.Fatalf("%d maps for %d windows", len(maps), len(r.Samples))
	}
	var cellMax, segMax float64
	for w, m := range maps {
		s := r.Samples[w]
		if m.CellMax != maps[0].CellMax || m.SegmentMax != maps[0].SegmentMax {
			t.Errorf("window %d: scales %v, %v; window 1's %v, %v", w+1, m.CellMax, m.SegmentMax, maps[0].CellMax, maps[0].SegmentMax)
		}
		for k, seg := range m.Segments {
			if want := float64(s.Links[k]) / float64(s.End-s.Start); seg.Value != want {
				t.Errorf("window %d link %d: %v flits/cycle, want %v", w+1, k, seg.Value, want)
			}
			segMax = max(segMax, seg.Value)
		}
		for i, c := range m.Cells {
			if c.Value != float64(s.Routers[i]) {
				t.Errorf("window %d router %d: %v flits, the sample %d", w+1, i, c.Value, s.Routers[i])
			}
			cellMax = max(cellMax, c.Value)
		}
	}
	if maps[0].CellMax != cellMax || maps[0].SegmentMax != segMax {
		t.Errorf("scales %v and %v, the windows' largest values %v and %v", maps[0].CellMax, maps[0].SegmentMax, cellMax, segMax)
	}
}
