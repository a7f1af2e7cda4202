package endpoint

import "nocsim/router"

// Message types an NIU puts in a head flit's Kind, as in SCMP. They are
// the endpoints' business: the router carries them untouched and reads
// only the KindOrdered bit.
const (
	KindData   uint8 = 0 // words are written into memory by the receiver's DMA
	KindThread uint8 = 1 // words become a new thread's arguments
	KindSynth  uint8 = 2 // synthetic traffic: payload is ignored
	// KindControl messages are handled by the receiving NIU itself, with
	// no thread and no processor time: the hardware rendezvous (RTS/CTS)
	// proposed for SCMP (thesis section 2.3).
	KindControl uint8 = 3

	// KindOrdered, or'ed into a message type, keeps the packet on the same
	// VC index at every hop, so that messages between two tiles never
	// overtake one another. It is the router's bit (router.KindOrdered),
	// named here so that senders need only this package.
	KindOrdered = router.KindOrdered
)
