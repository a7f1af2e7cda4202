package calibrate

import (
	"fmt"
	"math"
	"slices"

	"nocsim/logp"
)

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
// the other measurements of its sizes. Each step adds its warnings in
// turn, so their order is the steps' order.
func fitSegment(pts []onePoint, ms []Measurement, last bool) (SegmentFit, error) {
	lo, hi := pts[0].m, pts[len(pts)-1].m
	sf := SegmentFit{MinBytes: lo, MaxBytes: hi}
	ow, ok := fitOneWay(pts)
	if !ok {
		return sf, errSingular
	}
	sf.setOneWay(pts, ow)
	sf.setPRTT(sel(ms, KindPRTT, lo, hi))
	if err := sf.setOverheads(sel(ms, KindSend, lo, hi), sel(ms, KindRecv, lo, hi)); err != nil {
		return sf, err
	}
	if err := sf.setGap(sel(ms, KindTrain, lo, hi)); err != nil {
		return sf, err
	}
	sf.setL(pts, ow, last)
	for _, p := range pts {
		sf.Residuals = append(sf.Residuals, Residual{Bytes: p.m, Hops: p.h, Measured: p.t})
	}
	return sf, nil
}

func (sf *SegmentFit) warn(format string, a ...any) {
	sf.Warnings = append(sf.Warnings, fmt.Sprintf(format, a...))
}

// setOneWay takes L_per_hop, G and the fit's R² from the one-way fit ow
// of pts, saying which of them the points cannot identify.
func (sf *SegmentFit) setOneWay(pts []onePoint, ow oneWayFit) {
	sf.Lh, sf.G = Estimate{0, math.NaN()}, Estimate{0, math.NaN()}
	if ow.hopCol >= 0 {
		sf.Lh = ow.f.est(ow.hopCol)
	} else {
		sf.warn("L_per_hop not identified: every round trip is at %d hops, so L is the latency at that distance", pts[0].h)
	}
	if ow.sizeCol >= 0 {
		sf.G = ow.f.est(ow.sizeCol)
	} else {
		sf.warn("G not identified: one message size (%d B)", sf.MinBytes)
	}
	if ow.f.dof < 1 {
		sf.warn("as many round trips as parameters: the fit is exact by construction and its confidence intervals unknown")
	}
	sf.R2 = weightedR2(pts, ow)
}

// setPRTT takes Netgauge's PRTT estimates, the gap and the send overhead
// per size, from the segment's PRTT measurements; NaN where there are
// none or they do not fit. They are fallbacks and cross-checks for o_s
// and g.
func (sf *SegmentFit) setPRTT(prtt []Measurement) {
	sf.PRTTGap, sf.PRTTOs = Estimate{math.NaN(), math.NaN()}, Estimate{math.NaN(), math.NaN()}
	ng, no := prttDerived(prtt)
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
}

// setOverheads takes o_s from the send times, else from PRTT(n, d, s),
// and o_r from the receive times; one not measured is taken as 0, with a
// warning, so that L includes it.
func (sf *SegmentFit) setOverheads(sends, recvs []Measurement) error {
	if len(sends) > 0 {
		o, ws, err := intercept(sends, func(m Measurement) float64 { return m.Cycles }, "o_s")
		if err != nil {
			return err
		}
		sf.Os, sf.Warnings = o, append(sf.Warnings, ws...)
		if !math.IsNaN(sf.PRTTOs.Value) && disagree(o.Value, sf.PRTTOs.Value) {
			sf.warn("o_s = %.4g cycles from the send times but %.4g from PRTT(n,d,s)", o.Value, sf.PRTTOs.Value)
		}
	} else if !math.IsNaN(sf.PRTTOs.Value) {
		sf.Os = sf.PRTTOs
		sf.warn("o_s from PRTT(n,d,s): no send times measured")
	} else {
		sf.Os = Estimate{0, math.NaN()}
		sf.warn("o_s not measured (no send times, no PRTT with a delay): taken as 0, so L includes it")
	}
	if len(recvs) > 0 {
		o, ws, err := intercept(recvs, func(m Measurement) float64 { return m.Cycles }, "o_r")
		if err != nil {
			return err
		}
		sf.Or, sf.Warnings = o, append(sf.Warnings, ws...)
	} else {
		sf.Or = Estimate{0, math.NaN()}
		sf.warn("o_r not measured (no receive times): taken as 0, so L includes it")
	}
	return nil
}

// setGap takes g from the trains' time per message, else from
// PRTT(n, 0, s), else 0 with a warning.
func (sf *SegmentFit) setGap(trains []Measurement) error {
	if len(trains) > 0 {
		g, _, err := intercept(trains, func(m Measurement) float64 { return m.Cycles / float64(m.N) }, "g")
		if err != nil {
			return err
		}
		sf.Gap = g
		if !math.IsNaN(sf.PRTTGap.Value) && disagree(g.Value, sf.PRTTGap.Value) {
			sf.warn("g = %.4g cycles from trains (s_n/n at the sender) but %.4g from PRTT(n,0,s) (the steady state of blocking sends and receives): the train's Isends may complete before the receiver keeps up", g.Value, sf.PRTTGap.Value)
		}
	} else if !math.IsNaN(sf.PRTTGap.Value) {
		sf.Gap = sf.PRTTGap
		sf.warn("g from PRTT(n,0,s): no trains measured")
	} else {
		sf.Gap = Estimate{0, math.NaN()}
		sf.warn("g not measured (no trains, no PRTT): taken as 0")
	}
	return nil
}

// setL takes L as what the one-way intercept leaves after the overheads,
// writes the segment's parameters (up to its largest size unless it is
// the last) and warns of every negative, non-physical one.
func (sf *SegmentFit) setL(pts []onePoint, ow oneWayFit, last bool) {
	c := ow.f.est(0)
	at := "0 hops, extrapolated"
	if ow.hopCol < 0 {
		at = fmt.Sprintf("%d hops", pts[0].h)
	}
	sf.L = Estimate{c.Value - sf.Os.Value - sf.Or.Value, sumCI(c.CI95, sf.Os.CI95, sf.Or.CI95)}
	sf.Seg = logp.Segment{L: sf.L.Value, Lh: sf.Lh.Value, Os: sf.Os.Value, Or: sf.Or.Value, Gap: sf.Gap.Value, G: sf.G.Value}
	if !last {
		sf.Seg.MaxBytes = sf.MaxBytes
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
			sf.warn("%s = %.4g cycles (95%% CI ±%.3g) is negative, non-physical: %s; kept as fitted, not clamped", p.name, p.e.Value, p.e.CI95, p.why)
		}
	}
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
