package calibrate

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"nocsim/logp"
)

// Machine is what Fit needs to know about the machine measured besides
// the measurements: a simulator calibration takes it from the scenario,
// a measurements CSV carries it in its word_bytes, handshake and
// cooperative columns (see ReadTable), so that a fit from the CSV is the
// fit on the chip. The zero value is a machine that moves every size
// alike and whose rendezvous, if any, is LogGOPSim's.
type Machine struct {
	// Word is the size (bytes) the machine moves without its processor
	// (nocsim: 4, the DMA engine's word); 0 if none is known. With Word
	// > 0 the segments and L, G come from the sizes that are multiples of
	// Word, and O (logp.Segment.O) from the others: their one-way time
	// per byte after the first, max(G, O) in LogGOPS.
	Word int

	// Handshake fits each segment's handshake legs (see fitHandshake)
	// from the late, ctswait and fanout measurements: for a machine whose
	// rendezvous clear-to-send runs on the sender's processor (nocsim's
	// scmp protocol). Cooperative records that its handlers run only when
	// the program waits (logp.Params.Cooperative), which the legs'
	// benchmarks rely on.
	Handshake   bool
	Cooperative bool
}

// Options completes what the measurements cannot tell: the machine's
// description for logp.Params, and how eagerly Fit splits the sizes into
// segments.
type Options struct {
	P        int     // processors of the machine
	Protocol string  // the protocol measured, for the record
	ClockHz  float64 // cycles per second
	AvgHops  float64 // mean hop count between ranks, for predictions that do not name a pair
	Source   string  // where the measurements came from: logp.SourceSimulator or "csv:FILE"
	Mesh     string  // the simulated mesh, "WxH"; empty for measurements from elsewhere

	Machine // what the measurements do not show about how the machine works

	// A split is accepted only if it cuts the total squared relative
	// residual by SplitFactor (default 3) and the unsplit fit misses
	// some size by more than SplitTolerance (default 0.02): a model that
	// already predicts every size within 2% needs no other segment.
	SplitFactor    float64
	SplitTolerance float64
}

// SegmentFit is one segment of sizes with its own LogGP parameters. Seg is
// what goes into logp.Params (MaxBytes 0 for the last segment); MinBytes
// and MaxBytes are the smallest and largest sizes measured in it.
type SegmentFit struct {
	Seg      logp.Segment `json:"segment_params"` // as in the parameters file (docs/logp.md gives the units)
	MinBytes int          `json:"min_bytes"`
	MaxBytes int          `json:"max_bytes"`
	L        Estimate     `json:"L_cycles"`
	Lh       Estimate     `json:"L_per_hop_cycles"`
	Os       Estimate     `json:"o_s_cycles"`
	Or       Estimate     `json:"o_r_cycles"`
	Gap      Estimate     `json:"g_cycles"`
	G        Estimate     `json:"G_cycles_per_byte"`
	O        Estimate     `json:"O_cycles_per_byte"` // NaN CI when not measured
	// Netgauge's estimates from PRTT, when measured: the gap from
	// PRTT(n,0,s) - PRTT(1,0,s) and the send overhead from PRTT(n,d,s);
	// NaN when not measured. They stand in for trains and send times
	// when those are missing, and are compared with them otherwise.
	PRTTGap   Estimate      `json:"prtt_g_cycles"`
	PRTTOs    Estimate      `json:"prtt_o_s_cycles"`
	R2        float64       `json:"r2_ratio"` // of the one-way fit, weighted by 1/T² (relative errors)
	Residuals []Residual    `json:"residuals"`
	Warnings  []string      `json:"warnings"`
	Handshake *HandshakeFit `json:"handshake"` // nil: not fitted (Options.Handshake unset, or a warning says why)
}

// Residual is the model's one-way time against the measured RTT/2 for one
// size and hop count; RelErr = (Predicted - Measured) / Measured. With an
// energy fit (Report.AddEnergy), the same size and distance's energy
// beside it: the ping-pong's dynamic energy per one-way message, the
// fitted per-message terms' (the static power is a term of its own, not
// per message), and their relative error.
type Residual struct {
	Bytes     int     `json:"bytes"`
	Hops      int     `json:"hops"`
	Measured  float64 `json:"measured_cycles"`
	Predicted float64 `json:"predicted_cycles"`
	RelErr    float64 `json:"rel_err_fraction"`

	MeasuredEnergyPJ  float64 `json:"measured_energy_per_message_pj,omitempty"`
	PredictedEnergyPJ float64 `json:"predicted_energy_per_message_pj,omitempty"`
	EnergyRelErr      float64 `json:"energy_rel_err_fraction,omitempty"`
}

