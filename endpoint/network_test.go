package endpoint_test

// Tests of the network hardware (VC allocation, the ring's and the torus's
// datelines, the bus, the ticker contract) that drive it with the synthetic-traffic
// harness. They sit in an external test package because endpoint/traffic
// imports endpoint.

import (
	"errors"
	"fmt"
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/endpoint/traffic"
	"nocsim/mesh"
	"nocsim/mesh/meshtest"
	"nocsim/router"
)

// Under uniform traffic with 2 VCs, round-robin VC allocation spreads the
// router-to-router flits evenly: each VC carries 40-60% of them, for
// 1-flit and 5-flit packets, with both presets. Granting the lowest free
// VC does not: VC0 carries well over 60% at the same load, which is what
// the test would catch if round_robin fell back to it.
func TestVCBalanceUniform(t *testing.T) {
	if testing.Short() {
		t.Skip("8x8 runs")
	}
	m, _ := mesh.New(8, 8)
	pat, err := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	if err != nil {
		t.Fatal(err)
	}
	for _, preset := range router.PresetNames {
		for _, length := range []int{1, 5} {
			for _, policy := range []string{router.VCAllocRoundRobin, router.VCAllocLowest} {
				rs, _ := router.Preset(preset)
				// vc_alloc is the greedy allocator's policy (BookSim's
				// matchings, the booksim preset's, choose by matching).
				rs.VCs, rs.VCAlloc, rs.Allocator = 2, policy, router.AllocGreedy
				s := traffic.Synthetic{Mesh: m, Router: rs, Endpoint: endpoint.DefaultSpec(), Pattern: pat, Rate: 0.15, PacketFlits: length,
					Warmup: 500, Measure: 2000, DrainMax: 5000, Watchdog: 5000, Seed: 3}
				res, err := s.Run()
				if err != nil {
					t.Fatal(err)
				}
				if len(res.VCShare) != 2 || res.Saturated {
					t.Fatalf("%s %d flits %s: shares %v, saturated %v", preset, length, policy, res.VCShare, res.Saturated)
				}
				sum := res.VCShare[0] + res.VCShare[1]
				if sum < 1-1e-12 || sum > 1+1e-12 {
					t.Errorf("%s %d flits %s: shares %v do not add up to 1", preset, length, policy, res.VCShare)
				}
				var flits uint64
				for _, l := range res.Links {
					for _, n := range l.VCFlits {
						flits += n
					}
				}
				if want := res.LinkUtilMean * float64(len(res.Links)) * float64(s.Measure); float64(flits) < want-0.5 || float64(flits) > want+0.5 {
					t.Errorf("%s %d flits %s: per-VC link counts sum to %d, link utilisation says %.1f", preset, length, policy, flits, want)
				}
				balanced := res.VCShare[0] >= 0.4 && res.VCShare[0] <= 0.6
				if policy == router.VCAllocRoundRobin && !balanced {
					t.Errorf("%s %d flits round_robin: VC shares %v, want each 0.4..0.6", preset, length, res.VCShare)
				}
				if policy == router.VCAllocLowest && res.VCShare[0] <= 0.6 {
					t.Errorf("%s %d flits lowest: VC0 share %.3f, expected the lowest VC to dominate", preset, length, res.VCShare[0])
				}
			}
		}
	}
}

