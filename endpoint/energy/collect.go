package energy

import (
	"cmp"

	"nocsim/endpoint"
	"nocsim/mesh"
)

// LinkTiles is the length of a router-to-router link of topology t in tile
// pitches: 1 on a mesh; 2 on a concentrated mesh (its routers are two tiles
// apart) and on a torus or ring, taken as folded (every link spans two
// tiles, so that the wrap-around link is no longer than the others). A
// bus's wire passes every one of its N tiles, laid out as the chip's
// grid, in a serpentine: N-1 pitches, which every flit drives whole.
func LinkTiles(t mesh.Topology) float64 {
	switch t := t.(type) {
	case mesh.Mesh:
		return 1
	case mesh.Bus:
		return float64(t.Nodes() - 1)
	}
	return 2
}

// Snapshot reads a fabric's counters at the engine's current cycle: for
// each router, per port, the flits that have arrived in its input buffers
// (sent upstream, less those still on their way), those switched out of
// them (arrived, less those still buffered) and those switched to each
// output; each link's flits; each NIU's; each router's busy cycles. On a
// bus (snapshotBus), its interfaces', wire's and arbiter's.
func Snapshot(f *endpoint.Fabric) (Activity, error) {
	net := f.Net
	topo := f.Topo
	a := Activity{Cycles: int64(net.Eng.Now()), LinkTiles: LinkTiles(topo),
		VCs: net.Spec.VCs, VCBuf: net.Spec.VCBuf, Routing: cmp.Or(net.Spec.Routing, mesh.RoutingXY),
		Routers: make([]RouterActivity, len(net.Routers)), Links: net.LinkCounts(nil),
		Inject: make([]uint64, len(f.NIUs)), Eject: make([]uint64, len(f.NIUs))}
	if net.Bus != nil {
		return snapshotBus(f, a), nil
	}
	for i, r := range net.Routers {
		ra := &a.Routers[i]
		ra.Ports = r.Ports()
		ra.VCAllocs = r.Stats().VCAllocs
		ra.BusyCycles = r.BusyCycles()
		for p := range mesh.Port(ra.Ports) {
			ra.Out[p] = r.LinkFlits(p)
			if p.IsLocal() {
				continue // written below, from the NIU's count
			}
			if j, ok := topo.Neighbor(i, p); ok {
				ra.Writes[p] = net.Routers[j].LinkFlits(p.Opposite()) - uint64(r.InFlight(p))
			}
		}
	}
	for t, n := range f.NIUs {
		a.Inject[t], a.Eject[t] = n.Injected, n.Ejected
		ri, p := t, mesh.Local
		if c, ok := topo.(mesh.Concentrated); ok {
			ri, p = c.RouterOf(t)
		}
		a.Routers[ri].Writes[p] = n.Injected - uint64(net.Routers[ri].InFlight(p))
	}
	for i, r := range net.Routers {
		ra := &a.Routers[i]
		for p := range mesh.Port(ra.Ports) {
			ra.Reads[p] = ra.Writes[p] - uint64(r.BufferedAt(p))
		}
	}
	return a, nil
}

// snapshotBus is Snapshot on a bus, a with its NIUs' and the bus wire's
// counts: each node's interface took in the flits its NIU sent, less those
// still on the injection channel, and read out onto the bus those it no
// longer holds.
func snapshotBus(f *endpoint.Fabric, a Activity) Activity {
	b := f.Net.Bus
	a.Bus = &BusActivity{Writes: make([]uint64, len(f.NIUs)), Reads: make([]uint64, len(f.NIUs)), Grants: b.Grants()}
	for t, n := range f.NIUs {
		a.Inject[t], a.Eject[t] = n.Injected, n.Ejected
		w := n.Injected - uint64(b.InFlight(t))
		a.Bus.Writes[t], a.Bus.Reads[t] = w, w-uint64(b.BufferedAt(t))
	}
	return a
}

// NetworkFor is the Network a topology with these router settings makes,
// for Model.Check before a run.
func NetworkFor(t mesh.Topology, vcs, vcBuf int, routing string) Network {
	if _, ok := t.(mesh.Bus); ok {
		return Network{VCs: vcs, VCBuf: vcBuf, LinkTiles: LinkTiles(t), Routing: cmp.Or(routing, mesh.RoutingXY), Bus: true}
	}
	ports := int(mesh.NumPorts)
	if c, ok := t.(mesh.Concentrated); ok && c.Concentration() > 1 {
		ports = int(mesh.NumPorts) - 1 + c.Concentration()
	}
	return Network{VCs: vcs, VCBuf: vcBuf, Ports: ports, LinkTiles: LinkTiles(t), Routing: cmp.Or(routing, mesh.RoutingXY)}
}

// Check loads the model p names and checks it can price a network of
// topology t with these router settings: what a run checks before it
// simulates anything.
func Check(p Params, t mesh.Topology, vcs, vcBuf int, routing string) error {
	m, err := Load(p)
	if err != nil {
		return err
	}
	return m.Check(NetworkFor(t, vcs, vcBuf, routing))
}

// SnapshotMachine is Snapshot with each tile's processor and memory
// counters: busy cycles, the kernels' operations, the DMA engine's words.
func SnapshotMachine(m *endpoint.Machine) (Activity, error) {
	a, err := Snapshot(m.Fabric)
	if err != nil {
		return a, err
	}
	a.Tiles = make([]TileActivity, len(m.Nodes))
	for i, n := range m.Nodes {
		a.TileMemoryBytes = 4 * int64(n.Mem.Size())
		a.Tiles[i] = TileActivity{BusyCycles: uint64(n.Busy), Flops: uint64(n.Ops.Flops), MemOps: uint64(n.Ops.Mem),
			Iters: uint64(n.Ops.Iters), Calls: uint64(n.Ops.Calls), DMAReads: n.Mem.DMAReads, DMAWrites: n.Mem.DMAWrites}
	}
	return a, nil
}