// Report is the outcome of a fit. Params holds the fitted values as they
// are, negative ones included: Params.Validate rejects those, so a
// non-physical fit cannot pass for a machine unnoticed. Breakpoints are
// the largest measured size of every segment but the last (a protocol
// switch, or any other change of regime in the one-way time). Warnings
// repeats the segments' warnings, prefixed with their segment.
type Report struct {
	Params      logp.Params  `json:"params"` // as in the parameters file (docs/logp.md gives the units)
	Segments    []SegmentFit `json:"segments"`
	Breakpoints []int        `json:"breakpoints_bytes"`
	Warnings    []string     `json:"warnings"`
}

// onePoint is a one-way time: half the median round trip at (Bytes, Hops).
type onePoint struct {
	m, h int
	t    float64
}

// Fit estimates LogGP parameters from measurements (Run's or ReadCSV's).
// The one-way time T(m, h) = RTT/2 is fitted per segment as
// c + h·Lh + (m-1)·G by least squares on relative errors, with the hop
// term when round trips were measured at two or more distances; the
// segments come from a piecewise fit (see Options). Within a segment o_s
// and o_r are the intercepts (1-byte values) of the send and receive
// times against size, g the intercept of the train's time per message,
// all at the smallest distance measured; then L = c - o_s - o_r, so that
// o_s + L + h·Lh + (m-1)G + o_r reproduces the fitted one-way time.
// Nothing is clamped: a negative parameter gets a warning naming it.
func Fit(ms []Measurement, opt Options) (Report, error) {
	if opt.SplitFactor == 0 {
		opt.SplitFactor = 3
	}
	if opt.SplitTolerance == 0 {
		opt.SplitTolerance = 0.02
	}
	if !(opt.SplitFactor >= 1) || !(opt.SplitTolerance > 0) {
		return Report{}, fmt.Errorf("calibrate: split factor %v and tolerance %v: allowed >= 1 and > 0", opt.SplitFactor, opt.SplitTolerance)
	}
	for i, m := range ms {
		if err := m.check(); err != nil {
			return Report{}, fmt.Errorf("calibrate: measurement %d: %w", i+1, err)
		}
	}
	if opt.Word < 0 {
		return Report{}, fmt.Errorf("calibrate: word = %d bytes: allowed >= 0", opt.Word)
	}
	all := oneWay(ms)
	if len(all) == 0 {
		return Report{}, fmt.Errorf("calibrate: no round trip (kind %q) among %d measurements: the one-way time needs them", KindRTT, len(ms))
	}
	pts, copied := byWord(all, opt.Word)
	groups := split(pts, opt)
	rep := Report{Params: logp.Params{P: opt.P, Protocol: opt.Protocol, ClockHz: opt.ClockHz, AvgHops: opt.AvgHops,
		Source: opt.Source, Mesh: opt.Mesh, Sizes: fittedSizes(all), Word: opt.Word, Cooperative: opt.Cooperative}}
	for i, g := range groups {
		last := i == len(groups)-1
		sf, err := fitSegment(g, ms, last)
		if err != nil {
			return Report{}, fmt.Errorf("calibrate: %d..%d bytes: %w", g[0].m, g[len(g)-1].m, err)
		}
		if !last {
			rep.Breakpoints = append(rep.Breakpoints, sf.MaxBytes)
		}
		for _, w := range sf.Warnings {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("segment %d (%d..%d B): %s", i, sf.MinBytes, sf.MaxBytes, w))
		}
		rep.Segments = append(rep.Segments, sf)
		rep.Params.Segments = append(rep.Params.Segments, sf.Seg)
	}
	fitO(&rep, copied)
	// Residuals come from the finished parameters, through logp's own
	// formula, so they check exactly what a user of Params will get.
	for i := range rep.Segments {
		s := &rep.Segments[i]
		for k := range s.Residuals {
			r := &s.Residuals[k]
			r.Predicted = rep.Params.PointToPoint(r.Bytes, float64(r.Hops))
			r.RelErr = (r.Predicted - r.Measured) / r.Measured
		}
	}
	fitHandshake(&rep, ms, opt)
	return rep, nil
}

// byWord splits the one-way points into sizes that are multiples of
// word (all of them when word is 0) and the others, which the machine
// copies. With fewer than two aligned sizes nothing is split off: the
// segments need two sizes.
func byWord(pts []onePoint, word int) (aligned, copied []onePoint) {
	if word <= 0 {
		return pts, nil
	}
	sizes := map[int]bool{}
	for _, p := range pts {
		if p.m%word == 0 {
			aligned = append(aligned, p)
			sizes[p.m] = true
		} else {
			copied = append(copied, p)
		}
	}
	if len(sizes) < 2 {
		return pts, nil
	}
	return aligned, copied
}

