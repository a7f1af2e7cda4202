package logp

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Segment is the LogGP parameter set for messages up to MaxBytes (a
// protocol's range: eager below a threshold, rendezvous above). Times are
// in cycles.
type Segment struct {
	MaxBytes int     `toml:"max_bytes" json:"max_bytes"` // largest message of the segment; 0 means no bound
	L        float64 `toml:"L" json:"L"`                 // latency at zero hops (cycles)
	Lh       float64 `toml:"L_per_hop" json:"L_per_hop"` // added latency per router-to-router hop (cycles)
	Os       float64 `toml:"o_s" json:"o_s"`             // send overhead (cycles)
	Or       float64 `toml:"o_r" json:"o_r"`             // receive overhead (cycles)
	Gap      float64 `toml:"g" json:"g"`                 // gap between consecutive messages (cycles)
	G        float64 `toml:"G" json:"G"`                 // gap per byte (cycles/byte)
	// O is the processor's time per byte (cycles/byte) of a message it
	// handles byte by byte (Params.Word says which): LogGOPS's O. A send
	// keeps the processor busy o_s + (m-1)O, a receive o_r +
	// max((m-1)O, (m-1)G). Files written before O existed load as 0.
	O float64 `toml:"O" json:"O"`

	// The handshake (rendezvous segments of a machine whose clear-to-send
	// runs on the sender's processor, as SCMP's MPI): with Handshake the
	// LogGOPS tier (logp/loggops Segment.Handshake) runs every rendezvous
	// of the segment as its three legs; without, as LogGOPSim's
	// rendezvous. L + h·L_per_hop stays the whole latency: the request to
	// send flies what the two legs below leave of it. Files written
	// before the handshake load without it.
	Handshake bool    `toml:"handshake,omitempty" json:"handshake,omitempty"`
	Lpost     float64 `toml:"L_post,omitempty" json:"L_post,omitempty"`                 // a receive's posting to the earliest its clear-to-send leaves (cycles)
	Lcts      float64 `toml:"L_cts,omitempty" json:"L_cts,omitempty"`                   // receiver's match to the clear-to-send at the sender, at 0 hops (cycles)
	LctsH     float64 `toml:"L_cts_per_hop,omitempty" json:"L_cts_per_hop,omitempty"`   // added to L_cts per hop (cycles)
	Ldata     float64 `toml:"L_data,omitempty" json:"L_data,omitempty"`                 // sender taking the clear-to-send to the data's first byte at the receiver, at 0 hops (cycles)
	LdataH    float64 `toml:"L_data_per_hop,omitempty" json:"L_data_per_hop,omitempty"` // added to L_data per hop (cycles)
	Octs      float64 `toml:"o_cts,omitempty" json:"o_cts,omitempty"`                   // sender's processor time per clear-to-send (cycles)
	GapData   float64 `toml:"g_data,omitempty" json:"g_data,omitempty"`                 // the NIC's gap per handshake message, in place of g (cycles)
}

// Params is a calibrated machine: P processors and LogGP segments ordered
// by MaxBytes, the last unbounded, with where they came from.
//
// Provenance: Source is "simulator" (fitted to nocsim's microbenchmarks on
// the machine Mesh, Protocol, P) or "csv:FILE" (fitted to measurements
// read from FILE, which hold sizes and hop counts only: Mesh and Protocol
// are then empty and P and AvgHops 0, unknown). Sizes are the message
// sizes fitted. Files written before provenance was recorded have
// another Source and no Mesh or Sizes: HasProvenance tells them apart.
type Params struct {
	P        int       `toml:"P" json:"P"` // 0: unknown (a CSV fit)
	Protocol string    `toml:"protocol" json:"protocol"`
	ClockHz  float64   `toml:"clock_hz" json:"clock_hz"`
	AvgHops  float64   `toml:"avg_hops" json:"avg_hops"` // mean hop count between ranks, for predictions that do not name the pair
	Segments []Segment `toml:"segment" json:"segments"`
	Source   string    `toml:"source" json:"source"`                 // "simulator" or "csv:FILE"
	Mesh     string    `toml:"mesh,omitempty" json:"mesh,omitempty"` // "WxH" of the simulated machine
	Sizes    []int     `toml:"sizes,omitempty" json:"sizes,omitempty"`
	// Word is the size (bytes) the machine moves without the processor:
	// a message whose size is a multiple of Word pays no O (on nocsim the
	// DMA engine moves whole 4-byte words; other sizes are copied through
	// a buffer, and non-contiguous data is packed). 0: every message pays
	// O, as in LogGOPS.
	Word int `toml:"word_bytes,omitempty" json:"word_bytes,omitempty"`
	// Cooperative records that the machine's protocol handlers run only
	// when the program waits (nocsim: preempt_threads = false), which the
	// handshake's fit depends on: the LogGOPS tier then holds a
	// clear-to-send until its rank blocks. Files without it load false.
	Cooperative bool `toml:"cooperative" json:"cooperative"`
	// Energy is the machine's fitted energy model, when the calibration
	// priced energy; nil otherwise (and in files from before energy).
	Energy *EnergyParams `toml:"energy,omitempty" json:"energy,omitempty"`
}

// Sources of parameters with provenance.
const (
	SourceSimulator = "simulator"
	SourceCSVPrefix = "csv:"
)

// HasProvenance reports whether the parameters say where they came from
// (written by a nocsim that records it).
func (p Params) HasProvenance() bool {
	return p.Source == SourceSimulator && p.Mesh != "" || strings.HasPrefix(p.Source, SourceCSVPrefix)
}

// Validate checks that the parameters describe a machine: at least one
// segment, increasing bounds, the last unbounded, no negative time.
func (p Params) Validate() error {
	if p.P < 0 || p.P == 0 && !strings.HasPrefix(p.Source, SourceCSVPrefix) {
		return fmt.Errorf("P = %d: allowed >= 1 (0, unknown, only for a CSV fit)", p.P)
	}
	if p.Word < 0 {
		return fmt.Errorf("word_bytes = %d: allowed >= 0 (0: every message pays O)", p.Word)
	}
	if !(p.AvgHops >= 0) {
		return fmt.Errorf("avg_hops = %v: allowed >= 0", p.AvgHops)
	}
	if len(p.Segments) == 0 {
		return fmt.Errorf("no segment: at least one [[segment]] is needed")
	}
	if p.Energy != nil {
		if err := p.Energy.Validate(); err != nil {
			return err
		}
	}
	for i, s := range p.Segments {
		last := i == len(p.Segments)-1
		switch {
		case last && s.MaxBytes != 0:
			return fmt.Errorf("segment %d: the last segment must be unbounded (max_bytes = 0)", i)
		case !last && (s.MaxBytes <= 0 || i > 0 && s.MaxBytes <= p.Segments[i-1].MaxBytes):
			return fmt.Errorf("segment %d: max_bytes = %d must be positive and above the previous segment's", i, s.MaxBytes)
		}
		for _, v := range []struct {
			name string
			x    float64
		}{{"L", s.L}, {"L_per_hop", s.Lh}, {"o_s", s.Os}, {"o_r", s.Or}, {"g", s.Gap}, {"G", s.G}, {"O", s.O}} {
			if !(v.x >= 0) {
				return fmt.Errorf("segment %d: %s = %v: allowed >= 0 cycles", i, v.name, v.x)
			}
		}
		if err := s.validateHandshake(i); err != nil {
			return err
		}
	}
	return nil
}

// validateHandshake checks a handshake segment's legs: times >= 0 whose
// sum stays within L at every distance (the request to send's flight is
// what they leave of L + h·L_per_hop).
func (s Segment) validateHandshake(i int) error {
	if !s.Handshake {
		return nil
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"L_post", s.Lpost}, {"L_cts", s.Lcts}, {"L_cts_per_hop", s.LctsH}, {"L_data", s.Ldata}, {"L_data_per_hop", s.LdataH}, {"o_cts", s.Octs}, {"g_data", s.GapData}} {
		if !(v.x >= 0) || math.IsInf(v.x, 0) {
			return fmt.Errorf("segment %d: %s = %v: allowed a finite number >= 0 cycles", i, v.name, v.x)
		}
	}
	if s.Lcts+s.Ldata > s.L || s.LctsH+s.LdataH > s.Lh {
		return fmt.Errorf("segment %d: L_cts + L_data = %v (per hop %v) exceed L = %v (per hop %v): allowed at most L, the request to send's flight being what they leave", i, s.Lcts+s.Ldata, s.LctsH+s.LdataH, s.L, s.Lh)
	}
	return nil
}

