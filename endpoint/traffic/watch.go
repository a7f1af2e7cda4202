package traffic

import (
	"bytes"
	"fmt"
	"slices"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/router"
)

// watcher writes the life of chosen packets, as BookSim's watch_packets
// does: its creation, each flit's pass through each router's switch (the
// cycle it was granted the switch, the ports and the input VC) and its
// delivery, one line each, "cycle | component | event", in the order
// they happen. Packets are numbered from 0 in the order they are created,
// warm-up included, as BookSim numbers them; a run that watches nothing
// has no watcher and sets no trace, so it pays nothing.
type watcher struct {
	ids  []int64 // the packet numbers watched, sorted
	next int64   // the number of the next packet created
	// live maps the pool slot of a watched packet in flight (Flit.Packet,
	// Packet.ID) to its number: slots are reused, numbers are not.
	live map[int32]int64
	topo mesh.Topology
	eng  *des.Engine
	out  bytes.Buffer
}

func newWatcher(ids []int64, topo mesh.Topology, eng *des.Engine) *watcher {
	w := &watcher{ids: slices.Clone(ids), live: map[int32]int64{}, topo: topo, eng: eng}
	slices.Sort(w.ids)
	return w
}

// created numbers a packet just created and notes it if it is watched.
func (w *watcher) created(p *endpoint.Packet, now des.Time) {
	id := w.next
	w.next++
	if _, ok := slices.BinarySearch(w.ids, id); !ok {
		return
	}
	w.live[p.ID] = id
	fmt.Fprintf(&w.out, "%d | NIU%s | packet %d created: %d flits to %s, %d hops\n",
		now, w.topo.Label(int(p.Src)), id, p.Len, w.topo.Label(int(p.Dst)), p.Hops)
}

// switched is the network's trace: a flit granted a router's switch.
func (w *watcher) switched(node int, in, out mesh.Port, f router.Flit) {
	id, ok := w.live[f.Packet]
	if !ok {
		return
	}
	what := ""
	switch {
	case f.Head && f.Tail:
		what = " (head, tail)"
	case f.Head:
		what = " (head)"
	case f.Tail:
		what = " (tail)"
	}
	fmt.Fprintf(&w.out, "%d | R%s | packet %d flit %d%s: switch %v -> %v from VC %d\n",
		w.eng.Now(), mesh.RouterLabel(w.topo, node), id, f.Pos(), what, in, out, f.VC)
}

// delivered notes a watched packet's tail consumed at its destination.
func (w *watcher) delivered(p *endpoint.Packet, now des.Time) {
	id, ok := w.live[p.ID]
	if !ok {
		return
	}
	delete(w.live, p.ID)
	fmt.Fprintf(&w.out, "%d | NIU%s | packet %d delivered: latency %d cycles (network %d)\n",
		now, w.topo.Label(int(p.Dst)), id, now-p.Created, now-p.Sent)
}
