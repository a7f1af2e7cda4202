package endpoint

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

func mustRing(t *testing.T, n int, uni bool) mesh.Ring {
	t.Helper()
	r, err := mesh.NewRing(n, uni)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustBus(t *testing.T, n int) mesh.Bus {
	t.Helper()
	b, err := mesh.NewBus(n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// On both kinds of ring a lone packet between any two nodes takes the
// routers' zero-load formula at the ring distance: the dateline's VC
// classes cost nothing when the network is idle.
func TestRingZeroLoadEveryPair(t *testing.T) {
	slow := router.DefaultSpec()
	slow.RouteDelay, slow.VCAllocDelay, slow.SwitchAllocDelay, slow.SwitchDelay = 2, 3, 1, 2
	slow.LinkLatency, slow.CreditDelay, slow.VCBuf, slow.VCs = 3, 2, 16, 4
	for _, rs := range []router.Spec{router.DefaultSpec(), slow} {
		for _, r := range []mesh.Ring{mustRing(t, 7, false), mustRing(t, 8, false), mustRing(t, 7, true)} {
			for _, length := range []int{1, 5, 20} {
				for src := range r.N {
					for dst := range r.N {
						got := loneLatency(t, r, rs, src, dst, length)
						if want := rs.ZeroLoadLatency(r.Hops(src, dst), length); got != want {
							t.Fatalf("%s %d->%d (%d hops) length %d: latency %d, formula %d", r.Name(), src, dst, r.Hops(src, dst), length, got, want)
						}
					}
				}
			}
		}
	}
}

// On a bus a lone packet between any two nodes, itself included, takes
// BusZeroLoadLatency, whatever the stage delays and widths.
func TestBusZeroLoadEveryPair(t *testing.T) {
	specs := map[string]func(*router.Spec){
		"defaults": func(*router.Spec) {},
		"slow": func(s *router.Spec) {
			s.SwitchAllocDelay, s.LinkLatency, s.CreditDelay, s.InjectLatency, s.EjectLatency, s.VCBuf = 3, 4, 2, 2, 3, 16
		},
		"zero-cycle arbitration": func(s *router.Spec) { s.SwitchAllocDelay = 0 },
		"two flits a cycle":      func(s *router.Spec) { s.LinkWidth = 2 },
	}
	b := mustBus(t, 5)
	for name, mod := range specs {
		rs := router.DefaultSpec()
		mod(&rs)
		for _, length := range []int{1, 2, 5, 20} {
			for src := range b.N {
				for dst := range b.N {
					if got, want := loneLatency(t, b, rs, src, dst, length), rs.BusZeroLoadLatency(length); got != want {
						t.Fatalf("%s: %d->%d length %d: latency %d, formula %d", name, src, dst, length, got, want)
					}
				}
			}
		}
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
		ring := mustRing(t, 12, uni)
		run := func(topo mesh.Topology, seed uint64) (SynthResult, error) {
			s := Synthetic{Mesh: line, Topo: topo, Router: router.DefaultSpec(), Endpoint: DefaultSpec(),
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

// Ordered messages (between processors) from several sources to several
// destinations arrive in the order each source issued them, on both kinds
// of ring and on the bus, under cross traffic that keeps the VCs busy.
func TestOrderedMessagesStayInOrder(t *testing.T) {
	for _, topo := range []mesh.Topology{mustRing(t, 6, false), mustRing(t, 6, true), mustBus(t, 6)} {
		t.Run(topo.Name(), func(t *testing.T) {
			rs := router.DefaultSpec()
			rs.VCs = 4
			es := DefaultSpec()
			es.MemoryWords = 1 << 16
			eng := des.New()
			mc := NewMachine(eng, topo, rs, es, DefaultCPUSpec())
			defer mc.Close()
			type pair struct{ src, dst int }
			issued := map[pair][]int32{}
			got := map[pair][]int32{}
			mc.OnDeliver = func(p *Packet, _ des.Time) {
				k := pair{int(p.Src), int(p.Dst)}
				got[k] = append(got[k], p.ID)
			}
			rng := rand.New(rand.NewPCG(7, 7))
			for i := range 300 {
				src, dst := rng.IntN(6), rng.IntN(6)
				words := make([]uint32, 1+rng.IntN(12))
				p, err := mc.SendWords(src, dst, KindData, uint32(64*i%4096), 1, words, des.Time(i/8))
				if err != nil {
					t.Fatal(err)
				}
				issued[pair{src, dst}] = append(issued[pair{src, dst}], p.ID)
			}
			if err := mc.Run(-1); err != nil {
				t.Fatal(err)
			}
			if mc.Err() != nil {
				t.Fatal(mc.Err())
			}
			for k, ids := range issued {
				if fmt.Sprint(got[k]) != fmt.Sprint(ids) {
					t.Errorf("%d->%d: issued %v, delivered %v", k.src, k.dst, ids, got[k])
				}
			}
			if err := mc.CheckQuiescent(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// ZeroLoad's shortcut for rings and buses (every node sees the same
// distances) gives the brute-force average of each pair's formula.
func TestZeroLoadOnRingAndBusMatchesBruteForce(t *testing.T) {
	rs := router.DefaultSpec()
	rs.RouteDelay, rs.LinkLatency = 2, 3
	for _, n := range []int{1, 7, 16} {
		line, _ := mesh.New(n, 1)
		for _, topo := range []mesh.Topology{mustRing(t, n, false), mustRing(t, n, true), mustBus(t, n)} {
			for _, name := range mesh.PatternNames {
				p, err := mesh.NewPattern(name, line, mesh.HotspotSpec{Nodes: []int{0, n - 1}, Fraction: 0.3})
				if err != nil {
					continue
				}
				want := 0.0
				for s := range n {
					p.Dist(s, func(d int, w float64) { want += w * float64(rs.ZeroLoad(topo, topo.Hops(s, d), 5)) })
				}
				want /= float64(n)
				if got := ZeroLoad(topo, rs, p, 5); math.Abs(got-want) > 1e-9*want {
					t.Errorf("%s %s: ZeroLoad %v, brute force %v", topo.Name(), name, got, want)
				}
			}
		}
	}
}

// Ring and bus runs keep the ticker contract: visiting the components in
// a random order each cycle gives the same result as id order.
func TestRingAndBusIgnoreTickOrder(t *testing.T) {
	line, _ := mesh.New(10, 1)
	pat, _ := mesh.NewPattern("uniform", line, mesh.HotspotSpec{})
	for _, topo := range []mesh.Topology{mustRing(t, 10, false), mustRing(t, 10, true), mustBus(t, 10)} {
		var res [2]SynthResult
		for i, shuffle := range []bool{false, true} {
			s := Synthetic{Mesh: line, Topo: topo, Router: router.DefaultSpec(), Endpoint: DefaultSpec(),
				Pattern: pat, Rate: 0.08, PacketFlits: 5, Warmup: 300, Measure: 2000, DrainMax: 2000,
				Watchdog: 2000, Seed: 9, Shuffle: shuffle}
			r, err := s.Run()
			if err != nil {
				t.Fatal(err)
			}
			r.WallSeconds, r.Ticks = 0, 0 // the simulator's work, as in TestSyntheticDeterministic
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
