package endpoint

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/mesh/meshtest"
	"nocsim/router"
)

// On both kinds of ring a lone packet between any two nodes takes the
// routers' zero-load formula at the ring distance: the dateline's VC
// classes cost nothing when the network is idle.
func TestRingZeroLoadEveryPair(t *testing.T) {
	slow := router.DefaultSpec()
	slow.RouteDelay, slow.VCAllocDelay, slow.SwitchAllocDelay, slow.SwitchDelay = 2, 3, 1, 2
	slow.LinkLatency, slow.CreditDelay, slow.VCBuf, slow.VCs = 3, 2, 16, 4
	for _, rs := range []router.Spec{router.DefaultSpec(), slow} {
		for _, r := range []mesh.Ring{meshtest.Ring(t, 7, false), meshtest.Ring(t, 8, false), meshtest.Ring(t, 7, true)} {
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

// On tori of even, odd and rectangular sizes a lone packet between every
// pair of tiles takes the routers' zero-load formula at the torus
// distance, with the defaults and with slow stages and 4 VCs: wrapping
// links and dateline classes cost nothing on an idle network.
func TestTorusZeroLoadEveryPair(t *testing.T) {
	zeroLoadEveryPair(t, []sized{
		{meshtest.Torus(t, 4, 4), []int{1, 5, 20}},
		{meshtest.Torus(t, 5, 3), []int{1, 5, 20}},
		{meshtest.Torus(t, 8, 8), []int{5}},
	})
}

// On concentrated meshes a lone packet between every pair of tiles, two
// tiles of one router included, takes the routers' zero-load formula at
// the router-grid distance, with the defaults and with slow stages and 4
// VCs: the shared router's further local ports add nothing on an idle
// network, and the destination's local port is the one its tile is on.
func TestCMeshZeroLoadEveryPair(t *testing.T) {
	zeroLoadEveryPair(t, []sized{
		{meshtest.CMesh(t, 4, 4), []int{1, 5, 20}},
		{meshtest.CMesh(t, 6, 4), []int{1, 5}},
		{meshtest.CMesh(t, 8, 8), []int{5}},
	})
}

// sized is a topology and the packet lengths to try on it.
type sized struct {
	topo    mesh.Topology
	lengths []int
}

// zeroLoadEveryPair checks a lone packet's latency between every pair of
// nodes of each topology against the zero-load formula at its hop count,
// with the default spec and with slow stages and 4 VCs (topologies of
// more than 16 nodes skipped under -short).
func zeroLoadEveryPair(t *testing.T, nets []sized) {
	slow := router.DefaultSpec()
	slow.RouteDelay, slow.VCAllocDelay, slow.SwitchAllocDelay, slow.SwitchDelay = 2, 3, 1, 2
	slow.LinkLatency, slow.CreditDelay, slow.VCBuf, slow.VCs = 3, 2, 16, 4
	for _, c := range nets {
		tp := c.topo
		if testing.Short() && tp.Nodes() > 16 {
			continue
		}
		for _, rs := range []router.Spec{router.DefaultSpec(), slow} {
			for _, length := range c.lengths {
				for src := range tp.Nodes() {
					for dst := range tp.Nodes() {
						got := loneLatency(t, tp, rs, src, dst, length)
						if want := rs.ZeroLoadLatency(tp.Hops(src, dst), length); got != want {
							t.Fatalf("%s %s->%s (%d hops) length %d: latency %d, formula %d", tp.Name(), tp.Label(src), tp.Label(dst), tp.Hops(src, dst), length, got, want)
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
	b := meshtest.Bus(t, 5)
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

// Ordered messages (between processors) from several sources to several
// destinations arrive in the order each source issued them, on both kinds
// of ring, a torus and the bus, under cross traffic that keeps the VCs
// busy.
func TestOrderedMessagesStayInOrder(t *testing.T) {
	for _, topo := range []mesh.Topology{meshtest.Ring(t, 6, false), meshtest.Ring(t, 6, true), meshtest.Torus(t, 3, 2), meshtest.Bus(t, 6)} {
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
