package router

// KindOrdered, or'ed into a head flit's Kind, keeps the packet on the
// same VC index at every hop. Packets between two tiles that all carry
// it (and enter on the same VC) can never overtake one another, which
// message-passing protocols rely on; XY routing stays deadlock-free
// within each VC. It is the one bit of Kind the router reads: the rest
// is the message type the endpoints define (package endpoint's Kind
// constants, as in SCMP) and the router carries it untouched.
const KindOrdered uint8 = 0x80

// Flit is one flow-control digit: 32 bits of payload plus the control bits
// SCMP adds (head, tail) and the bookkeeping a simulator needs (which packet,
// which position, which virtual channel on the current link).
//
// It is 16 bytes, so that a copy is one 16-byte move and four fit a cache
// line: every hop copies a flit (into the next input buffer, and on a
// link that is a channel into the channel first), and on a large mesh
// the routers' buffers are what decides how many fit the caches. That is why a head flit keeps its routing offsets in Index
// (see Offsets): its position is 0 by definition, and the offsets are
// both 0 when it is delivered, so a delivered head reads Index 0.
type Flit struct {
	Packet int32  // packet id, owned by whoever injected it
	Word   uint32 // payload: stride in a head flit, address in the next, data after
	// Index is the position within the packet, 0 for the head; in a head
	// flit on its way, its remaining offsets instead (Offsets).
	Index int32
	VC    int8  // virtual channel on the link the flit is crossing
	Kind  uint8 // message type (head flit only): the endpoints', but for KindOrdered
	Head  bool
	Tail  bool
}

// Offsets are a head flit's remaining signed offsets to its destination,
// x then y (a bus's destination id, low byte then the rest: mesh.Bus).
func (f *Flit) Offsets() (dx, dy int) { return int(int16(f.Index)), int(f.Index >> 16) }

// Pos is the flit's position within its packet, whatever a head carries.
func (f *Flit) Pos() int32 {
	if f.Head {
		return 0
	}
	return f.Index
}

// SetOffsets sets a head flit's remaining offsets. Each fits 16 bits: a
// mesh is at most 256 tiles a side (mesh.MaxDim), a torus packs a
// dimension's hops and dateline countdown a byte each (mesh.MaxTorusDim),
// and a bus's ids go up to 65535.
func (f *Flit) SetOffsets(dx, dy int) { f.Index = int32(uint32(uint16(dx)) | uint32(dy)<<16) }
