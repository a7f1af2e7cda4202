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
	"nocsim/mesh/meshtest"
	"nocsim/router"
)

// lone sends one packet of length flits and runs the fabric to the end.
func lone(t *testing.T, topo mesh.Topology, src, dst, length int) (*endpoint.Fabric, energy.Activity) {
	t.Helper()
	eng := des.New()
	f := endpoint.NewFabric(eng, topo, router.DefaultSpec(), endpoint.DefaultSpec())
	f.SendSynthetic(src, dst, length, 0)
	if err := eng.Run(-1); err != nil {
		t.Fatal(err)
	}
	a, err := energy.Snapshot(f)
	if err != nil {
		t.Fatal(err)
	}
	return f, a
}

// A lone packet of L flits over h links, counted by hand: each of the h+1
// routers on its route buffers, reads and switches L flits (into the port
// it arrives by, out of the port it leaves by) and grants its head one VC;
// each of the h links carries L flits; the source NIU sends L and the
// destination's takes L. Nothing else moves. On a mesh and on a
// concentrated mesh, whose tiles share routers.
func TestLonePacketCountedByHand(t *testing.T) {
	for _, c := range []struct {
		topo     mesh.Topology
		src, dst int
	}{
		{mesh.Mesh{W: 4, H: 3}, 0, 11},
		{mesh.Mesh{W: 4, H: 3}, 5, 5},
		{meshtest.CMesh(t, 6, 4), 0, 23},
		{meshtest.CMesh(t, 6, 4), 7, 0}, // tiles (1,1) and (0,0): one router
	} {
		const L = 7
		_, a := lone(t, c.topo, c.src, c.dst, L)
		h := c.topo.Hops(c.src, c.dst)
		tot := a.Totals()
		want := energy.Totals{BufferWrites: uint64(L * (h + 1)), BufferReads: uint64(L * (h + 1)), Traversals: uint64(L * (h + 1)),
			VCAllocs: uint64(h + 1), LinkFlits: uint64(L * h), Injected: L, Ejected: L, RouterPorts: tot.RouterPorts}
		if tot != want {
			t.Errorf("%s %d->%d (%d hops): %+v, want %+v", c.topo.Name(), c.src, c.dst, h, tot, want)
		}
		// The source's local port took the L flits in, the destination's
		// local port sent them out.
		srcR, srcP, dstR, dstP := c.src, mesh.Local, c.dst, mesh.Local
		if cm, ok := c.topo.(mesh.Concentrated); ok {
			srcR, srcP = cm.RouterOf(c.src)
			dstR, dstP = cm.RouterOf(c.dst)
		}
		if a.Routers[srcR].Writes[srcP] != L || a.Routers[dstR].Out[dstP] != L {
			t.Errorf("%s %d->%d: source port wrote %d, destination port switched out %d; want %d each", c.topo.Name(), c.src, c.dst,
				a.Routers[srcR].Writes[srcP], a.Routers[dstR].Out[dstP], L)
		}
	}
}

