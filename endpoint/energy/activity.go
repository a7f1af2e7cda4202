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
	// BusyCycles is the cycles the router's pipeline ran (router.Router.
	// BusyCycles): those it had a flit or a credit to handle. The window's
	// other cycles it was idle.
	BusyCycles uint64
}

// BusActivity is a bus's events (Activity.Bus): per node, the flits
// written into its bus interface's buffers (from its NIU) and read out of
// them (onto the bus), and the packets the arbiter granted the bus. The
// flits the bus wire carried are Activity.Links' one count.
type BusActivity struct {
	Writes, Reads []uint64
	Grants        uint64
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
	// in tile pitches (LinkTiles: 1 on a mesh, 2 between a concentrated
	// mesh's routers, which are two tiles apart). On a bus Links is the
	// bus wire's one count and LinkTiles its length.
	Links     []uint64
	LinkTiles float64
	// Bus is the bus interfaces' and arbiter's events on a bus, which has
	// no routers; nil on a network of routers.
	Bus *BusActivity
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
		d := RouterActivity{Ports: r.Ports, VCAllocs: r.VCAllocs - q.VCAllocs, BusyCycles: r.BusyCycles - q.BusyCycles}
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
	if (a.Bus == nil) != (b.Bus == nil) || a.Bus != nil && len(a.Bus.Writes) != len(b.Bus.Writes) {
		return Activity{}, fmt.Errorf("energy: snapshots of a bus and another network")
	}
	if a.Bus != nil {
		w.Bus = &BusActivity{Writes: make([]uint64, len(a.Bus.Writes)), Reads: make([]uint64, len(a.Bus.Reads)), Grants: a.Bus.Grants - b.Bus.Grants}
		for i := range a.Bus.Writes {
			w.Bus.Writes[i] = a.Bus.Writes[i] - b.Bus.Writes[i]
			w.Bus.Reads[i] = a.Bus.Reads[i] - b.Bus.Reads[i]
		}
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

// Totals are an activity's events summed over the routers, links and NIUs
// (on a bus, over its interfaces, its wire and its arbiter).
type Totals struct {
	BufferWrites, BufferReads uint64 // flits into and out of input buffers (a bus's interface buffers)
	Traversals                uint64 // flits through a crossbar (one switch grant each)
	VCAllocs                  uint64 // heads granted an output VC (one route computation each)
	LinkFlits                 uint64 // flits over router-to-router links (over the bus wire)
	Injected, Ejected         uint64 // flits over the NIU channels
	RouterPorts               int    // ports of all routers summed
	BusGrants                 uint64 // packets granted the bus (one arbitration each)
	BusInterfaces             int    // a bus's interfaces: one per node
}

// Totals sums the activity's events.
func (a Activity) Totals() Totals {
	var t Totals
	if a.Bus != nil {
		t.BusGrants, t.BusInterfaces = a.Bus.Grants, len(a.Bus.Writes)
		for i := range a.Bus.Writes {
			t.BufferWrites += a.Bus.Writes[i]
			t.BufferReads += a.Bus.Reads[i]
		}
	}
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

// Occupancy is an activity's router-cycles and tile-cycles, busy and idle,
// each summed over the routers (the tiles): a router is busy in a cycle
// its pipeline ran (RouterActivity.BusyCycles), a tile in one its
// processor computed (TileActivity.BusyCycles); every other cycle of the
// window it was idle. Busy plus idle is the routers (tiles) times the
// window's cycles. A bus has no routers and synthetic traffic prices no
// tiles: their counts are 0.
type Occupancy struct {
	RouterBusy, RouterIdle uint64
	TileBusy, TileIdle     uint64
}

// Occupancy sums the activity's busy cycles and derives the idle ones. A
// processor's computation is counted busy whole when it starts, so a
// window that ends in one may count a tile busier than its cycles: its
// idle cycles are then 0, not negative.
func (a Activity) Occupancy() Occupancy {
	var o Occupancy
	c := uint64(max(a.Cycles, 0))
	idle := func(busy uint64) uint64 {
		if busy >= c {
			return 0
		}
		return c - busy
	}
	for _, r := range a.Routers {
		o.RouterBusy += r.BusyCycles
		o.RouterIdle += idle(r.BusyCycles)
	}
	for _, t := range a.Tiles {
		o.TileBusy += t.BusyCycles
		o.TileIdle += idle(t.BusyCycles)
	}
	return o
}

// Add is o and p summed: two chips' occupancy together.
func (o Occupancy) Add(p Occupancy) Occupancy {
	return Occupancy{RouterBusy: o.RouterBusy + p.RouterBusy, RouterIdle: o.RouterIdle + p.RouterIdle,
		TileBusy: o.TileBusy + p.TileBusy, TileIdle: o.TileIdle + p.TileIdle}
}
