package study_test

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"nocsim/endpoint/traffic"
	"nocsim/mesh"
	"nocsim/router"
	"nocsim/scenarios"
	"nocsim/scenarios/study"
)

// ---------------------------------------------------------------- physics

// channelLoadBound is the offered load (flits/node/cycle) at which the
// busiest router-to-router link of m is fully used by pattern p under XY
// routing, computed from the pattern's distribution and the routing
// function, independently of the simulator.
func channelLoadBound(t *testing.T, m mesh.Mesh, p mesh.Pattern) float64 {
	t.Helper()
	load := map[[2]int]float64{}
	for s := 0; s < m.Nodes(); s++ {
		p.Dist(s, func(d int, w float64) {
			n := s
			dx, dy := m.Offsets(s, d)
			for {
				var port mesh.Port
				port, dx, dy = m.Route(dx, dy)
				if port == mesh.Local {
					if n != d {
						t.Fatalf("route %d->%d ends at %d", s, d, n)
					}
					return
				}
				load[[2]int{n, int(port)}] += w
				var ok bool
				if n, ok = m.Neighbor(n, port); !ok {
					t.Fatalf("route %d->%d leaves the mesh", s, d)
				}
			}
		})
	}
	mx := 0.0
	for _, l := range load {
		mx = max(mx, l)
	}
	return 1 / mx
}

// zeroLoad is the analytic zero-load latency averaged over all sources and
// the pattern's destinations.
func zeroLoad(m mesh.Mesh, rs router.Spec, p mesh.Pattern, flits int) float64 {
	sum := 0.0
	for s := 0; s < m.Nodes(); s++ {
		p.Dist(s, func(d int, w float64) { sum += w * float64(rs.ZeroLoadLatency(m.Hops(s, d), flits)) })
	}
	return sum / float64(m.Nodes())
}

func TestChannelLoadBounds(t *testing.T) {
	m, _ := mesh.New(8, 8)
	for _, c := range []struct {
		name string
		want float64
	}{{"uniform", 0.5}, {"transpose", 1.0 / 7}} {
		p, err := mesh.NewPattern(c.name, m, mesh.HotspotSpec{})
		if err != nil {
			t.Fatal(err)
		}
		if got := channelLoadBound(t, m, p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s on 8x8: channel-load bound %v, want %v", c.name, got, c.want)
		}
	}
}

// The physics points run once on the default 8x8 network (2 VCs x 8 flits,
// 5-flit packets) with a 5000-cycle window, in parallel across cores.
var physics struct {
	once sync.Once
	pts  []traffic.Synthetic
	res  []traffic.SynthResult
	err  error
}

const transposeBound = 1.0 / 7

func physicsResults(t *testing.T) ([]traffic.Synthetic, []traffic.SynthResult) {
	t.Helper()
	physics.once.Do(func() {
		base := scenarios.Defaults()
		if base.Network.Mesh != "8x8" || base.Network.VCs != 2 || base.Network.VCBuf != 8 || base.Noc.PacketFlits != 5 {
			physics.err = fmt.Errorf("defaults are no longer 8x8, 2 VCs x 8 flits, 5-flit packets: %+v", base)
			return
		}
		base.Noc.MeasureCycles = 5000
		uni := base
		uni.Noc.Traffic, uni.Noc.Rates = []string{"uniform"}, []float64{0.02, 0.3, 0.5}
		tr := base
		tr.Noc.Traffic, tr.Noc.Rates = []string{"transpose"}, []float64{0.05, transposeBound}
		for _, sc := range []scenarios.Scenario{uni, tr} {
			pts, err := sc.NocPoints(nil)
			if err != nil {
				physics.err = err
				return
			}
			physics.pts = append(physics.pts, pts...)
		}
		physics.res, physics.err = study.RunNoc(physics.pts, scenarios.RunOptions{})
	})
	if physics.err != nil {
		t.Fatal(physics.err)
	}
	return physics.pts, physics.res
}

func physicsPoint(t *testing.T, pattern string, rate float64) (traffic.Synthetic, traffic.SynthResult) {
	t.Helper()
	pts, res := physicsResults(t)
	for i, p := range pts {
		if p.Pattern.Name() == pattern && p.Rate == rate {
			return p, res[i]
		}
	}
	t.Fatalf("no physics point for %s at %v", pattern, rate)
	return traffic.Synthetic{}, traffic.SynthResult{}
}