// Random traffic on random meshes and cmeshes, read mid-run and at the
// end: every router port's buffer holds what it was written less what was
// read; the flits written into a link port are those its upstream router
// switched onto the link, less those still on it; the local ports took in
// what the NIUs sent (less those on the way) and switched out what they
// took; once the network is empty, every count balances exactly.
func TestActivityConservation(t *testing.T) {
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 3))
		var topo mesh.Topology = mesh.Mesh{W: 1 + r.IntN(5), H: 1 + r.IntN(5)}
		if seed%2 == 1 {
			topo = meshtest.CMesh(t, 2+2*r.IntN(3), 2+2*r.IntN(3))
		}
		eng := des.New()
		rs := router.DefaultSpec()
		rs.VCs, rs.VCBuf = 1+r.IntN(4), 2+r.IntN(6)
		f := endpoint.NewFabric(eng, topo, rs, endpoint.DefaultSpec())
		n := topo.Nodes()
		var sent uint64
		for range 200 {
			src, dst, l := r.IntN(n), r.IntN(n), 1+r.IntN(9)
			f.SendSynthetic(src, dst, l, des.Time(r.IntN(300)))
			sent += uint64(l)
		}
		if err := eng.Run(150); err != nil {
			t.Fatal(err)
		}
		mid, err := energy.Snapshot(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, ra := range mid.Routers {
			rt := f.Net.Routers[i]
			for p := range mesh.Port(ra.Ports) {
				if got := ra.Writes[p] - ra.Reads[p]; got != uint64(rt.BufferedAt(p)) {
					t.Fatalf("seed %d router %d port %v mid-run: written - read = %d, buffered %d", seed, i, p, got, rt.BufferedAt(p))
				}
			}
		}
		if err := eng.Run(-1); err != nil {
			t.Fatal(err)
		}
		end, _ := energy.Snapshot(f)
		tot := end.Totals()
		if tot.BufferWrites != tot.BufferReads || tot.BufferReads != tot.Traversals || tot.Injected != sent || tot.Ejected != sent {
			t.Fatalf("seed %d %s at the end: %+v, %d flits sent", seed, topo.Name(), tot, sent)
		}
		var linkOut, localIn, localOut uint64
		for _, ra := range end.Routers {
			for p := range mesh.Port(ra.Ports) {
				if p.IsLocal() {
					localIn += ra.Writes[p]
					localOut += ra.Out[p]
				} else {
					linkOut += ra.Out[p]
				}
			}
		}
		if linkOut != tot.LinkFlits || localIn != sent || localOut != sent {
			t.Fatalf("seed %d %s: links carried %d, link ports switched %d; local ports took %d and gave %d of %d", seed, topo.Name(), tot.LinkFlits, linkOut, localIn, localOut, sent)
		}
		win, err := end.Sub(mid)
		if err != nil || win.Cycles != end.Cycles-mid.Cycles || win.Totals().Ejected != end.Totals().Ejected-mid.Totals().Ejected {
			t.Fatalf("seed %d: window %+v, %v", seed, win.Totals(), err)
		}
	}
}

// The per-event model's energy is exactly the counts times its table: a
// hand-counted lone packet on a 4x3 mesh with DSENT's 45 nm, 32-bit row,
// leakage is routers x leakage power x time, the components sum to the
// total, and the power is that over the cycles at the clock.
func TestDSENTIsCountsTimesTable(t *testing.T) {
	_, a := lone(t, mesh.Mesh{W: 4, H: 3}, 0, 11, 5)
	p := energy.Params{Model: energy.DSENT, Tech: "45nm", FlitBits: 32, TileMM: 1.5, ClockHz: 2e9}
	m, err := energy.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Energy(a)
	if err != nil {
		t.Fatal(err)
	}
	const h, L = 5, 5 // 0 -> 11 on 4x3: 3 + 2 hops
	cyc, routers := float64(a.Cycles), 12.0
	want := map[string]float64{
		"buffer write":      L * (h + 1) * 1.228,
		"buffer read":       L * (h + 1) * 1.118,
		"crossbar":          L * (h + 1) * 0.548,
		"switch allocation": L * (h + 1) * 0.147,
		"VC allocation":     0,
		"route computation": 0,
		"links":             L * h * 1.292 * 1.5,
		"router clock":      routers * cyc * 0.328,
		"router leakage":    routers * 7.75e-3 * cyc / 2e9 * 1e12,
	}
	sum := 0.0
	for _, c := range b.Components {
		w, ok := want[c.Name]
		if !ok || math.Abs(c.PJ-w) > 1e-9*math.Max(1, w) {
			t.Errorf("%s: %.6g pJ, want %.6g", c.Name, c.PJ, w)
		}
		sum += c.PJ
	}
	if len(b.Components) != len(want) || math.Abs(b.TotalPJ()-sum) > 1e-9*sum {
		t.Errorf("%d components, total %g against their sum %g", len(b.Components), b.TotalPJ(), sum)
	}
	if got, w := b.PowerW(), sum*1e-12/(cyc/2e9); math.Abs(got-w) > 1e-12*w {
		t.Errorf("power %g W, want %g", got, w)
	}
	if math.Abs(b.AreaMM2-12*0.0263) > 1e-12 {
		t.Errorf("area %g mm^2, want 12 routers x 0.0263", b.AreaMM2)
	}
}

