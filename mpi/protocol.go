package mpi

import (
	"encoding/binary"
	"fmt"
	"strings"

	"nocsim/config"
	"nocsim/endpoint"
)

// le is the byte order of tile memory, in which THREAD message words and
// window descriptors are read and written.
var le = binary.LittleEndian

// The protocols, as the thesis describes them (section 4.2.2):
//
//	scmp:  Isend sends a THREAD message running _MPI_Post_send at the
//	       receiver, which matches it against posted receives or queues it;
//	       a matching receive answers with a THREAD message running
//	       _MPI_Request_data at the sender, which DMAs the data into the
//	       receive buffer and then writes the receiver's completion flag
//	       with a DATA message.
//	eager: messages up to eager_bytes travel inside the THREAD message and
//	       are buffered at the receiver if unexpected; larger ones, and
//	       synchronous sends, use the scmp rendezvous.
//	niu:   the same rendezvous with the RTS and CTS handled by the NIUs as
//	       control messages: no threads, no processor time.
//	puma_long: header and data sent at once; the receiver pulls the data
//	       when no receive was posted (protocol_puma.go).
//
// Messages between two tiles are ordered (endpoint.KindOrdered) and handler
// threads run in arrival order, so sends between a pair never overtake.
//
// Matching (protocol_match.go) and the rendezvous handlers
// (protocol_scmp.go) are shared; what differs is behind protocol.

// protocol is what the point-to-point protocols differ in. NewWorld picks
// one from Config.Protocol, so no send or receive asks which is running.
type protocol interface {
	// name is the protocol a request records (Message.Protocol, traces).
	name() string
	// startSend sends q's announcement (RTS) at its receiver, and its data
	// if the protocol sends it without asking.
	startSend(r *Rank, q *Request) error
	// askData sends a matched receive's request for the data (CTS) to the
	// sender src; t is the thread asking, nil for the NIU.
	askData(r *Rank, src int, args ctsArgs, t *endpoint.Thread) error
	// gathers reports whether the DMA engine may gather q's strided data
	// itself (vector_dma) instead of the processor packing it first.
	gathers(q *Request) bool
	// register registers the protocol's own handlers. It runs after every
	// shared handler, so other protocols' handler ids stay as they were.
	register()
}

// ctsArgs are _MPI_Request_data's arguments: the send request, the
// receiver's rank, the receive buffer's and flag's addresses and the
// words. An array, passed by value: a slice would escape through the
// interface call and cost an allocation per message.
type ctsArgs [5]uint32

// protocolDef is one protocol as configurations see it.
type protocolDef struct {
	name string
	// check refuses the protocol on a machine whose NIU queues hold
	// queueFlits flits; nil accepts every machine.
	check func(queueFlits int) error
	// eagerBytes is the largest message the protocol completes at the
	// sender without the receiver; nil means none (every send waits).
	eagerBytes func(c Config) int
	build      func(w *World) protocol
}

// protocolDefs are the protocols, in documentation order.
var protocolDefs = []protocolDef{
	{name: "scmp", build: func(w *World) protocol { return scmpProtocol{w} }},
	{name: "eager", eagerBytes: func(c Config) int { return c.EagerBytes },
		build: func(w *World) protocol { return eagerProtocol{scmpProtocol{w}, w.Cfg.EagerBytes} }},
	{name: "niu", build: func(w *World) protocol { return niuProtocol{scmpProtocol{w}} }},
	{name: "puma_long", check: pumaCheck, build: func(w *World) protocol { return pumaProtocol{scmpProtocol{w}} }},
}

// Protocols lists the point-to-point protocols.
var Protocols = protocolNames()

func protocolNames() []string {
	var out []string
	for _, d := range protocolDefs {
		out = append(out, d.name)
	}
	return out
}

// protocolDef finds the configured protocol, or reports the key's error.
func (c Config) protocolDef(queueFlits int) (protocolDef, error) {
	for _, d := range protocolDefs {
		if d.name != c.Protocol {
			continue
		}
		if d.check != nil {
			return d, d.check(queueFlits)
		}
		return d, nil
	}
	return protocolDef{}, &config.KeyError{Key: "protocol", Value: fmt.Sprintf("%q", c.Protocol), Allowed: strings.Join(Protocols, ", ")}
}

// RendezvousThreshold is the largest message the configured protocol
// completes at the sender without the receiver: eager_bytes under eager.
// Under scmp and niu every message goes through the rendezvous (RTS, CTS,
// then the data), so it is 0; under puma_long no send completes before the
// receiver acknowledges or pulls it, so it is 0 too. It is the LogGOPS
// tier's S.
func (c Config) RendezvousThreshold() int {
	for _, d := range protocolDefs {
		if d.name == c.Protocol && d.eagerBytes != nil {
			return d.eagerBytes(c)
		}
	}
	return 0
}

// envelope is a send announced at its receiver before a receive matched it.
type envelope struct {
	src, tag  int // world rank
	ctx       uint32
	bytes     int
	sreq      uint32
	mode      sendMode
	payload   []byte // eager data, copied into the library's buffer
	eager     bool
	arrivedAt int64
}

const postSendWords = 6 // src, tag, ctx, bytes, sreq, mode

// appendWords appends b as little-endian words, the last zero-padded.
func appendWords(w []uint32, b []byte) []uint32 {
	for i := 0; i < len(b); i += 4 {
		var x [4]byte
		copy(x[:], b[i:])
		w = append(w, le.Uint32(x[:]))
	}
	return w
}
