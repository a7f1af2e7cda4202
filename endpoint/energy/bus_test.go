package energy_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/endpoint/energy"
	"nocsim/mesh"
	"nocsim/router"
)

// A lone packet of L flits over a bus of N nodes, counted by hand: the
// source's bus interface takes the L flits in from its NIU and reads them
// out onto the bus, the arbiter grants the bus once, the wire carries the
// L flits over its whole length, N-1 tile pitches; the source NIU sends L
// and the destination's takes L. No router exists, nothing else moves.
func TestBusLonePacketCountedByHand(t *testing.T) {
	const N, src, dst, L = 16, 3, 12, 7
	_, a := lone(t, mesh.Bus{N: N}, src, dst, L)
	if a.Bus == nil || len(a.Routers) != 0 {
		t.Fatalf("bus activity %+v, %d routers", a.Bus, len(a.Routers))
	}
	want := energy.Totals{BufferWrites: L, BufferReads: L, LinkFlits: L, Injected: L, Ejected: L, BusGrants: 1, BusInterfaces: N}
	if tot := a.Totals(); tot != want {
		t.Errorf("%+v, want %+v", tot, want)
	}
	for i := range N {
		w := uint64(0)
		if i == src {
			w = L
		}
		if a.Bus.Writes[i] != w || a.Bus.Reads[i] != w {
			t.Errorf("interface %d: %d written, %d read; want %d each", i, a.Bus.Writes[i], a.Bus.Reads[i], w)
		}
	}
	if a.LinkTiles != N-1 || len(a.Links) != 1 {
		t.Errorf("wire of %g tile pitches, %d links; want %d and 1", a.LinkTiles, len(a.Links), N-1)
	}
}

// The per-event models price a bus as routers' parts, exactly the counts
// times the table: DSENT's buffer write and read per flit in the
// interface, switch allocation once per packet granted, the link energy
// per mm over the whole wire per flit, and each interface 1/5 of a
// router's clock, leakage and area (DSENT's router has 5 ports); Noxim's
// buffer push and pop, its bit line of one tile pitch times N-1 per flit
// bit, and VCs buffers leaking per interface. The components sum to the
// total. BookSim's model is refused, naming the key.
func TestBusIsCountsTimesTable(t *testing.T) {
	const N, L = 16, 5
	_, a := lone(t, mesh.Bus{N: N}, 0, 9, L)
	cyc, shares := float64(a.Cycles), float64(N)/5
	p := energy.Params{Model: energy.DSENT, Tech: "45nm", FlitBits: 32, TileMM: 1.5, ClockHz: 2e9}
	dsent := map[string]float64{
		"bus interface buffer write": L * 1.228,
		"bus interface buffer read":  L * 1.118,
		"bus arbitration":            1 * 0.147,
		"bus wire":                   L * 1.292 * 1.5 * (N - 1),
		"bus interface clock":        shares * cyc * 0.328,
		"bus interface leakage":      shares * 7.75e-3 * cyc / 2e9 * 1e12,
	}
	b := priceExactly(t, p, a, dsent)
	if math.Abs(b.AreaMM2-shares*0.0263) > 1e-12 {
		t.Errorf("area %g mm^2, want %g interfaces x 0.0263/5", b.AreaMM2, float64(N))
	}
	if got, w := b.PowerW(), b.TotalPJ()*1e-12/(cyc/2e9); math.Abs(got-w) > 1e-12*w {
		t.Errorf("power %g W, want %g", got, w)
	}

	const pj = 1e12
	secs := cyc / 1e9
	p = energy.Params{Model: energy.Noxim, FlitBits: 32, TileMM: 1, ClockHz: 1e9}
	priceExactly(t, p, a, map[string]float64{
		"bus interface buffer push":    L * 1.03e-12 * pj,
		"bus interface buffer pop":     L * 8.26e-13 * pj,
		"bus wire":                     L * 32 * 4.88e-14 * pj * (N - 1),
		"bus interface buffer leakage": N * 2 * 2.30e-3 * secs * pj,
	})

	// A tile pitch outside Noxim's link table, and BookSim's model, are
	// refused before anything runs, naming the key.
	net := energy.NetworkFor(mesh.Bus{N: N}, 2, 8, "")
	for _, c := range []struct {
		p    energy.Params
		want string
	}{
		{energy.Params{Model: energy.Noxim, FlitBits: 32, TileMM: 0.7, ClockHz: 1e9}, "tile_mm = 0.7: allowed a link length of model noxim's table"},
		{energy.Params{Model: energy.BookSim, Tech: "32nm", FlitBits: 32, TileMM: 1, ClockHz: 1e9}, "topology = bus: allowed mesh with model booksim"},
	} {
		m, err := energy.Load(c.p)
		if err == nil {
			err = m.Check(net)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line containing %q", c.p.Model, err, c.want)
		}
	}
}

