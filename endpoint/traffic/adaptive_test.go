package traffic

import (
	"testing"

	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/router"
)

// Adaptive routing never deadlocks: a 4x4 mesh with 2-flit VCs, far past
// saturation for 10^6 cycles under uniform, transpose and hotspot
// traffic, west-first and Duato's fully adaptive routing alike; the
// watchdog (no flit moving for 2,000 cycles) would end the run with an
// error. Every packet arrives at its own tile (the fabric checks each
// delivery), by a minimal route (the hop counts match the pattern's).
func TestAdaptiveRoutingNeverDeadlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("10^6 saturated cycles per case")
	}
	m, _ := mesh.New(4, 4)
	for _, alg := range []string{mesh.RoutingWestFirst, mesh.RoutingAdaptive} {
		for _, pat := range []string{"uniform", "transpose", "hotspot"} {
			t.Run(alg+"/"+pat, func(t *testing.T) {
				t.Parallel()
				p, err := mesh.NewPattern(pat, m, mesh.HotspotSpec{Nodes: []int{5}, Fraction: 0.3})
				if err != nil {
					t.Fatal(err)
				}
				rs := router.DefaultSpec()
				rs.Routing, rs.VCBuf = alg, 2
				s := Synthetic{Mesh: m, Router: rs, Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: 1.0,
					PacketFlits: 4, Warmup: 0, Measure: 1_000_000, DrainMax: 0, Watchdog: 2000, Seed: 5}
				r, err := s.Run()
				if err != nil {
					t.Fatal(err)
				}
				if r.Cycles < 1_000_000 || r.AcceptedRate < 0.1 {
					t.Fatalf("ran %d cycles at %.3f flits/node/cycle accepted", r.Cycles, r.AcceptedRate)
				}
				if want := meanHops(m, p); r.AvgHops > want*1.02 {
					t.Fatalf("average hops %.3f, the pattern's minimal %.3f", r.AvgHops, want)
				}
			})
		}
	}
}

// Transpose under XY routing saturates below 1/7 flits/node/cycle on an
// 8x8 mesh (its busiest link carries 7 sources' traffic); fully adaptive
// routing spreads it over both minimal quadrant paths and carries 0.2
// unsaturated. West-first is adaptive only for eastward packets, and half
// of transpose's go West: it carries more than XY past saturation.
func TestAdaptiveTransposeBeyondXYBound(t *testing.T) {
	if testing.Short() {
		t.Skip("four 8x8 runs")
	}
	m, _ := mesh.New(8, 8)
	p, _ := mesh.NewPattern("transpose", m, mesh.HotspotSpec{})
	run := func(alg string, rate float64) SynthResult {
		rs := router.DefaultSpec()
		rs.Routing = alg
		s := Synthetic{Mesh: m, Router: rs, Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: rate,
			PacketFlits: 5, Warmup: 5000, Measure: 10000, DrainMax: 20000, Watchdog: 10000, Seed: 2}
		r, err := s.Run()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	bound := 1.0 / 7
	if r := run(mesh.RoutingXY, bound); !r.Saturated {
		t.Fatalf("XY carries transpose at its bound %.3f unsaturated (%.1f cycles): the bound does not bind?", bound, r.AvgPacketLatency)
	}
	if r := run(mesh.RoutingAdaptive, 0.2); r.Saturated || r.AcceptedRate < 0.19 {
		t.Fatalf("adaptive at 0.2: saturated %v (%s), accepted %.3f", r.Saturated, r.SaturationReason, r.AcceptedRate)
	}
	xy, wf := run(mesh.RoutingXY, 0.25), run(mesh.RoutingWestFirst, 0.25)
	if !(wf.AcceptedRate > xy.AcceptedRate*1.05) {
		t.Fatalf("past saturation (0.25 offered) west-first accepts %.3f, XY %.3f: want more", wf.AcceptedRate, xy.AcceptedRate)
	}
	t.Logf("transpose at 0.25 offered: XY accepts %.3f, west-first %.3f flits/node/cycle", xy.AcceptedRate, wf.AcceptedRate)
}
