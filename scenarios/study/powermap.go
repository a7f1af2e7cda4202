package study

import (
	"fmt"

	"nocsim/des"
	"nocsim/endpoint/energy"
	"nocsim/endpoint/traffic"
	"nocsim/mesh"
	"nocsim/mpi"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// routerGrid is the grid a topology's routers lie on, router i at column
// i % cols, row i / cols: a mesh's and a torus's tiles, a cmesh's router
// grid; false for a topology whose routers lie on no grid (a ring, a bus).
func routerGrid(t mesh.Topology) (cols, rows int, ok bool) {
	switch t := t.(type) {
	case mesh.Mesh:
		return t.W, t.H, true
	case mesh.Torus:
		return t.W, t.H, true
	case mesh.CMesh:
		g := t.RouterGrid()
		return g.W, g.H, true
	}
	return 0, 0, false
}

// LastRateOfFirst is the index of the point --power-map draws by default:
// the last load of the first pattern (the busiest point of the pattern
// the table lists first).
func LastRateOfFirst(pts []traffic.Synthetic) int {
	k := 0
	for i, p := range pts {
		if p.Pattern.Name() == pts[0].Pattern.Name() {
			k = i
		}
	}
	return k
}

// NocPowerMap is a point's power map (report.NocPowerMap): its window's
// per-router and per-link dynamic energy under its energy model
// (energy.Place) over the window's time. machine names what ran.
func NocPowerMap(pt traffic.Synthetic, res traffic.SynthResult, machine string) (plots.Map, error) {
	topo := pt.Topo
	if topo == nil {
		topo = pt.Mesh
	}
	cols, rows, ok := routerGrid(topo)
	if !ok {
		return plots.Map{}, fmt.Errorf("power map: a %s has no router grid to draw (allowed mesh, torus or cmesh)", topo.Name())
	}
	if res.Activity == nil || res.Energy == nil {
		return plots.Map{}, fmt.Errorf("power map: %s at %g flits/node/cycle was not priced (energy_model = none?)", res.Traffic, res.OfferedRate)
	}
	m, err := energy.Load(pt.Energy)
	if err != nil {
		return plots.Map{}, err
	}
	pl, err := energy.Place(m, *res.Activity)
	if err != nil {
		return plots.Map{}, err
	}
	if len(res.Links) != len(pl.Links) {
		return plots.Map{}, fmt.Errorf("power map: %d links counted, %d described", len(pl.Links), len(res.Links))
	}
	b := res.Energy
	p := report.PowerMapPoint{Machine: machine, Traffic: res.Traffic, Rate: res.OfferedRate,
		Energy: report.ModelText(b.Model, b.Tech, b.FlitBits),
		Cols:   cols, Rows: rows, Links: res.Links}
	for _, e := range pl.Routers {
		p.RouterMW = append(p.RouterMW, pl.PowerMW(e))
	}
	for _, e := range pl.Links {
		p.LinkMW = append(p.LinkMW, pl.PowerMW(e))
	}
	return report.NocPowerMap(p)
}

// NocLinkMapPoint is a point's traffic on its router grid, for
// report.NocLinkMap and report.NocStallMap. machine names what ran.
func NocLinkMapPoint(pt traffic.Synthetic, res traffic.SynthResult, machine string) (report.LinkMapPoint, error) {
	topo := pt.Topo
	if topo == nil {
		topo = pt.Mesh
	}
	p := report.LinkMapPoint{Machine: machine, Traffic: res.Traffic, Rate: res.OfferedRate, Cycles: float64(pt.Measure),
		Links: res.Links, Routers: res.Routers}
	return p, mapLayout(topo, &p)
}

// mapLayout lays p's routers out as topo's: on its router grid (mesh,
// torus, cmesh) or around a loop (a ring); a bus, which has no routers,
// is refused.
func mapLayout(topo mesh.Topology, p *report.LinkMapPoint) error {
	if cols, rows, ok := routerGrid(topo); ok {
		p.Cols, p.Rows = cols, rows
		return nil
	}
	if _, ok := topo.(mesh.Ring); ok && topo.Nodes() > 1 {
		p.Pos, p.Cols = report.RingPos(topo.Nodes())
		p.Rows = 2
		return nil
	}
	return fmt.Errorf("link map: a %s has no routers to draw (allowed mesh, torus, cmesh or ring)", topo.Name())
}

// chipLoad is an MPI job's chip's traffic on its router grid, over the
// job's cycles (its chip was built for it: every count is the job's).
func chipLoad(sc *scenarios.Scenario, w *mpi.World, cycles des.Time) (report.LinkMapPoint, error) {
	topo, err := sc.Network.Topology()
	if err != nil {
		return report.LinkMapPoint{}, err
	}
	links, routers := traffic.NetworkLoad(w.M.Net, sc.Network.RouterSpec.VCs)
	p := report.LinkMapPoint{Machine: sc.NocTitle(), Cycles: float64(cycles), Links: links, Routers: routers}
	return p, mapLayout(topo, &p)
}