func describe(r traffic.SynthResult) string {
	return fmt.Sprintf("offered %.4f generated %.4f accepted %.4f, avg latency %.1f (zero-load %.1f, p99 %.0f), link util max %.3f, delivered %d/%d, reason %q",
		r.OfferedRate, r.GeneratedRate, r.AcceptedRate, r.AvgPacketLatency, r.ZeroLoadLatency, r.P99, r.LinkUtilMax,
		r.Delivered, r.Measured, r.SaturationReason)
}

// Uniform random traffic on 8x8 has a channel-load bound of 0.5: at 0.3 the
// network keeps up, at 0.5 it cannot.
func TestUniformSaturation8x8(t *testing.T) {
	if _, r := physicsPoint(t, "uniform", 0.3); r.Saturated {
		t.Errorf("uniform at 0.3 (60%% of the bound) reported saturated: %s", describe(r))
	}
	if _, r := physicsPoint(t, "uniform", 0.5); !r.Saturated {
		t.Errorf("uniform at 0.5 (the channel-load bound) not reported saturated: %s", describe(r))
	}
}

// Transpose on 8x8 loads its busiest link with 7 sources: its channel-load
// bound is 1/7. At 0.05 it keeps up.
func TestTransposeUnsaturatedAtLightLoad8x8(t *testing.T) {
	if _, r := physicsPoint(t, "transpose", 0.05); r.Saturated {
		t.Errorf("transpose at 0.05 reported saturated: %s", describe(r))
	}
}

// At exactly its channel-load bound of 1/7 flits/node/cycle, transpose
// traffic saturates the 8x8 mesh: the busiest link would have to be busy
// every cycle.
func TestTransposeSaturatedAtChannelLoadBound8x8(t *testing.T) {
	if _, r := physicsPoint(t, "transpose", transposeBound); !r.Saturated {
		t.Errorf("transpose at 1/7 (its channel-load bound) not reported saturated: %s", describe(r))
	}
}

// At a light load a packet rarely waits: the mean latency is the analytic
// zero-load latency within 5%, and the network accepts what is generated.
func TestLowLoadMatchesZeroLoad8x8(t *testing.T) {
	p, r := physicsPoint(t, "uniform", 0.02)
	t0 := zeroLoad(p.Mesh, p.Router, p.Pattern, p.PacketFlits)
	if math.Abs(r.ZeroLoadLatency-t0) > 1e-9 {
		t.Errorf("reported zero-load latency %v, analytic %v", r.ZeroLoadLatency, t0)
	}
	if r.Delivered == 0 || math.Abs(r.AvgPacketLatency-t0) > 0.05*t0 {
		t.Errorf("average packet latency %v is not within 5%% of the zero-load latency %v: %s", r.AvgPacketLatency, t0, describe(r))
	}
	if r.AvgPacketLatency < float64(p.Router.ZeroLoadLatency(0, p.PacketFlits)) {
		t.Errorf("average latency %v below the zero-hop latency", r.AvgPacketLatency)
	}
	if math.Abs(r.AcceptedRate-r.GeneratedRate) > 0.02*r.GeneratedRate {
		t.Errorf("accepted %v, generated %v: differ by more than 2%%", r.AcceptedRate, r.GeneratedRate)
	}
	// The generator produces the offered load, within five standard
	// deviations of a Bernoulli count.
	n := float64(p.Mesh.Nodes()) * float64(p.Measure) * p.Rate / float64(p.PacketFlits)
	if math.Abs(r.GeneratedRate-p.Rate) > 5*p.Rate/math.Sqrt(n) {
		t.Errorf("generated %v flits/node/cycle for an offered %v", r.GeneratedRate, p.Rate)
	}
	if r.Saturated {
		t.Errorf("saturated at 0.02: %s", describe(r))
	}
}

func TestPhysicsPointsConserve(t *testing.T) {
	pts, res := physicsResults(t)
	for i, r := range res {
		checkConservation(t, fmt.Sprintf("8x8 %s at %v", r.Traffic, pts[i].Rate), r)
	}
}