// Bad [energy] values are refused naming the key, the value and what is
// allowed.
func TestLoadErrors(t *testing.T) {
	good := energy.Params{Model: energy.DSENT, Tech: "45nm", FlitBits: 32, TileMM: 1, ClockHz: 1e9}
	for _, c := range []struct {
		mod  func(*energy.Params)
		want string
	}{
		{func(p *energy.Params) { p.Model = "orion" }, `energy_model = "orion": allowed none, dsent`},
		{func(p *energy.Params) { p.Tech = "7nm" }, `tech = "7nm": allowed in model dsent, tech/flit_bits one of 11nm/32`},
		{func(p *energy.Params) { p.FlitBits = 128; p.Tech = "22nm" }, `flit_bits = 128: allowed in model dsent`},
		{func(p *energy.Params) { p.TileMM = 0 }, `tile_mm = 0: allowed a positive length`},
		{func(p *energy.Params) { p.ClockHz = -1 }, `clock_hz = -1: allowed a positive frequency`},
		{func(p *energy.Params) { p.Model = "/nonexistent/m.toml" }, `energy_model = "/nonexistent/m.toml": allowed none, dsent, noxim, booksim, or a readable model file (no such file or directory)`},
	} {
		p := good
		c.mod(&p)
		_, err := energy.Load(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", p, err, c.want)
		}
	}
}

// Noxim's model is its power.yaml's numbers times the counts as Noxim
// charges them: a hand-counted lone packet on a 4x3 mesh of the default
// routers (2 VCs of 8 flits), 32-bit flits, links 1 mm; leakage for each
// router's 5 x 2 buffers, crossbar, routing and selection over the time.
func TestNoximIsCountsTimesTable(t *testing.T) {
	_, a := lone(t, mesh.Mesh{W: 4, H: 3}, 0, 11, 5)
	m, err := energy.Load(energy.Params{Model: energy.Noxim, FlitBits: 32, TileMM: 1, ClockHz: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Energy(a)
	if err != nil {
		t.Fatal(err)
	}
	const h, L, pj = 5, 5, 1e12
	secs := float64(a.Cycles) / 1e9
	want := map[string]float64{
		"buffer push":       L * (h + 1) * 1.03e-12 * pj,
		"buffer pop":        L * (h + 1) * 8.26e-13 * pj,
		"crossbar":          L * (h + 1) * 2.21e-13 * pj,
		"links":             L * h * 32 * 4.88e-14 * pj,
		"routing":           (h + 1) * 6.00e-14 * pj,
		"selection":         (h + 1) * 5.00e-14 * pj,
		"buffer leakage":    12 * 5 * 2 * 2.30e-3 * secs * pj,
		"crossbar leakage":  12 * 7.49e-4 * secs * pj,
		"routing leakage":   12 * 1.20e-4 * secs * pj,
		"selection leakage": 12 * 1.10e-4 * secs * pj,
	}
	for _, c := range b.Components {
		if w, ok := want[c.Name]; !ok || math.Abs(c.PJ-w) > 1e-9*math.Max(1, w) {
			t.Errorf("%s: %.6g pJ, want %.6g", c.Name, c.PJ, w)
		}
	}
	if len(b.Components) != len(want) {
		t.Errorf("%d components, want %d", len(b.Components), len(want))
	}
	// A buffer depth, link length or router size outside Noxim's tables
	// is refused naming the key.
	a.VCBuf = 5
	if _, err := m.Energy(a); err == nil || !strings.Contains(err.Error(), "vc_buf = 5") {
		t.Errorf("vc_buf 5: %v", err)
	}
	m2, _ := energy.Load(energy.Params{Model: energy.Noxim, FlitBits: 32, TileMM: 0.7, ClockHz: 1e9})
	a.VCBuf = 8
	if _, err := m2.Energy(a); err == nil || !strings.Contains(err.Error(), "tile_mm = 0.7") {
		t.Errorf("tile_mm 0.7: %v", err)
	}
	_, c := lone(t, meshtest.CMesh(t, 4, 4), 0, 15, 2)
	if _, err := m.Energy(c); err == nil || !strings.Contains(err.Error(), "5-port") {
		t.Errorf("cmesh: %v", err)
	}
}
