package traffic

import (
	"math"
	"testing"

	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mesh/meshtest"
	"nocsim/router"
)

// maxChannelLoad is the flits per cycle on the busiest router-to-router
// link of topo per flit/node/cycle offered with pattern p (numbering the
// tiles by grid), by walking every route the routing function takes,
// independently of the simulator. 1/maxChannelLoad is the offered load at
// which that link is fully used: the channel-load bound on throughput.
func maxChannelLoad(t *testing.T, topo mesh.Topology, p mesh.Pattern) float64 {
	t.Helper()
	load := map[[2]int]float64{}
	for s := range topo.Nodes() {
		p.Dist(s, func(d int, w float64) {
			n := s
			dx, dy := topo.Offsets(s, d)
			for {
				var port mesh.Port
				port, dx, dy = topo.Route(dx, dy)
				if port == mesh.Local {
					if n != d {
						t.Fatalf("%s: route %d->%d ends at %d", topo.Name(), s, d, n)
					}
					return
				}
				load[[2]int{n, int(port)}] += w
				var ok bool
				if n, ok = topo.Neighbor(n, port); !ok {
					t.Fatalf("%s: route %d->%d takes a link that does not exist", topo.Name(), s, d)
				}
			}
		})
	}
	mx := 0.0
	for _, l := range load {
		mx = max(mx, l)
	}
	return mx
}

// torusUniformBound is the closed form of the uniform channel-load bound on
// a k x k torus routed as Torus routes: each dimension's links in one
// direction carry, per unit of offered load, the mean hops taken that way,
// sum of d over the destinations reached going up divided by k. With k
// even the tie (k/2 hops) goes up, so the up links carry
// (1+...+k/2)/k = (k+2)/8 and the bound is 8/(k+2); with k odd there is no
// tie and both directions carry (k^2-1)/(8k). The textbook 8/k (a load of
// k/8, Dally and Towles) assumes ties split evenly between directions; a
// fixed tie direction costs the even torus k/(k+2) of it (0.8 on 8x8
// instead of 1).
func torusUniformBound(k int) float64 {
	if k%2 == 0 {
		return 8 / float64(k+2)
	}
	return 8 * float64(k) / float64(k*k-1)
}

// The channel-load bound computed by walking every route matches the
// closed form for uniform traffic on square tori, odd and even, and gives
// tornado its textbook 1/(ceil(k/2)-1) on 8x8 (every East link carries
// three sources' flows, then every South link).
func TestTorusChannelLoadBounds(t *testing.T) {
	for _, k := range []int{3, 4, 5, 8, 9, 16} {
		tr := meshtest.Torus(t, k, k)
		p, _ := mesh.NewPattern("uniform", tr.Grid(), mesh.HotspotSpec{})
		if got, want := 1/maxChannelLoad(t, tr, p), torusUniformBound(k); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s uniform: channel-load bound %v, closed form %v", tr.Name(), got, want)
		}
	}
	tr := meshtest.Torus(t, 8, 8)
	p, _ := mesh.NewPattern("tornado", tr.Grid(), mesh.HotspotSpec{})
	if got := 1 / maxChannelLoad(t, tr, p); math.Abs(got-1.0/3) > 1e-12 {
		t.Errorf("%s tornado: channel-load bound %v, want 1/3", tr.Name(), got)
	}
}

// Under uniform traffic an 8x8 torus saturates between 60% and 80% of its
// channel-load bound (0.8 flits/node/cycle): below 0.48 it carries what is
// offered, at 0.64 it no longer does. The band is where input-queued
// wormhole routers with separable allocators typically land (the 8x8 mesh
// here reaches 70-80% of its 0.5, docs/network.md): the allocator does
// not find a maximum matching, a blocked worm holds its VC across several
// routers, and the datelines give each packet only half the VCs. Above
// 80% would mean the bound or the routing is wrong, below 60% a router
// that wastes the links. It runs with 8 VCs (4 per
// class) of 8 flits and 5-flit packets; with 2 VCs, one per class, the
// same torus saturates near 0.3, about 37% of the bound (docs/network.md).
func TestTorusUniformSaturation8x8(t *testing.T) {
	if testing.Short() {
		t.Skip("8x8 runs past saturation")
	}
	tr := meshtest.Torus(t, 8, 8)
	p, _ := mesh.NewPattern("uniform", tr.Grid(), mesh.HotspotSpec{})
	bound := 1 / maxChannelLoad(t, tr, p)
	rs := router.DefaultSpec()
	rs.VCs = 8
	run := func(rate float64) SynthResult {
		s := Synthetic{Mesh: tr.Grid(), Topo: tr, Router: rs, Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: rate,
			PacketFlits: 5, Warmup: 1000, Measure: 5000, DrainMax: 5000, Watchdog: 2000, Seed: 1}
		r, err := s.Run()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	best := 0.0 // the highest rate that does not saturate
	for _, frac := range []float64{0.6, 0.65, 0.7, 0.75, 0.8} {
		rate := frac * bound
		r := run(rate)
		t.Logf("%s uniform %.2f flits/node/cycle (%.0f%% of the bound %.2f): accepted %.3f, latency %.1f, saturated %v %s",
			tr.Name(), rate, 100*frac, bound, r.AcceptedRate, r.AvgPacketLatency, r.Saturated, r.SaturationReason)
		if r.Saturated {
			break
		}
		if math.Abs(r.AcceptedRate-rate) > 0.02*rate {
			t.Errorf("%.2f offered, unsaturated, but %.3f accepted", rate, r.AcceptedRate)
		}
		best = rate
	}
	switch {
	case best < 0.6*bound:
		t.Errorf("saturates below 60%% of the bound %.2f", bound)
	case best >= 0.8*bound:
		t.Errorf("still unsaturated at 80%% of the bound %.2f: the bound or the routing is off", bound)
	}
	t.Logf("saturation throughput at least %.3f flits/node/cycle, %.0f%% of the channel-load bound", best, 100*best/bound)
}
