package endpoint

import (
	"fmt"

	"nocsim/des"
)

// Packet is one network message, from head to tail. DMA messages carry a
// head flit, an address flit and Count data flits; synthetic packets are
// Len flits of test payload.
type Packet struct {
	ID      int32
	Src     int32
	Dst     int32
	Len     int32 // flits
	Kind    uint8
	Hops    int32
	Created des.Time // handed to the NIU (or its source queue)
	Sent    des.Time // head flit left the NIU
	Done    des.Time // tail flit consumed at the destination NIU

	Measured bool // created inside a measurement window

	SrcAddr, SrcStride uint32
	DstAddr, DstStride uint32

	// Ordered keeps the packet in order with every other ordered packet
	// between the same two tiles (KindOrdered).
	Ordered bool
	// Xfer, if set, is told when the tail leaves and when it arrives.
	Xfer *Transfer

	built bool     // built by the processor (send instructions), not DMA
	words []uint32 // the data words of a processor-built message

	wordsBuf []uint32 // words' storage, kept when the record is recycled

	received int32 // flits consumed so far, for in-order delivery checks
	live     bool
}

// Transfer follows one message for the program that sent it: a DMA send
// is complete when its tail has left (the source words may be reused), and
// the data is in place when the tail has arrived.
type Transfer struct {
	Sent, Delivered     bool
	SentAt, DeliveredAt des.Time
}

// packetTable recycles packet records so steady-state traffic allocates
// nothing per packet.
type packetTable struct {
	pkts []Packet
	free []int32
}

func (t *packetTable) alloc() *Packet {
	var id int32
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		id = int32(len(t.pkts))
		t.pkts = append(t.pkts, Packet{})
	}
	p := &t.pkts[id]
	// Keep the words buffer: a processor-built message reuses it.
	*p = Packet{ID: id, live: true, wordsBuf: p.wordsBuf[:0]}
	return p
}

func (t *packetTable) release(id int32) {
	t.pkts[id].live = false
	t.free = append(t.free, id)
}

func (t *packetTable) get(id int32) *Packet { return &t.pkts[id] }

// Live counts packets not yet delivered.
func (t *packetTable) Live() int { return len(t.pkts) - len(t.free) }

func (t *packetTable) name(id int32) string {
	if id < 0 || int(id) >= len(t.pkts) {
		return fmt.Sprintf("packet %d", id)
	}
	p := &t.pkts[id]
	return fmt.Sprintf("packet %d (%d->%d, %d flits)", id, p.Src, p.Dst, p.Len)
}

// synthWord is the payload a synthetic flit carries, so that delivery can
// check that every flit is the one that was sent.
func synthWord(pkt, index int32) uint32 {
	x := uint32(pkt)*0x9e3779b1 ^ uint32(index)*0x85ebca6b
	return x ^ x>>15
}