// Synthetic uniform traffic on a bus: zero-load latency at low load, and
// at saturation an accepted rate that reaches the bus's capacity (width
// flits per cycle over all nodes) without exceeding it.
func TestBusSyntheticCapacity(t *testing.T) {
	const n = 8
	line, _ := mesh.New(n, 1)
	pat, _ := mesh.NewPattern("uniform", line, mesh.HotspotSpec{})
	run := func(rate float64) traffic.SynthResult {
		s := traffic.Synthetic{Mesh: line, Topo: meshtest.Bus(t, n), Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(),
			Pattern: pat, Rate: rate, PacketFlits: 4, Warmup: 1000, Measure: 8000, DrainMax: 2000, Watchdog: 2000, Seed: 5}
		res, err := s.Run()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	low := run(0.005)
	if z := float64(router.DefaultSpec().BusZeroLoadLatency(4)); low.ZeroLoadLatency != z || low.AvgPacketLatency > 1.1*z {
		t.Errorf("low load: zero-load %v (formula %v), mean latency %v", low.ZeroLoadLatency, z, low.AvgPacketLatency)
	}
	sat := run(0.5)
	capacity := 1.0 / n
	if !sat.Saturated || sat.AcceptedRate > capacity*1.01 || sat.AcceptedRate < 0.95*capacity {
		t.Errorf("saturated: accepted %v flits/node/cycle, bus capacity %v (saturated %v)", sat.AcceptedRate, capacity, sat.Saturated)
	}
	if sat.LinkUtilMax > 1 {
		t.Errorf("bus utilisation %v flits/cycle above its width", sat.LinkUtilMax)
	}
}

// noClasses is a ring whose routers cannot see the VC classes: it hides
// RouteClass, so every head may take any VC, as a ring without the
// dateline rule would.
type noClasses struct{ mesh.Topology }

// A saturated ring with 2 VCs never deadlocks with the dateline classes;
// the same ring and traffic without them deadlocks within the watchdog,
// which shows the rule is what keeps it alive.
func TestRingDatelinePreventsDeadlock(t *testing.T) {
	line, _ := mesh.New(12, 1)
	pat, err := mesh.NewPattern("uniform", line, mesh.HotspotSpec{})
	if err != nil {
		t.Fatal(err)
	}
	for _, uni := range []bool{false, true} {
		ring := meshtest.Ring(t, 12, uni)
		run := func(topo mesh.Topology, seed uint64) (traffic.SynthResult, error) {
			s := traffic.Synthetic{Mesh: line, Topo: topo, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(),
				Pattern: pat, Rate: 0.6, PacketFlits: 12, Warmup: 500, Measure: 3000, DrainMax: 3000,
				Watchdog: 1000, Seed: seed}
			s.Router.VCs, s.Router.VCBuf = 2, 4
			return s.Run()
		}
		for seed := uint64(1); seed <= 3; seed++ {
			res, err := run(ring, seed)
			if err != nil {
				t.Fatalf("%s seed %d with the dateline: %v", ring.Name(), seed, err)
			}
			if !res.Saturated {
				t.Errorf("%s seed %d: 0.6 flits/node/cycle should saturate a 12-node ring", ring.Name(), seed)
			}
			_, err = run(noClasses{ring}, seed)
			var stall *des.Stall
			if !errors.As(err, &stall) {
				t.Errorf("%s seed %d without the dateline: %v, want a deadlock", ring.Name(), seed, err)
			}
		}
	}
}

// A saturated torus with 2 VCs (one per class) never deadlocks with its
// datelines, under uniform and tornado traffic at 0.6 flits/node/cycle,
// far past saturation (uniform saturates near 0.3 with 2 VCs, tornado
// near 0.1), with 12-flit worms over 4-flit buffers so that each spans
// three routers; 10000 cycles each. The same tori and traffic without the
// class rule deadlock within the watchdog: the wrap-around links close
// every row and column into a cycle of buffers that only the datelines
// break. (Tornado on 6x6 moves two hops per dimension, too few to close a
// cycle, so only uniform traffic runs there.)
func TestTorusDatelinesPreventDeadlock(t *testing.T) {
	for _, c := range []struct {
		w, h    int
		pattern string
	}{
		{8, 8, "uniform"}, {8, 8, "tornado"}, {6, 6, "uniform"},
	} {
		tr := meshtest.Torus(t, c.w, c.h)
		pat, err := mesh.NewPattern(c.pattern, tr.Grid(), mesh.HotspotSpec{})
		if err != nil {
			t.Fatal(err)
		}
		run := func(topo mesh.Topology, seed uint64) (traffic.SynthResult, error) {
			s := traffic.Synthetic{Mesh: tr.Grid(), Topo: topo, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(),
				Pattern: pat, Rate: 0.6, PacketFlits: 12, Warmup: 1000, Measure: 6000, DrainMax: 3000,
				Watchdog: 1000, Seed: seed}
			s.Router.VCs, s.Router.VCBuf = 2, 4
			return s.Run()
		}
		for seed := uint64(1); seed <= 3; seed++ {
			res, err := run(tr, seed)
			if err != nil {
				t.Fatalf("%s %s seed %d with the datelines: %v", tr.Name(), c.pattern, seed, err)
			}
			if !res.Saturated || res.Delivered == 0 {
				t.Errorf("%s %s seed %d: saturated %v, %d delivered; want a saturated network still delivering", tr.Name(), c.pattern, seed, res.Saturated, res.Delivered)
			}
			_, err = run(noClasses{tr}, seed)
			var stall *des.Stall
			if !errors.As(err, &stall) || stall.Report == "" {
				t.Errorf("%s %s seed %d without the datelines: %v, want a deadlock report", tr.Name(), c.pattern, seed, err)
			}
		}
	}
}

// Ring, torus and bus runs keep the ticker contract: visiting the
// components in a random order each cycle gives the same result as id
// order.
func TestRingTorusAndBusIgnoreTickOrder(t *testing.T) {
	line, _ := mesh.New(10, 1)
	pat, _ := mesh.NewPattern("uniform", line, mesh.HotspotSpec{})
	for _, topo := range []mesh.Topology{meshtest.Ring(t, 10, false), meshtest.Ring(t, 10, true), meshtest.Torus(t, 5, 2), meshtest.Bus(t, 10)} {
		var res [2]traffic.SynthResult
		for i, shuffle := range []bool{false, true} {
			s := traffic.Synthetic{Mesh: line, Topo: topo, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(),
				Pattern: pat, Rate: 0.08, PacketFlits: 5, Warmup: 300, Measure: 2000, DrainMax: 2000,
				Watchdog: 2000, Seed: 9, Shuffle: shuffle}
			r, err := s.Run()
			if err != nil {
				t.Fatal(err)
			}
			r.WallSeconds, r.Ticks = 0, 0 // the simulator's work, as in traffic.TestSyntheticDeterministic
			res[i] = r
		}
		if a, b := fmt.Sprintf("%+v", res[0]), fmt.Sprintf("%+v", res[1]); a != b {
			t.Errorf("%s: id order\n%s\nshuffled\n%s", topo.Name(), a, b)
		}
		if res[0].Delivered == 0 {
			t.Errorf("%s: nothing delivered", topo.Name())
		}
	}
}

// A torus of one row is a ring: the same links, routes, ties and dateline,
// though its offsets are packed differently. Its runs give the ring's
// results to the last counter, below and past saturation.
func TestTorusRowIsARing(t *testing.T) {
	line, _ := mesh.New(8, 1)
	pat, _ := mesh.NewPattern("uniform", line, mesh.HotspotSpec{})
	for _, rate := range []float64{0.1, 0.6} {
		var res [2]traffic.SynthResult
		for i, topo := range []mesh.Topology{meshtest.Ring(t, 8, false), meshtest.Torus(t, 8, 1)} {
			s := traffic.Synthetic{Mesh: line, Topo: topo, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(),
				Pattern: pat, Rate: rate, PacketFlits: 5, Warmup: 300, Measure: 3000, DrainMax: 3000, Watchdog: 2000, Seed: 4}
			r, err := s.Run()
			if err != nil {
				t.Fatal(err)
			}
			r.WallSeconds = 0
			res[i] = r
		}
		if a, b := fmt.Sprintf("%+v", res[0]), fmt.Sprintf("%+v", res[1]); a != b {
			t.Errorf("rate %v: ring 8\n%s\ntorus 8x1\n%s", rate, a, b)
		}
	}
}
