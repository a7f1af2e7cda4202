package logp

import (
	"fmt"
	"math"

	"nocsim/logp/collgen"
	"nocsim/logp/goal"
	"nocsim/logp/loggops"
)

// EnergyParams is a LogGP-style energy model of a machine, fitted by
// calibrate from its own ping-pongs: a run of T cycles that sends messages
// of m_i bytes over h_i hops costs
//
//	E = P_static * T / f + sum_i (E_msg + E_hop * h_i + E_byte * m_i + E_byte_hop * m_i * h_i)
//
// where P_static is the chip's static power (its routers' leakage and clock,
// whatever they do), f the clock, and the per-message terms everything a
// message makes happen: the processors' overheads, the DMA engine's memory
// words at both ends, the NIUs and every router and link on its way: per
// hop, its packets' header flits and any control packets of its protocol
// (E_hop, whatever its size) and its payload's flits (E_byte_hop). A
// message whose size is not a whole number of words (Params.Word) is
// copied through a buffer by the processors, which costs E_copy_byte more
// per byte, as LogGP's O costs time. The processors' other work (a
// reduction's arithmetic) is not in it.
type EnergyParams struct {
	Model       string  `toml:"model" json:"model"`           // the energy model the chip was priced with ("dsent 45nm 32-bit 1mm")
	StaticMW    float64 `toml:"static_mw" json:"static_mw"`   // the chip's static power (mW)
	Tiles       int     `toml:"tiles" json:"tiles"`           // the chip's tiles: static power grows with them on a larger machine
	Word        int     `toml:"word_bytes" json:"word_bytes"` // sizes that are multiples of it are not copied (0: none is)
	Samples     int     `toml:"samples" json:"samples"`       // ping-pong sizes and distances fitted
	MaxResidual float64 `toml:"max_residual_fraction" json:"max_residual_fraction"`
	// Segments are the per-message terms by size, split where LogGP's
	// segments split (a protocol switch changes what a byte costs: an
	// eager message is copied through a buffer, a rendezvous one is not).
	Segments []EnergySegment `toml:"segment" json:"segments"`
}

// EnergySegment is the per-message terms of messages up to MaxBytes
// bytes (0: unbounded, the last), with their 95% interval half-widths.
type EnergySegment struct {
	MaxBytes   int     `toml:"max_bytes" json:"max_bytes"`
	MessagePJ  float64 `toml:"message_pj" json:"message_pj"` // per message (pJ)
	MessageCI  float64 `toml:"message_pj_ci95" json:"message_pj_ci95"`
	BytePJ     float64 `toml:"byte_pj" json:"byte_pj"` // per byte (pJ)
	ByteCI     float64 `toml:"byte_pj_ci95" json:"byte_pj_ci95"`
	HopPJ      float64 `toml:"hop_pj" json:"hop_pj"` // per message per hop (pJ): headers and control packets
	HopCI      float64 `toml:"hop_pj_ci95" json:"hop_pj_ci95"`
	ByteHopPJ  float64 `toml:"byte_hop_pj" json:"byte_hop_pj"` // per byte per hop (pJ)
	ByteHopCI  float64 `toml:"byte_hop_pj_ci95" json:"byte_hop_pj_ci95"`
	CopyBytePJ float64 `toml:"copy_byte_pj" json:"copy_byte_pj"` // per byte of a copied message (not whole words; pJ)
	CopyByteCI float64 `toml:"copy_byte_pj_ci95" json:"copy_byte_pj_ci95"`
}

// Validate checks that every figure is a finite number, the power not
// negative, and the segments bounded as LogGP's are.
func (e EnergyParams) Validate() error {
	if !(e.StaticMW >= 0) || math.IsInf(e.StaticMW, 0) {
		return fmt.Errorf("energy static_mw = %v: allowed a finite number >= 0", e.StaticMW)
	}
	if len(e.Segments) == 0 {
		return fmt.Errorf("energy: no [[energy.segment]]: at least one is needed")
	}
	for i, s := range e.Segments {
		last := i == len(e.Segments)-1
		if last != (s.MaxBytes == 0) || !last && i > 0 && s.MaxBytes <= e.Segments[i-1].MaxBytes {
			return fmt.Errorf("energy segment %d: max_bytes = %d: allowed increasing bounds, 0 (unbounded) on the last only", i, s.MaxBytes)
		}
		for _, v := range []struct {
			name string
			x    float64
		}{{"message_pj", s.MessagePJ}, {"hop_pj", s.HopPJ}, {"byte_pj", s.BytePJ}, {"byte_hop_pj", s.ByteHopPJ}, {"copy_byte_pj", s.CopyBytePJ}} {
			if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
				return fmt.Errorf("energy segment %d: %s = %v: allowed a finite number", i, v.name, v.x)
			}
		}
	}
	return nil
}

// Seg is the segment an m-byte message falls in.
func (e EnergyParams) Seg(m int) EnergySegment {
	for _, s := range e.Segments {
		if s.MaxBytes == 0 || m <= s.MaxBytes {
			return s
		}
	}
	return e.Segments[len(e.Segments)-1]
}