// fitO fits each segment's O to the copied sizes it covers: with the
// segment's intercept and hop term, their one-way time is c + h·Lh +
// (m-1)·max(G, O), so O is the least-squares slope (relative weights)
// of t - c - h·Lh against m-1. A segment without such sizes keeps O = 0
// with a warning. The copied points join the segment's residuals.
func fitO(rep *Report, copied []onePoint) {
	for i := range rep.Segments {
		s := &rep.Segments[i]
		s.O = Estimate{0, math.NaN()}
		var sxy, sxx float64
		var in []onePoint
		for _, p := range copied {
			if j := segIndex(rep.Params, p.m); j == i && p.m > 1 {
				in = append(in, p)
			}
		}
		var xs [][]float64
		var ys, ws []float64
		for _, p := range in {
			x, y, w := float64(p.m-1), p.t-s.Seg.L-s.Seg.Os-s.Seg.Or-float64(p.h)*s.Seg.Lh, relWeight(p.t)
			sxy += w * x * y
			sxx += w * x * x
			xs, ys, ws = append(xs, []float64{x}), append(ys, y), append(ws, w)
		}
		if sxx == 0 {
			if rep.Params.Word > 0 {
				s.Warnings = append(s.Warnings, fmt.Sprintf("O not identified: no size that is not a multiple of %d bytes measured in this segment; taken as 0", rep.Params.Word))
			}
			continue
		}
		o := sxy / sxx
		s.O.Value = o
		if f, err := wls(xs, ys, ws); err == nil {
			s.O = f.est(0) // the same slope, with its interval (NaN from one point)
			o = s.O.Value
		}
		s.Seg.O, rep.Params.Segments[i].O = o, o
		if o < s.Seg.G {
			s.Warnings = append(s.Warnings, fmt.Sprintf("O = %.4g cycles/byte is below G = %.4g: copied sizes cost no more per byte than others", o, s.Seg.G))
		}
		for _, p := range in {
			s.Residuals = append(s.Residuals, Residual{Bytes: p.m, Hops: p.h, Measured: p.t})
		}
		slices.SortFunc(s.Residuals, func(a, b Residual) int {
			if a.Bytes != b.Bytes {
				return a.Bytes - b.Bytes
			}
			return a.Hops - b.Hops
		})
	}
	for i, s := range rep.Segments {
		for _, w := range s.Warnings {
			if strings.HasPrefix(w, "O ") {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("segment %d (%d..%d B): %s", i, s.MinBytes, s.MaxBytes, w))
			}
		}
	}
}

// segIndex is the index of the segment covering an m-byte message.
func segIndex(p logp.Params, m int) int {
	for i, s := range p.Segments {
		if s.MaxBytes == 0 || m <= s.MaxBytes {
			return i
		}
	}
	return len(p.Segments) - 1
}

// check rejects a measurement no experiment can produce.
func (m Measurement) check() error {
	switch {
	case !slices.Contains(Kinds, m.Kind):
		return fmt.Errorf("kind %q: allowed %s", m.Kind, strings.Join(Kinds, ", "))
	case m.Bytes < 0:
		return fmt.Errorf("bytes = %d: allowed >= 0", m.Bytes)
	case m.Hops < 0:
		return fmt.Errorf("hops = %d: allowed >= 0", m.Hops)
	case m.N < 1:
		return fmt.Errorf("n = %d: allowed >= 1", m.N)
	case m.N != 1 && m.Kind != KindTrain && m.Kind != KindPRTT && m.Kind != KindFanout:
		return fmt.Errorf("n = %d for kind %q: only trains, PRTT and fan-outs have several messages", m.N, m.Kind)
	case m.N < 2 && m.Kind == KindFanout:
		return fmt.Errorf("n = %d for kind %q: a fan-out's spacing needs at least 2 receivers", m.N, m.Kind)
	case !(m.Delay >= 0) || math.IsInf(m.Delay, 0):
		return fmt.Errorf("delay = %v cycles: allowed >= 0", m.Delay)
	case m.Delay != 0 && m.Kind != KindPRTT && m.Kind != KindCTSWait && m.Kind != KindFanout:
		return fmt.Errorf("delay = %v for kind %q: only %s, %s and %s have a delay", m.Delay, m.Kind, KindPRTT, KindCTSWait, KindFanout)
	case !(m.Cycles >= 0) || math.IsInf(m.Cycles, 0):
		return fmt.Errorf("cycles = %v: allowed >= 0", m.Cycles)
	}
	return nil
}

// oneWay gathers the round trips into one-way times, the median of the
// repeated ones, sorted by size then hops.
func oneWay(ms []Measurement) []onePoint {
	type key struct{ m, h int }
	by := map[key][]float64{}
	for _, m := range ms {
		if m.Kind == KindRTT {
			k := key{m.Bytes, m.Hops}
			by[k] = append(by[k], m.Cycles/2)
		}
	}
	var pts []onePoint
	for k, ts := range by {
		pts = append(pts, onePoint{k.m, k.h, medianOf(ts)})
	}
	sort.Slice(pts, func(i, j int) bool {
		if pts[i].m != pts[j].m {
			return pts[i].m < pts[j].m
		}
		return pts[i].h < pts[j].h
	})
	return pts
}

func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// fittedSizes lists the message sizes of the one-way points, ascending,
// once each.
func fittedSizes(pts []onePoint) []int {
	var out []int
	for _, p := range pts {
		out = append(out, p.m)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
