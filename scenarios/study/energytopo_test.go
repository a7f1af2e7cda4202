package study

import (
	"math"
	"testing"

	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// The same allreduce on the mesh, the ring and the bus of 16 tiles
// (scenarios/examples/energy-topologies.toml at 4 KiB), as docs/energy.md
// reads it: the tiles do the same work on every network, so their
// processors, memories and NIUs spend the same; the bus draws the least
// power; every flit drives its whole wire, 15 pitches of 1.292 pJ/mm
// (DSENT 45 nm, 32-bit flits), so the wire costs more than the mesh's
// links; its 16 interfaces leak and clock as 16/5 routers, a fifth of the
// mesh's 16 routers a cycle; and its network spends more than the mesh's,
// its run being longer.
func TestTopologiesInEnergy(t *testing.T) {
	comp := func(e *report.Energy, names ...string) float64 {
		s := 0.0
		for _, c := range e.Components {
			for _, n := range names {
				if c.Name == n {
					s += c.PJ
				}
			}
		}
		return s
	}
	got := map[string]report.CollRow{}
	for _, topo := range []string{scenarios.TopoMesh, scenarios.TopoRing, scenarios.TopoBus} {
		sc := scenarios.Defaults()
		sc.Network.Mesh, sc.Network.Topo = "4x4", topo
		sw := &CollSweep{Op: "allreduce", Algs: []string{"recursive_doubling"}, Procs: []int{16}, Sizes: []int{4096}}
		rows, err := sw.Run(&sc, scenarios.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].Energy == nil || !rows[0].Correct {
			t.Fatalf("%s: %+v", topo, rows)
		}
		got[topo] = rows[0]
	}
	mesh, ring, bus := got[scenarios.TopoMesh].Energy, got[scenarios.TopoRing].Energy, got[scenarios.TopoBus].Energy
	tiles := func(e *report.Energy) float64 { return comp(e, "processor", "memory", "NIU") }
	for topo, r := range got {
		if d := tiles(r.Energy) - tiles(mesh); math.Abs(d) > 1e-9*tiles(mesh) {
			t.Errorf("%s: tiles spend %.1f pJ, the mesh's %.1f: the same work should cost the same", topo, tiles(r.Energy), tiles(mesh))
		}
	}
	if bus.PowerMW >= mesh.PowerMW || bus.PowerMW >= ring.PowerMW {
		t.Errorf("power: bus %.1f mW, mesh %.1f, ring %.1f: want the bus least", bus.PowerMW, mesh.PowerMW, ring.PowerMW)
	}
	if w, l := comp(bus, "bus wire"), comp(mesh, "links"); w <= l || w <= 0 {
		t.Errorf("bus wire %.1f pJ against the mesh's links %.1f", w, l)
	}
	// Static energy per cycle: (clock + leakage) / cycles, the run's
	// cycles from the routers' busy and idle counts on the mesh and the
	// tiles' on the bus (both 16 x the cycles).
	meshCyc := float64(mesh.RouterBusyCycles+mesh.RouterIdleCycles) / 16
	busCyc := float64(bus.TileBusyCycles+bus.TileIdleCycles) / 16
	perCycle := func(e *report.Energy, cyc float64) float64 { return (e.ClockPJ + e.LeakagePJ) / cyc }
	if r := perCycle(bus, busCyc) / perCycle(mesh, meshCyc); math.Abs(r-0.2) > 1e-9 {
		t.Errorf("bus static energy a cycle is %.6f of the mesh's, want 16/5 routers of 16: 0.2", r)
	}
	network := func(e *report.Energy) float64 { return e.TotalPJ - tiles(e) }
	if network(bus) <= network(mesh) {
		t.Errorf("network energy: bus %.1f pJ, mesh %.1f: want the bus's more at 4 KiB (its run is longer)", network(bus), network(mesh))
	}
}