// MessageEnergy is the energy of one m-byte message over hops hops (pJ).
func (e EnergyParams) MessageEnergy(m int, hops float64) float64 {
	s := e.Seg(m)
	x := s.MessagePJ + s.HopPJ*hops + s.BytePJ*float64(m) + s.ByteHopPJ*float64(m)*hops
	if e.Copied(m) {
		x += s.CopyBytePJ * float64(m)
	}
	return x
}

// Copied is whether an m-byte message is copied through a buffer: its size
// is not a whole number of words.
func (e EnergyParams) Copied(m int) bool { return e.Word > 0 && m%e.Word != 0 }

// StaticEnergy is the fitted chip's static energy over cycles cycles at
// clock clockHz (pJ).
func (e EnergyParams) StaticEnergy(cycles, clockHz float64) float64 {
	return e.StaticMW * 1e-3 * cycles / clockHz * 1e12
}

// StaticEnergyFor is the static energy of a machine holding procs ranks
// (one a tile): the fitted chip's, or, for more ranks than its tiles, a
// machine of as many tiles, its static power per tile the chip's.
func (e EnergyParams) StaticEnergyFor(procs int, cycles, clockHz float64) float64 {
	x := e.StaticEnergy(cycles, clockHz)
	if e.Tiles > 0 && procs > e.Tiles {
		x *= float64(procs) / float64(e.Tiles)
	}
	return x
}

// ScheduleEnergy is the energy of a schedule run in cycles at clockHz: the
// static energy over that time of a machine holding its ranks
// (StaticEnergyFor) and every send's message energy, hops(a, b) being the
// hops between ranks a and b (pJ).
func (e EnergyParams) ScheduleEnergy(s *goal.Schedule, cycles, clockHz float64, hops func(a, b int) float64) float64 {
	sum := e.StaticEnergyFor(s.NumRanks(), cycles, clockHz)
	for r := range s.NumRanks() {
		for _, op := range s.Ops(r) {
			if op.Kind == goal.Send {
				sum += e.MessageEnergy(int(op.Bytes), hops(r, int(op.Peer)))
			}
		}
	}
	return sum
}

// The objectives a model's choice of algorithm minimises: time, energy,
// or their product, the energy-delay product.
const (
	ObjectiveTime   = "time"
	ObjectiveEnergy = "energy"
	ObjectiveEDP    = "edp"
)

// Objectives lists them, for flags and errors.
var Objectives = []string{ObjectiveTime, ObjectiveEnergy, ObjectiveEDP}

// PredictEnergy is the energy (pJ) the fitted model predicts for op by alg
// on P ranks of bytes bytes, pr being its time prediction: the static
// power over pr's time and every message of the algorithm's schedule
// (collgen's, the chip's program), each over the hops between its ranks on
// the parameters' mesh (rank i on tile i, row-major), or AvgHops each when
// the parameters name no mesh (a torus, a ring, a CSV fit).
func (p Params) PredictEnergy(op, alg string, P, bytes int, pr Prediction) (float64, error) {
	if p.Energy == nil {
		return 0, fmt.Errorf("the parameters have no energy model (calibrate fits one under an [energy] model other than none)")
	}
	if !(p.ClockHz > 0) {
		return 0, fmt.Errorf("clock_hz = %v: the energy model needs the clock (Hz)", p.ClockHz)
	}
	if P < 2 {
		return p.Energy.StaticEnergyFor(P, pr.Cycles, p.ClockHz), nil
	}
	opt := collgen.DefaultOptions()
	W := p.MeshWidth(P)
	opt.MeshW = W
	s, err := collgen.Generate(op, alg, P, int64(bytes), opt)
	if err != nil {
		return 0, err
	}
	hops := func(a, b int) float64 {
		if p.Mesh == "" {
			return p.AvgHops
		}
		return math.Abs(float64(a%W-b%W)) + math.Abs(float64(a/W-b/W))
	}
	return p.Energy.ScheduleEnergy(s, pr.Cycles, p.ClockHz, hops), nil
}

// Score is what objective minimises for a prediction of pr's time and e
// pJ: cycles, pJ, or pJ x cycles.
func Score(objective string, pr Prediction, e float64) float64 {
	switch objective {
	case ObjectiveEnergy:
		return e
	case ObjectiveEDP:
		return e * pr.Cycles
	}
	return pr.Cycles
}

// TierEnergy is the energy (pJ) of schedule s run for cycles on the
// LogGOPS tier with q, the tier's parameters mapped from p (Tier,
// TierAvgHops or a mapping like them): ScheduleEnergy at p's clock, each
// message over the hops between its ranks in q's placement (q.Hops), or
// over the fit's average distance when q has none. ok is false when p
// holds no energy fit or no clock: there is nothing to price with.
func (p Params) TierEnergy(s *goal.Schedule, q loggops.Params, cycles float64) (pj float64, ok bool) {
	if p.Energy == nil || !(p.ClockHz > 0) {
		return 0, false
	}
	hops := func(a, b int) float64 {
		if q.Hops == nil {
			return p.AvgHops
		}
		return float64(q.Hops(a, b))
	}
	return p.Energy.ScheduleEnergy(s, cycles, p.ClockHz, hops), true
}
