package energy

import "fmt"

// MaxPorts is the most ports a router has (mesh.MaxPorts).
const MaxPorts = 8

// RouterActivity is one router's events, by port in the router's own
// numbering (mesh.Port: L, N, E, S, W, then a concentrated router's L1-L3).
type RouterActivity struct {
	Ports int // ports in use: 5, or 8 on a concentrated mesh
	// Writes is the flits written into each input port's buffers (arrived),
	// Reads those read out of them (switched), Out those switched to each
	// output port.
	Writes, Reads, Out [MaxPorts]uint64
	VCAllocs           uint64 // heads granted an output VC: one per packet through the router
}

// Activity is a run's network events over Cycles cycles, with what a
// model needs to know of the routers that made them.
type Activity struct {
	Cycles int64
	// VCs and VCBuf are the routers' VCs per port and flits per VC;
	// Routing their routing algorithm (mesh.RoutingXY ...).
	VCs, VCBuf int
	Routing    string
	Routers    []RouterActivity
	// Links is the flits each router-to-router link carried
	// (router.Network.LinkCounts order); LinkTiles is each link's length
	// in tile pitches (1 on a mesh, 2 between a concentrated mesh's
	// routers, which are two tiles apart).
	Links     []uint64
	LinkTiles float64
	// Inject and Eject are the flits each node's NIU sent into and took
	// out of the network.
	Inject, Eject []uint64
	// Tiles is each tile's processor and memory activity, on a machine
	// (none under synthetic traffic, which has no processors), and
	// TileMemoryBytes each tile's memory size.
	Tiles           []TileActivity
	TileMemoryBytes int64
}

// Sub is the activity between snapshot b and a (a taken later): the
// window's counts. Both must come from the same network.
func (a Activity) Sub(b Activity) (Activity, error) {
	if len(a.Routers) != len(b.Routers) || len(a.Links) != len(b.Links) || len(a.Inject) != len(b.Inject) {
		return Activity{}, fmt.Errorf("energy: snapshots of different networks (%d/%d routers, %d/%d links)", len(a.Routers), len(b.Routers), len(a.Links), len(b.Links))
	}
	w := Activity{Cycles: a.Cycles - b.Cycles, LinkTiles: a.LinkTiles, VCs: a.VCs, VCBuf: a.VCBuf, Routing: a.Routing,
		Routers: make([]RouterActivity, len(a.Routers)), Links: make([]uint64, len(a.Links)),
		Inject: make([]uint64, len(a.Inject)), Eject: make([]uint64, len(a.Eject))}
	for i, r := range a.Routers {
		q := b.Routers[i]
		d := RouterActivity{Ports: r.Ports, VCAllocs: r.VCAllocs - q.VCAllocs}
		for p := range MaxPorts {
			d.Writes[p] = r.Writes[p] - q.Writes[p]
			d.Reads[p] = r.Reads[p] - q.Reads[p]
			d.Out[p] = r.Out[p] - q.Out[p]
		}
		w.Routers[i] = d
	}
	for i := range a.Links {
		w.Links[i] = a.Links[i] - b.Links[i]
	}
	for i := range a.Inject {
		w.Inject[i] = a.Inject[i] - b.Inject[i]
		w.Eject[i] = a.Eject[i] - b.Eject[i]
	}
	if len(a.Tiles) != len(b.Tiles) {
		return Activity{}, fmt.Errorf("energy: snapshots of %d and %d tiles", len(a.Tiles), len(b.Tiles))
	}
	w.TileMemoryBytes = a.TileMemoryBytes
	for i, x := range a.Tiles {
		y := b.Tiles[i]
		w.Tiles = append(w.Tiles, TileActivity{BusyCycles: x.BusyCycles - y.BusyCycles, Flops: x.Flops - y.Flops, MemOps: x.MemOps - y.MemOps,
			Iters: x.Iters - y.Iters, Calls: x.Calls - y.Calls, DMAReads: x.DMAReads - y.DMAReads, DMAWrites: x.DMAWrites - y.DMAWrites})
	}
	return w, nil
}

// Totals are an activity's events summed over the routers, links and NIUs.
type Totals struct {
	BufferWrites, BufferReads uint64 // flits into and out of input buffers
	Traversals                uint64 // flits through a crossbar (one switch grant each)
	VCAllocs                  uint64 // heads granted an output VC (one route computation each)
	LinkFlits                 uint64 // flits over router-to-router links
	Injected, Ejected         uint64 // flits over the NIU channels
	RouterPorts               int    // ports of all routers summed
}

// Totals sums the activity's events.
func (a Activity) Totals() Totals {
	var t Totals
	for _, r := range a.Routers {
		t.RouterPorts += r.Ports
		t.VCAllocs += r.VCAllocs
		for p := range r.Ports {
			t.BufferWrites += r.Writes[p]
			t.BufferReads += r.Reads[p]
			t.Traversals += r.Out[p]
		}
	}
	for _, n := range a.Links {
		t.LinkFlits += n
	}
	for i := range a.Inject {
		t.Injected += a.Inject[i]
		t.Ejected += a.Eject[i]
	}
	return t
}
