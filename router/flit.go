package router

// Message types carried in the head flit, as in SCMP.
const (
	KindData   uint8 = 0 // words are written into memory by the receiver's DMA
	KindThread uint8 = 1 // words become a new thread's arguments
	KindSynth  uint8 = 2 // synthetic traffic: payload is ignored
	// KindControl messages are handled by the receiving NIU itself, with
	// no thread and no processor time: the hardware rendezvous (RTS/CTS)
	// proposed for SCMP (thesis section 2.3).
	KindControl uint8 = 3

	// KindOrdered, or'ed into a head flit's kind, keeps the packet on the
	// same VC index at every hop. Packets between two tiles that all carry
	// it (and enter on the same VC) can never overtake one another, which
	// message-passing protocols rely on; XY routing stays deadlock-free
	// within each VC.
	KindOrdered uint8 = 0x80
)

// Flit is one flow-control digit: 32 bits of payload plus the control bits
// SCMP adds (head, tail) and the bookkeeping a simulator needs (which packet,
// which position, which virtual channel on the current link).
type Flit struct {
	Packet int32  // packet id, owned by whoever injected it
	Index  int32  // position within the packet; 0 is the head
	Word   uint32 // payload: stride in a head flit, address in the next, data after
	DX, DY int16  // remaining signed offsets (head flit only)
	VC     int8   // virtual channel on the link the flit is crossing
	Kind   uint8  // message type (head flit only)
	Head   bool
	Tail   bool
}