// Seg is the segment that covers an m-byte message.
func (p Params) Seg(m int) Segment {
	i := sort.Search(len(p.Segments), func(i int) bool {
		b := p.Segments[i].MaxBytes
		return b == 0 || m <= b
	})
	if i == len(p.Segments) {
		i = len(p.Segments) - 1
	}
	return p.Segments[i]
}

// Latency is L(h) = L + h*Lh for an m-byte message over h hops.
func (p Params) Latency(m int, hops float64) float64 {
	s := p.Seg(m)
	return s.L + hops*s.Lh
}

// PerByteO is the O an m-byte message pays: its segment's O, or 0 when
// the size is a multiple of Word.
func (p Params) PerByteO(m int) float64 {
	if p.Word > 0 && m%p.Word == 0 {
		return 0
	}
	return p.Seg(m).O
}

// PointToPoint is LogGOPS's one-way time of an m-byte message over h
// hops to an idle receiver: o_s + L(h) + max((m-1)G, (m-1)O) + o_r (m >=
// 1; a 0-byte message costs as 1 byte). The bytes after the first
// arrive (m-1)G after it, and the receiver's processor handles them at
// (m-1)O, whichever is slower.
func (p Params) PointToPoint(m int, hops float64) float64 {
	return p.cost(m, hops).one()
}
