package energy_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/endpoint/energy"
	"nocsim/mesh"
	"nocsim/mesh/meshtest"
	"nocsim/router"
)

// busy runs random traffic on topo and returns the activity of a window
// in its middle, as a noc point prices it.
func busy(t *testing.T, topo mesh.Topology, seed uint64) energy.Activity {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	eng := des.New()
	rs := router.DefaultSpec()
	if _, ok := topo.(mesh.Torus); ok {
		rs.VCs = 4 // datelines: an even count
	}
	f := endpoint.NewFabric(eng, topo, rs, endpoint.DefaultSpec())
	n := topo.Nodes()
	for range 300 {
		f.SendSynthetic(r.IntN(n), r.IntN(n), 1+r.IntN(6), des.Time(r.IntN(400)))
	}
	if err := eng.Run(100); err != nil {
		t.Fatal(err)
	}
	begin, err := energy.Snapshot(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Run(350); err != nil {
		t.Fatal(err)
	}
	end, _ := energy.Snapshot(f)
	a, err := end.Sub(begin)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Each router's and each link's part, summed, is the breakdown's router
// components (buffers, crossbar, allocators) and its links component; the
// two name every dynamic component of the network between them; and the
// power of a part is its energy over the window's time at the clock.
// DSENT on a mesh, a torus and a cmesh (8-port routers), Noxim on a mesh.
func TestPlacedSumsToBreakdown(t *testing.T) {
	dsent := energy.Params{Model: energy.DSENT, Tech: "45nm", FlitBits: 32, TileMM: 1.5, ClockHz: 2e9}
	noxim := energy.Params{Model: energy.Noxim, FlitBits: 32, TileMM: 1, ClockHz: 1e9}
	for i, c := range []struct {
		topo mesh.Topology
		p    energy.Params
	}{
		{mesh.Mesh{W: 4, H: 3}, dsent},
		{meshtest.Torus(t, 4, 4), dsent},
		{meshtest.CMesh(t, 6, 4), dsent},
		{mesh.Mesh{W: 5, H: 5}, noxim},
	} {
		a := busy(t, c.topo, uint64(i))
		m, err := energy.Load(c.p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.Energy(a)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := energy.Place(m, a)
		if err != nil {
			t.Fatal(err)
		}
		if len(pl.Routers) != len(a.Routers) || len(pl.Links) != len(a.Links) {
			t.Fatalf("%s: %d router and %d link parts for %d routers and %d links", c.topo.Name(), len(pl.Routers), len(pl.Links), len(a.Routers), len(a.Links))
		}
		want := func(names []string) float64 {
			s := 0.0
			for _, comp := range b.Components {
				if slices.Contains(names, comp.Name) {
					s += comp.PJ
				}
			}
			return s
		}
		var sum = func(v []float64) float64 {
			s := 0.0
			for _, x := range v {
				s += x
			}
			return s
		}
		rw, lw := want(pl.RouterComponents), want(pl.LinkComponents)
		if got := sum(pl.Routers); rw <= 0 || math.Abs(got-rw) > 1e-9*rw {
			t.Errorf("%s %s: routers' parts sum to %.9g pJ, the breakdown's %v to %.9g", c.topo.Name(), c.p.Model, got, pl.RouterComponents, rw)
		}
		if got := sum(pl.Links); lw <= 0 || math.Abs(got-lw) > 1e-9*lw {
			t.Errorf("%s %s: links' parts sum to %.9g pJ, the breakdown's %v to %.9g", c.topo.Name(), c.p.Model, got, pl.LinkComponents, lw)
		}
		if dyn := b.KindPJ(energy.KindDynamic); math.Abs(rw+lw-dyn) > 1e-9*dyn {
			t.Errorf("%s %s: router and link components %.9g pJ, all dynamic %.9g", c.topo.Name(), c.p.Model, rw+lw, dyn)
		}
		for _, n := range append(slices.Clone(pl.RouterComponents), pl.LinkComponents...) {
			if !slices.ContainsFunc(b.Components, func(comp energy.Component) bool { return comp.Name == n && comp.Kind == energy.KindDynamic }) {
				t.Errorf("%s: %q is no dynamic component of the breakdown", c.p.Model, n)
			}
		}
		if got, w := pl.PowerMW(rw), b.ComponentPowerW(energy.Component{PJ: rw})*1e3; math.Abs(got-w) > 1e-12*w {
			t.Errorf("%s: routers' power %g mW, want %g", c.p.Model, got, w)
		}
	}
}

// A lone packet counted by hand: the routers on its route are charged
// L flits' buffer write, read, crossbar and switch allocation each (DSENT
// charges no VC allocation), every other router nothing; each link on the
// route L flits, every other link nothing.
func TestPlacedLonePacket(t *testing.T) {
	const L = 4
	topo := mesh.Mesh{W: 4, H: 3}
	_, a := lone(t, topo, 0, 11, L) // east 3, then south 2
	m, err := energy.Load(energy.Params{Model: energy.DSENT, Tech: "45nm", FlitBits: 32, TileMM: 1, ClockHz: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := energy.Place(m, a)
	if err != nil {
		t.Fatal(err)
	}
	route := []int{0, 1, 2, 3, 7, 11}
	for i, got := range pl.Routers {
		want := 0.0
		if slices.Contains(route, i) {
			want = L * (1.228 + 1.118 + 0.548 + 0.147)
		}
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("router %d: %g pJ, want %g", i, got, want)
		}
	}
	on := 0
	for j, got := range pl.Links {
		if got != 0 {
			on++
			if math.Abs(got-L*1.292) > 1e-9 {
				t.Errorf("link %d: %g pJ, want %g", j, got, L*1.292)
			}
		}
	}
	if on != len(route)-1 {
		t.Errorf("%d links charged, want %d", on, len(route)-1)
	}
}

// other is a model that is not per event.
type other struct{}

func (other) Check(energy.Network) error                       { return nil }
func (other) Energy(energy.Activity) (energy.Breakdown, error) { return energy.Breakdown{}, nil }

func TestPlaceRefusesOtherModels(t *testing.T) {
	_, err := energy.Place(other{}, energy.Activity{})
	if err == nil || !strings.Contains(err.Error(), "cannot be placed") {
		t.Errorf("Place(other) = %v, want an error", err)
	}
}
