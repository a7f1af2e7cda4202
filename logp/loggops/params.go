package loggops

import (
	"fmt"
	"math"
)

// DefaultS is LogGOPSim's default eager/rendezvous threshold, bytes.
const DefaultS = 65535

// Params are the LogGOPS parameters; times in cycles.
//
// Two optional extensions describe a machine whose costs depend on the
// message size and on the pair of ranks (as a calibrated mesh does);
// without them the semantics are exactly LogGOPSim's:
//   - Segments, when not empty, replace L, o_s, o_r, g, G and O by the
//     parameters of the first segment whose MaxBytes covers the message
//     (the send's size, for the sender's and the receiver's costs alike);
//   - Hops, when set, gives the router hops between two ranks, and a
//     message's latency is then L + Lh·Hops(src, dst) (Lh of its segment);
//   - Word, when above 0, is the size the machine moves without its CPU:
//     a message whose size is a multiple of Word pays no O (on the SCMP
//     chip only odd sizes go through the processor, byte by byte).
type Params struct {
	L   float64 // latency: first byte leaves the sender o_s after the send starts and arrives L later
	Os  float64 // o_s: CPU overhead of a send
	Or  float64 // o_r: CPU overhead of a receive
	Gap float64 // g: NIC gap between consecutive messages (send and receive NICs apart)
	G   float64 // gap per byte after the first, cycles/byte
	O   float64 // CPU overhead per byte after the first, cycles/byte
	S   uint64  // messages of more than S bytes use rendezvous, bytes

	Segments []Segment              // parameters by message size, ordered by MaxBytes, the last unbounded; empty: the fields above
	Hops     func(src, dst int) int // hops between two ranks for Segment.Lh; nil: no distance term
	Word     uint64                 // messages a multiple of Word bytes pay no O; 0: every message does

	// Cooperative makes the handshake's handlers (Segment.Handshake) wait
	// until their rank is blocked: its CPU free and no op of it ready or
	// waiting to start, as threads on a cooperative processor run only
	// when the program waits. Without handshake segments it changes
	// nothing.
	Cooperative bool
}

// Segment is the parameter set of messages of at most MaxBytes bytes
// (0: no bound, only for the last segment); times in cycles.
type Segment struct {
	MaxBytes uint64
	L        float64 // latency at zero hops
	Lh       float64 // latency added per hop (with Params.Hops)
	Os, Or   float64 // send and receive CPU overheads
	Gap      float64 // g
	G, O     float64 // per byte after the first: NIC gap and CPU overhead

	// Handshake makes a rendezvous (s > S) of this segment a
	// clear-to-send handshake with the legs below instead of LogGOPSim's
	// rendezvous (see the package documentation); false: the fields
	// below are ignored.
	Handshake bool
	Lpost     float64 // from a receive's posting to the earliest its clear-to-send may leave (the receiver's posting and switch to the handler)
	Lcts      float64 // from the receiver matching the send to the clear-to-send reaching the sender, at zero hops
	LctsH     float64 // added to Lcts per hop
	Ldata     float64 // from the sender's CPU taking the clear-to-send to the data's first byte at the receiver, at zero hops
	LdataH    float64 // added to Ldata per hop
	Octs      float64 // the sender's CPU time per clear-to-send (its handler)
	GapData   float64 // the NIC's gap per handshake message (request to send, data), in place of Gap
}

// New is the parameter set with o_s = o_r = o and S = DefaultS.
func New(L, o, g, G, O float64) Params {
	return Params{L: L, Os: o, Or: o, Gap: g, G: G, O: O, S: DefaultS}
}

// SetO sets both overheads, as LogGOPSim's single o does.
func (p *Params) SetO(o float64) { p.Os, p.Or = o, o }

// Validate checks that every time is a finite number >= 0, naming the
// first that is not, and that segments are ordered with the last
// unbounded.
func (p Params) Validate() error {
	if err := finite("", []namedTime{{"L", p.L}, {"o_s", p.Os}, {"o_r", p.Or}, {"g", p.Gap}, {"G", p.G}, {"O", p.O}}); err != nil {
		return err
	}
	for i, s := range p.Segments {
		last := i == len(p.Segments)-1
		switch {
		case last && s.MaxBytes != 0:
			return fmt.Errorf("loggops: segment %d: max_bytes = %d: the last segment must be unbounded (0)", i, s.MaxBytes)
		case !last && (s.MaxBytes == 0 || i > 0 && s.MaxBytes <= p.Segments[i-1].MaxBytes):
			return fmt.Errorf("loggops: segment %d: max_bytes = %d: allowed above 0 and above the previous segment's", i, s.MaxBytes)
		}
		if err := finite(fmt.Sprintf("segment %d: ", i), []namedTime{{"L", s.L}, {"L_per_hop", s.Lh}, {"o_s", s.Os},
			{"o_r", s.Or}, {"g", s.Gap}, {"G", s.G}, {"O", s.O}}); err != nil {
			return err
		}
		if !s.Handshake {
			continue
		}
		if err := finite(fmt.Sprintf("segment %d: ", i), []namedTime{{"L_post", s.Lpost}, {"L_cts", s.Lcts}, {"L_cts_per_hop", s.LctsH},
			{"L_data", s.Ldata}, {"L_data_per_hop", s.LdataH}, {"o_cts", s.Octs}, {"g_data", s.GapData}}); err != nil {
			return err
		}
		// The request to send flies L + h·L_per_hop - (the other two
		// legs), which must not be negative at any distance.
		if s.Lcts+s.Ldata > s.L || s.LctsH+s.LdataH > s.Lh {
			return fmt.Errorf("loggops: segment %d: L_cts + L_data = %v (per hop %v) exceed L = %v (per hop %v): allowed at most L, so that the request to send's flight is not negative",
				i, s.Lcts+s.Ldata, s.LctsH+s.LdataH, s.L, s.Lh)
		}
	}
	return nil
}

type namedTime struct {
	name string
	x    float64
}

func finite(where string, vs []namedTime) error {
	for _, v := range vs {
		if !(v.x >= 0) || math.IsInf(v.x, 0) {
			return fmt.Errorf("loggops: %s%s = %v: allowed a finite number of cycles >= 0", where, v.name, v.x)
		}
	}
	return nil
}

// segments is the size table the simulation uses: the Segments, or one
// unbounded segment of the scalar parameters.
func (p Params) segments() []Segment {
	if len(p.Segments) > 0 {
		return p.Segments
	}
	return []Segment{{L: p.L, Os: p.Os, Or: p.Or, Gap: p.Gap, G: p.G, O: p.O}}
}

// Topology is what placing ranks needs of the machine they run on: its
// tiles, the hop count between two of them (the distance calibrate fitted
// L_per_hop over) and a name for messages. mesh.Topology has these
// methods; the tier keeps to them so that it imports nothing of the
// simulator (logp.Params.Tier maps fitted parameters onto one).
type Topology interface {
	Name() string
	Nodes() int
	Hops(a, b int) int
}
