package calibrate

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"nocsim/logp"
)

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

	// Word is the size (bytes) the machine moves without its processor
	// (nocsim: 4, the DMA engine's word); 0 if none is known. With Word
	// > 0 the segments and L, G come from the sizes that are multiples of
	// Word, and O (logp.Segment.O) from the others: their one-way time
	// per byte after the first, max(G, O) in LogGOPS.
	Word int

	// A split is accepted only if it cuts the total squared relative
	// residual by SplitFactor (default 3) and the unsplit fit misses
	// some size by more than SplitTolerance (default 0.02): a model that
	// already predicts every size within 2% needs no other segment.
	SplitFactor    float64
	SplitTolerance float64

	// Handshake fits each segment's handshake legs (see fitHandshake)
	// from the late, ctswait and fanout measurements: for a machine whose
	// rendezvous clear-to-send runs on the sender's processor (nocsim's
	// scmp protocol). Cooperative records that its handlers run only when
	// the program waits (logp.Params.Cooperative), which the legs'
	// benchmarks rely on.
	Handshake   bool
	Cooperative bool
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
// size and hop count; RelErr = (Predicted - Measured) / Measured.
type Residual struct {
	Bytes     int     `json:"bytes"`
	Hops      int     `json:"hops"`
	Measured  float64 `json:"measured_cycles"`
	Predicted float64 `json:"predicted_cycles"`
	RelErr    float64 `json:"rel_err_fraction"`
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

// oneWayFit is c + h·Lh + (m-1)·G fitted to one segment's points.
type oneWayFit struct {
	f               linfit
	hopCol, sizeCol int // column of the hop and size terms, -1 if absent
	sse, worst      float64
}

// fitOneWay fits the points with relative weights. The hop term needs two
// distances and the size term two sizes: without them they are left out
// (the caller warns). ok is false when the points cannot determine the
// parameters, or leave none of the degrees of freedom a segmentation
// needs to judge a split.
func fitOneWay(pts []onePoint) (oneWayFit, bool) {
	hops, sizes := map[int]bool{}, map[int]bool{}
	for _, p := range pts {
		hops[p.h], sizes[p.m] = true, true
	}
	ow := oneWayFit{hopCol: -1, sizeCol: -1}
	cols := 1
	if len(hops) > 1 {
		ow.hopCol, cols = cols, cols+1
	}
	if len(sizes) > 1 {
		ow.sizeCol, cols = cols, cols+1
	}
	x := make([][]float64, len(pts))
	y := make([]float64, len(pts))
	w := make([]float64, len(pts))
	for i, p := range pts {
		x[i] = make([]float64, cols)
		x[i][0] = 1
		if ow.hopCol >= 0 {
			x[i][ow.hopCol] = float64(p.h)
		}
		if ow.sizeCol >= 0 {
			x[i][ow.sizeCol] = float64(max(p.m, 1) - 1)
		}
		y[i], w[i] = p.t, relWeight(p.t)
	}
	f, err := wls(x, y, w)
	if err != nil {
		return ow, false
	}
	ow.f = f
	for i, r := range f.resid {
		rel := r * math.Sqrt(w[i])
		ow.sse += rel * rel
		ow.worst = max(ow.worst, math.Abs(rel))
	}
	return ow, true
}

// split cuts the points (sorted by size) into segments of consecutive
// sizes by binary segmentation: the best single cut between measured
// sizes, if it pays (see Options), then the same on each side. Each side
// must keep two sizes and more points than parameters, so that its fit
// is judged on residuals and not fitted exactly by construction.
func split(pts []onePoint, opt Options) [][]onePoint {
	whole, ok := fitOneWay(pts)
	if !ok || whole.worst <= opt.SplitTolerance {
		return [][]onePoint{pts}
	}
	best, bestSSE := -1, math.Inf(1)
	for i := 1; i < len(pts); i++ {
		if pts[i].m == pts[i-1].m {
			continue
		}
		l, lok := fitOneWay(pts[:i])
		r, rok := fitOneWay(pts[i:])
		if !lok || !rok || l.f.dof < 1 || r.f.dof < 1 || l.sizeCol < 0 || r.sizeCol < 0 {
			continue
		}
		if s := l.sse + r.sse; s < bestSSE {
			best, bestSSE = i, s
		}
	}
	if best < 0 || whole.sse < opt.SplitFactor*bestSSE {
		return [][]onePoint{pts}
	}
	return append(split(pts[:best], opt), split(pts[best:], opt)...)
}

// sel picks one kind's measurements with sizes in [lo, hi].
func sel(ms []Measurement, kind string, lo, hi int) []Measurement {
	var out []Measurement
	for _, m := range ms {
		if m.Kind == kind && m.Bytes >= lo && m.Bytes <= hi {
			out = append(out, m)
		}
	}
	return out
}

// byHops splits measurements by distance, nearest first.
func byHops(ms []Measurement) [][]Measurement {
	by := map[int][]Measurement{}
	for _, m := range ms {
		by[m.Hops] = append(by[m.Hops], m)
	}
	var hs []int
	for h := range by {
		hs = append(hs, h)
	}
	slices.Sort(hs)
	out := make([][]Measurement, len(hs))
	for i, h := range hs {
		out[i] = by[h]
	}
	return out
}

// intercept fits value(m) = a + b(m-1) at each distance measured and
// returns the nearest distance's intercept; a warning says how much it
// changes with distance, for an overhead should not depend on it.
func intercept(ms []Measurement, value func(Measurement) float64, name string) (Estimate, []string, error) {
	var warns []string
	var first Estimate
	var firstHops int
	for i, g := range byHops(ms) {
		sizes := make([]int, len(g))
		ys := make([]float64, len(g))
		for k, m := range g {
			sizes[k], ys[k] = m.Bytes, value(m)
		}
		a, _, err := line(sizes, ys)
		if err != nil {
			return Estimate{}, nil, fmt.Errorf("%s at %d hops: %w", name, g[0].Hops, err)
		}
		if i == 0 {
			first, firstHops = a, g[0].Hops
			continue
		}
		if d := a.Value - first.Value; math.Abs(d) > 1 && math.Abs(d) > 0.02*math.Abs(first.Value) {
			warns = append(warns, fmt.Sprintf("%s = %.4g cycles at %d hops but %.4g at %d: it grows by %.3g cycles/hop, network time inside the call (the protocol blocks); the nearest distance's value is used and L absorbs the rest",
				name, first.Value, firstHops, a.Value, g[0].Hops, d/float64(g[0].Hops-firstHops)))
		}
	}
	return first, warns, nil
}

// fitSegment fits one segment's parameters from its one-way points and
// the other measurements of its sizes.
func fitSegment(pts []onePoint, ms []Measurement, last bool) (SegmentFit, error) {
	lo, hi := pts[0].m, pts[len(pts)-1].m
	sf := SegmentFit{MinBytes: lo, MaxBytes: hi}
	warn := func(format string, a ...any) { sf.Warnings = append(sf.Warnings, fmt.Sprintf(format, a...)) }
	ow, ok := fitOneWay(pts)
	if !ok {
		return sf, errSingular
	}
	c := ow.f.est(0)
	at := "0 hops, extrapolated"
	if ow.hopCol < 0 {
		at = fmt.Sprintf("%d hops", pts[0].h)
	}
	sf.Lh, sf.G = Estimate{0, math.NaN()}, Estimate{0, math.NaN()}
	if ow.hopCol >= 0 {
		sf.Lh = ow.f.est(ow.hopCol)
	} else {
		warn("L_per_hop not identified: every round trip is at %d hops, so L is the latency at that distance", pts[0].h)
	}
	if ow.sizeCol >= 0 {
		sf.G = ow.f.est(ow.sizeCol)
	} else {
		warn("G not identified: one message size (%d B)", lo)
	}
	if ow.f.dof < 1 {
		warn("as many round trips as parameters: the fit is exact by construction and its confidence intervals unknown")
	}
	sf.R2 = weightedR2(pts, ow)

	// Netgauge's PRTT: the gap and the send overhead per size.
	sf.PRTTGap, sf.PRTTOs = Estimate{math.NaN(), math.NaN()}, Estimate{math.NaN(), math.NaN()}
	ng, no := prttDerived(sel(ms, KindPRTT, lo, hi))
	nan := math.NaN()
	if len(ng) > 0 {
		if g, _, err := intercept(ng, func(m Measurement) float64 { return m.Cycles }, "PRTT gap"); err == nil {
			sf.PRTTGap = g
		}
	}
	if len(no) > 0 {
		if o, _, err := intercept(no, func(m Measurement) float64 { return m.Cycles }, "PRTT o_s"); err == nil {
			sf.PRTTOs = o
		}
	}

	// o_s from the send times, else from PRTT(n, d, s).
	if sends := sel(ms, KindSend, lo, hi); len(sends) > 0 {
		o, ws, err := intercept(sends, func(m Measurement) float64 { return m.Cycles }, "o_s")
		if err != nil {
			return sf, err
		}
		sf.Os, sf.Warnings = o, append(sf.Warnings, ws...)
		if !math.IsNaN(sf.PRTTOs.Value) && disagree(o.Value, sf.PRTTOs.Value) {
			warn("o_s = %.4g cycles from the send times but %.4g from PRTT(n,d,s)", o.Value, sf.PRTTOs.Value)
		}
	} else if !math.IsNaN(sf.PRTTOs.Value) {
		sf.Os = sf.PRTTOs
		warn("o_s from PRTT(n,d,s): no send times measured")
	} else {
		sf.Os = Estimate{0, nan}
		warn("o_s not measured (no send times, no PRTT with a delay): taken as 0, so L includes it")
	}

	// o_r from the receive times.
	if recvs := sel(ms, KindRecv, lo, hi); len(recvs) > 0 {
		o, ws, err := intercept(recvs, func(m Measurement) float64 { return m.Cycles }, "o_r")
		if err != nil {
			return sf, err
		}
		sf.Or, sf.Warnings = o, append(sf.Warnings, ws...)
	} else {
		sf.Or = Estimate{0, nan}
		warn("o_r not measured (no receive times): taken as 0, so L includes it")
	}

	// g from the trains' time per message, else from PRTT(n, 0, s).
	if trains := sel(ms, KindTrain, lo, hi); len(trains) > 0 {
		g, _, err := intercept(trains, func(m Measurement) float64 { return m.Cycles / float64(m.N) }, "g")
		if err != nil {
			return sf, err
		}
		sf.Gap = g
		if !math.IsNaN(sf.PRTTGap.Value) && disagree(g.Value, sf.PRTTGap.Value) {
			warn("g = %.4g cycles from trains (s_n/n at the sender) but %.4g from PRTT(n,0,s) (the steady state of blocking sends and receives): the train's Isends may complete before the receiver keeps up", g.Value, sf.PRTTGap.Value)
		}
	} else if !math.IsNaN(sf.PRTTGap.Value) {
		sf.Gap = sf.PRTTGap
		warn("g from PRTT(n,0,s): no trains measured")
	} else {
		sf.Gap = Estimate{0, nan}
		warn("g not measured (no trains, no PRTT): taken as 0")
	}

	// L is what the one-way intercept leaves after the overheads.
	sf.L = Estimate{c.Value - sf.Os.Value - sf.Or.Value, sumCI(c.CI95, sf.Os.CI95, sf.Or.CI95)}
	sf.Seg = logp.Segment{L: sf.L.Value, Lh: sf.Lh.Value, Os: sf.Os.Value, Or: sf.Or.Value, Gap: sf.Gap.Value, G: sf.G.Value}
	if !last {
		sf.Seg.MaxBytes = hi
	}
	// A tiny negative from rounding is not a finding; anything beyond
	// a billionth of the intercept is.
	tiny := 1e-9 * math.Max(1, math.Abs(c.Value))
	for _, p := range []struct {
		name string
		e    Estimate
		why  string
	}{
		{"L", sf.L, fmt.Sprintf("o_s + o_r = %.4g exceed the one-way intercept %.4g (at %s): the send or receive time includes work a waiting peer overlaps with the flight (a rendezvous handshake, a receive call entered before the data arrives)", sf.Os.Value+sf.Or.Value, c.Value, at)},
		{"L_per_hop", sf.Lh, "the one-way time falls with distance"},
		{"o_s", sf.Os, "the send times fall with size faster than the fit allows"},
		{"o_r", sf.Or, "the receive times fall with size faster than the fit allows"},
		{"g", sf.Gap, "the train times fall with size faster than the fit allows"},
		{"G", sf.G, "the one-way time falls with size"},
	} {
		if p.e.Value < -tiny {
			warn("%s = %.4g cycles (95%% CI ±%.3g) is negative, non-physical: %s; kept as fitted, not clamped", p.name, p.e.Value, p.e.CI95, p.why)
		}
	}
	for _, p := range pts {
		sf.Residuals = append(sf.Residuals, Residual{Bytes: p.m, Hops: p.h, Measured: p.t})
	}
	return sf, nil
}

// disagree reports two estimates of one parameter more than 20% apart.
func disagree(a, b float64) bool {
	return math.Abs(a-b) > 0.2*math.Max(math.Abs(a), math.Abs(b)) && math.Abs(a-b) > 1
}

// prttDerived turns PRTT measurements into Netgauge's per-size estimates,
// as pseudo-measurements with Cycles the estimate: the gap
// g(s) = (PRTT(n,0,s) - PRTT(1,0,s))/(n-1) and the send overhead
// o_s(s) = (PRTT(n,d,s) - PRTT(1,0,s))/(n-1) - d, valid for d > g(s).
func prttDerived(ms []Measurement) (gaps, oss []Measurement) {
	type key struct{ m, h int }
	base := map[key][]float64{}
	for _, m := range ms {
		if m.N == 1 && m.Delay == 0 {
			k := key{m.Bytes, m.Hops}
			base[k] = append(base[k], m.Cycles)
		}
	}
	for _, m := range ms {
		b, ok := base[key{m.Bytes, m.Hops}]
		if !ok || m.N < 2 {
			continue
		}
		per := (m.Cycles - medianOf(b)) / float64(m.N-1)
		d := Measurement{Kind: KindPRTT, Bytes: m.Bytes, Hops: m.Hops, N: 1}
		if m.Delay == 0 {
			d.Cycles = per
			gaps = append(gaps, d)
		} else {
			d.Cycles = per - m.Delay
			oss = append(oss, d)
		}
	}
	return gaps, oss
}

// weightedR2 is 1 - Σw·r² / Σw·(y - ȳ_w)² with the fit's relative weights:
// with sizes spanning four decades an unweighted R² is near 1 whatever
// happens at small sizes.
func weightedR2(pts []onePoint, ow oneWayFit) float64 {
	var sw, swy float64
	for _, p := range pts {
		w := relWeight(p.t)
		sw += w
		swy += w * p.t
	}
	mean := swy / sw
	var tot float64
	for _, p := range pts {
		d := p.t - mean
		tot += relWeight(p.t) * d * d
	}
	if tot == 0 {
		return 1
	}
	return 1 - ow.sse/tot
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