// priceExactly prices a under p and checks each component against want
// and that they sum to the total.
func priceExactly(t *testing.T, p energy.Params, a energy.Activity, want map[string]float64) energy.Breakdown {
	t.Helper()
	m, err := energy.Load(p)
	if err == nil {
		err = m.Check(energy.NetworkOf(a))
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Energy(a)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, c := range b.Components {
		w, ok := want[c.Name]
		if !ok || math.Abs(c.PJ-w) > 1e-9*math.Max(1, w) {
			t.Errorf("%s %s: %.6g pJ, want %.6g", p.Model, c.Name, c.PJ, w)
		}
		sum += c.PJ
	}
	if len(b.Components) != len(want) || math.Abs(b.TotalPJ()-sum) > 1e-9*sum {
		t.Errorf("%s: %d components, total %g against their sum %g", p.Model, len(b.Components), b.TotalPJ(), sum)
	}
	return b
}

// Random traffic on random buses, read mid-run and at the end: each
// interface holds what it was written less what was read, and was written
// what its NIU sent less what is on the injection channel; once the bus is
// empty everything written was read, the wire carried every flit once,
// and the arbiter granted every packet once. A window's counts are the
// difference.
func TestBusActivityConservation(t *testing.T) {
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 5))
		topo := mesh.Bus{N: 1 + r.IntN(12)}
		eng := des.New()
		rs := router.DefaultSpec()
		rs.VCs, rs.VCBuf = 1+r.IntN(4), 2+r.IntN(6)
		f := endpoint.NewFabric(eng, topo, rs, endpoint.DefaultSpec())
		var sent, packets uint64
		for range 150 {
			src, dst, l := r.IntN(topo.N), r.IntN(topo.N), 1+r.IntN(9)
			f.SendSynthetic(src, dst, l, 0)
			sent += uint64(l)
			packets++
		}
		if err := eng.Run(100); err != nil {
			t.Fatal(err)
		}
		mid, _ := energy.Snapshot(f)
		for i := range topo.N {
			w, rd := mid.Bus.Writes[i], mid.Bus.Reads[i]
			if w-rd != uint64(f.Net.Bus.BufferedAt(i)) || w+uint64(f.Net.Bus.InFlight(i)) != f.NIUs[i].Injected {
				t.Fatalf("seed %d interface %d mid-run: written %d, read %d, buffered %d, on the channel %d, NIU sent %d",
					seed, i, w, rd, f.Net.Bus.BufferedAt(i), f.Net.Bus.InFlight(i), f.NIUs[i].Injected)
			}
		}
		if mt := mid.Totals(); mt.BufferReads != mt.LinkFlits {
			t.Fatalf("seed %d mid-run: %d read out of the interfaces, %d carried", seed, mt.BufferReads, mt.LinkFlits)
		}
		if err := eng.Run(-1); err != nil {
			t.Fatal(err)
		}
		end, _ := energy.Snapshot(f)
		tot := end.Totals()
		if tot.BufferWrites != sent || tot.BufferReads != sent || tot.LinkFlits != sent || tot.BusGrants != packets || tot.Ejected != sent {
			t.Fatalf("seed %d bus %d at the end: %+v; %d flits in %d packets sent", seed, topo.N, tot, sent, packets)
		}
		win, err := end.Sub(mid)
		if err != nil {
			t.Fatal(err)
		}
		if wt, mt := win.Totals(), mid.Totals(); wt.BusGrants != packets-mt.BusGrants || wt.BufferReads != sent-mt.BufferReads || wt.LinkFlits != sent-mt.LinkFlits {
			t.Fatalf("seed %d window: %+v after %+v", seed, wt, mt)
		}
	}
}
