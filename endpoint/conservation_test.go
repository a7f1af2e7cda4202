package endpoint

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

type hop struct {
	node int
	out  mesh.Port
}

// xyPath is the route dimension-order routing must take, worked out from
// coordinates rather than offsets: along X to the destination column, then
// along Y, then out of the local port.
func xyPath(m mesh.Mesh, src, dst int) []hop {
	x, y := m.XY(src)
	tx, ty := m.XY(dst)
	var path []hop
	for x != tx {
		p := mesh.East
		if tx < x {
			p = mesh.West
		}
		path = append(path, hop{m.ID(x, y), p})
		if p == mesh.East {
			x++
		} else {
			x--
		}
	}
	for y != ty {
		p := mesh.South
		if ty < y {
			p = mesh.North
		}
		path = append(path, hop{m.ID(x, y), p})
		if p == mesh.South {
			y++
		} else {
			y--
		}
	}
	return append(path, hop{dst, mesh.Local})
}

// conserve drives random traffic through a random network and checks that
// every flit is ejected exactly once, at its destination, in order, after
// following the XY path, and that nothing is left behind.
func conserve(t *testing.T, seed uint64) { conserveAt(t, seed, 1) }

// conserveAt is conserve with links moving rate flits per cycle.
func conserveAt(t *testing.T, seed uint64, rate int) { conserveOn(t, seed, rate, false) }

// conserveOn is conserveAt on a random mesh, or on a random concentrated
// mesh (cmesh), whose paths are XY over its router grid, out of the local
// port the destination tile is on.
func conserveOn(t *testing.T, seed uint64, rate int, cmesh bool) {
	r := rand.New(rand.NewPCG(seed, 7))
	m, _ := mesh.New(1+r.IntN(6), 1+r.IntN(6))
	var topo mesh.Topology = m
	path := func(src, dst int) []hop { return xyPath(m, src, dst) }
	vcs := 1 + r.IntN(4)
	if cmesh {
		c, _ := mesh.NewCMesh(2+2*r.IntN(4), 2+2*r.IntN(4))
		topo, vcs = c, 1+r.IntN(8)
		path = func(src, dst int) []hop {
			s, _ := c.RouterOf(src)
			d, p := c.RouterOf(dst)
			hs := xyPath(c.RouterGrid(), s, d)
			hs[len(hs)-1].out = p
			return hs
		}
	}
	rs := router.Spec{
		VCs: vcs, VCBuf: 1 + r.IntN(8),
		RouteDelay: des.Time(r.IntN(3)), VCAllocDelay: des.Time(r.IntN(3)),
		SwitchAllocDelay: des.Time(r.IntN(3)), SwitchDelay: des.Time(r.IntN(3)),
		LinkLatency: des.Time(1 + r.IntN(3)), CreditDelay: des.Time(1 + r.IntN(3)),
		InjectWidth: 1 + r.IntN(3), EjectWidth: 1 + r.IntN(3),
		InjectLatency: des.Time(1 + r.IntN(2)), EjectLatency: des.Time(1 + r.IntN(2)),
		LinkWidth: rate,
	}
	if cmesh && rate == 1 {
		// BookSim's allocators over the router's 8 ports (they need
		// every width 1).
		rs.Allocator = []string{router.AllocGreedy, router.AllocISLIP, router.AllocSeparable}[seed/2%3]
		if rs.Allocator != router.AllocGreedy {
			rs.InjectWidth, rs.EjectWidth = 1, 1
		}
	}
	es := Spec{QueueFlits: 32, MemoryWords: 1 << 12}
	eng := des.New()
	eng.SetWatchdog(5000, nil)
	f := NewFabric(eng, topo, rs, es)
	desc := fmt.Sprintf("seed %d: %s %+v", seed, topo.Name(), rs)

	paths := map[int32][]hop{}
	f.Net.SetTrace(func(node int, in, out mesh.Port, fl router.Flit) {
		if fl.Head {
			paths[fl.Packet] = append(paths[fl.Packet], hop{node, out})
		}
	})
	type want struct{ src, dst, length int }
	sent := map[int32]want{}
	delivered := map[int32]int{}
	var flits uint64
	f.OnDeliver = func(p *Packet, now des.Time) {
		delivered[p.ID]++
		w := sent[p.ID]
		if int(p.Dst) != w.dst || int(p.Len) != w.length {
			t.Errorf("%s: packet %d delivered as %d->%d len %d, sent %+v", desc, p.ID, p.Src, p.Dst, p.Len, w)
		}
		exp := path(w.src, w.dst)
		got := paths[p.ID]
		if fmt.Sprint(got) != fmt.Sprint(exp) {
			t.Errorf("%s: packet %d %d->%d took %v, XY path is %v", desc, p.ID, w.src, w.dst, got, exp)
		}
		delete(paths, p.ID) // ids are recycled
		delete(sent, p.ID)  // a recycled id is a new packet
		delivered[p.ID] = 0 // so is its count
	}
	n := topo.Nodes()
	packets := 50 + r.IntN(300)
	count := 0
	for i := 0; i < packets; i++ {
		at := des.Time(r.IntN(400))
		src, dst, length := r.IntN(n), r.IntN(n), 1+r.IntN(es.QueueFlits)
		eng.Schedule(at, handlerFunc(func(now des.Time) {
			p := f.SendSynthetic(src, dst, length, now)
			if _, dup := sent[p.ID]; dup {
				t.Errorf("%s: packet id %d reused while live", desc, p.ID)
			}
			sent[p.ID] = want{src, dst, length}
			flits += uint64(length)
			count++
		}), 0)
	}
	if err := eng.Run(-1); err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	if f.Err() != nil {
		t.Fatalf("%s: %v", desc, f.Err())
	}
	inj, ej := f.Flits()
	if count != packets || inj != flits || ej != flits {
		t.Fatalf("%s: %d/%d packets created, %d flits injected, %d ejected, want %d", desc, count, packets, inj, ej, flits)
	}
	if len(sent) != 0 || f.LivePackets() != 0 || f.Net.Buffered() != 0 {
		t.Fatalf("%s: %d undelivered, %d live, %d flits left in the network", desc, len(sent), f.LivePackets(), f.Net.Buffered())
	}
	if err := f.CheckQuiescent(); err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
}

type handlerFunc func(now des.Time)

func (h handlerFunc) Handle(now des.Time, _ int64) { h(now) }

func TestConservationRandomNetworks(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
		conserve(t, seed)
	}
}

// The same on concentrated meshes: four tiles share each router, whose
// further local ports inject and eject on channels of their own, with up
// to 8 VCs (the most 8 ports' masks hold), links 1 or 2 flits wide and
// every allocator.
func TestConservationRandomCMeshes(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
		conserveOn(t, seed, 1+int(seed%2), true)
	}
}

func FuzzConservation(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 99, 12345} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { conserve(t, seed) })
}
