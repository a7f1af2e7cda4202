package calibrate

import (
	"fmt"
	"math"

	"nocsim/logp"
	"nocsim/logp/goal"
	"nocsim/logp/loggops"
)

// HandshakeFit is a segment's handshake (logp.Segment.Handshake), each
// leg measured by its own benchmark; Checks compare what the LogGOPS
// tier, run with the fitted segment, predicts for benchmarks that were
// not used to fit it (the one-to-one train) or only in part (the
// fan-out's spacing), with what was measured.
type HandshakeFit struct {
	Lpost   Estimate         `json:"L_post_cycles"`
	Lcts    Estimate         `json:"L_cts_cycles"`
	LctsH   Estimate         `json:"L_cts_per_hop_cycles"`
	Ldata   Estimate         `json:"L_data_cycles"`
	LdataH  Estimate         `json:"L_data_per_hop_cycles"`
	Octs    Estimate         `json:"o_cts_cycles"`
	GapData Estimate         `json:"g_data_cycles"`
	Checks  []HandshakeCheck `json:"checks"`
}

// HandshakeCheck is the tier's prediction of one benchmark against the
// measurement: for Kind train the whole train's time at the sender, for
// Kind fanout the completions' spacing; RelErr = (Predicted - Measured) /
// Measured.
type HandshakeCheck struct {
	Kind      string  `json:"kind"`
	Bytes     int     `json:"bytes"`
	Hops      int     `json:"hops"`
	N         int     `json:"messages"`
	Measured  float64 `json:"measured_cycles"`
	Predicted float64 `json:"predicted_cycles"`
	RelErr    float64 `json:"rel_err_fraction"`
}

// fitHandshake fits every segment's handshake legs, when Options.Handshake
// asks for it, from the late-receiver, delayed-wait and fan-out
// benchmarks of the segment's sizes. With p the segment, h the hops and
// B(m) = (m-1)·max(G, O(m)) the bytes after the first at the receiver:
//
//   - ctswait: the clear-to-send is back while the sender computes d
//     cycles and runs when it waits, so the receive completes at
//     d + L_data(h) + o_r + B(m) after the computation starts:
//     L_data(h) = cycles - d - o_r - B(m), fitted as L_data +
//     h·L_data_per_hop;
//   - late: the clear-to-send leaves L_post after the posting and is
//     taken at once (the sender waits): cycles = L_post + L_cts(h) +
//     L_data(h) + o_r + B(m), so the send-first leg L_post + L_cts(h) =
//     cycles - L_data(h) - o_r - B(m), fitted as a + h·L_cts_per_hop.
//     End-to-end times cannot split a between L_post and L_cts (nor the
//     isolated message's L between the request's flight and L_cts): the
//     fit takes L_cts = min(a, L - L_data) and L_post = a - L_cts, so the
//     request flies as little as the one-way time allows and L_post is 0
//     whenever the send-first leg fits within it;
//   - fanout: the root takes the clear-to-sends back to back once it
//     waits, each data leg leaving when its NIC is free, so the spacing
//     is max(o_cts, g_data + (m-1)G): o_cts is the smallest spacing and
//     g_data the smallest spacing less (m-1)G (each exact where its term
//     dominates, an upper bound where the other does, which then does
//     not show at the segment's sizes).
//
// A segment gets the handshake only when every leg is measured and
// physical (>= 0, L_cts + L_data within L at every distance); otherwise
// a warning says why and its rendezvous stays LogGOPSim's.
func fitHandshake(rep *Report, ms []Measurement, opt Options) {
	if !opt.Handshake {
		return
	}
	fits := make([]*HandshakeFit, len(rep.Segments))
	whys := make([]string, len(rep.Segments))
	for i := range rep.Segments {
		fits[i], whys[i] = fitSegmentHandshake(rep.Params.Segments[i], rep.Params, i, ms)
	}
	for i, hf := range fits {
		if hf == nil || !math.IsNaN(hf.GapData.Value) {
			continue
		}
		// The nearest segment whose fan-out showed the NIC, else 0.
		from := -1
		for d := 1; d < len(fits) && from < 0; d++ {
			for _, j := range []int{i - d, i + d} {
				if from < 0 && j >= 0 && j < len(fits) && fits[j] != nil && !math.IsNaN(fits[j].GapData.Value) {
					from = j
				}
			}
		}
		w := "g_data not identified: every fan-out spacing is o_cts, the NIC never showed; taken as 0"
		hf.GapData.Value = 0
		if from >= 0 {
			hf.GapData.Value = fits[from].GapData.Value
			w = fmt.Sprintf("g_data not identified (every fan-out spacing is o_cts, the NIC never showed): segment %d's %.4g cycles taken", from, hf.GapData.Value)
		}
		rep.Segments[i].Warnings = append(rep.Segments[i].Warnings, w)
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("segment %d (%d..%d B): %s", i, rep.Segments[i].MinBytes, rep.Segments[i].MaxBytes, w))
	}
	for i := range rep.Segments {
		sf := &rep.Segments[i]
		seg := &rep.Params.Segments[i]
		hf, why := fits[i], whys[i]
		if hf == nil {
			w := "handshake not fitted: " + why + "; the tier runs this segment's rendezvous as LogGOPSim's"
			sf.Warnings = append(sf.Warnings, w)
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("segment %d (%d..%d B): %s", i, sf.MinBytes, sf.MaxBytes, w))
			continue
		}
		seg.Handshake, seg.Lpost = true, hf.Lpost.Value
		seg.Lcts, seg.LctsH, seg.Ldata, seg.LdataH = hf.Lcts.Value, hf.LctsH.Value, hf.Ldata.Value, hf.LdataH.Value
		seg.Octs, seg.GapData = hf.Octs.Value, hf.GapData.Value
		sf.Seg = *seg
		hf.Checks = handshakeChecks(*seg, rep.Params, i, ms, opt.Cooperative)
		sf.Handshake = hf
	}
}

// fitSegmentHandshake fits segment i's legs; nil and the reason when it
// cannot.
func fitSegmentHandshake(seg logp.Segment, p logp.Params, i int, ms []Measurement) (*HandshakeFit, string) {
	in := func(kind string) []Measurement {
		var out []Measurement
		for _, m := range ms {
			if m.Kind == kind && segIndex(p, m.Bytes) == i {
				out = append(out, m)
			}
		}
		return out
	}
	waits, lates, fans := in(KindCTSWait), in(KindLate), in(KindFanout)
	for _, k := range []struct {
		name string
		n    int
	}{{KindCTSWait, len(waits)}, {KindLate, len(lates)}, {KindFanout, len(fans)}} {
		if k.n == 0 {
			return nil, fmt.Sprintf("no %s measurement in the segment", k.name)
		}
	}
	bytes := func(m int) float64 {
		if m <= 1 {
			return 0
		}
		return float64(m-1) * math.Max(seg.G, p.PerByteO(m))
	}
	for _, w := range waits {
		if w.Cycles < w.Delay {
			return nil, fmt.Sprintf("at %d B the data arrived %.0f cycles into the sender's %.0f-cycle computation: its clear-to-send ran at once (handlers preempt the program), so L_data cannot be told from L_cts", w.Bytes, w.Cycles, w.Delay)
		}
	}
	var hf HandshakeFit
	var err error
	hf.Ldata, hf.LdataH, err = fitHops(waits, func(m Measurement) float64 { return m.Cycles - m.Delay - seg.Or - bytes(m.Bytes) })
	if err != nil {
		return nil, "L_data: " + err.Error()
	}
	late, lateH, err := fitHops(lates, func(m Measurement) float64 {
		return m.Cycles - (hf.Ldata.Value + float64(m.Hops)*hf.LdataH.Value) - seg.Or - bytes(m.Bytes)
	})
	if err != nil {
		return nil, "L_cts: " + err.Error()
	}
	hf.LctsH = lateH
	hf.Lcts = Estimate{math.Min(late.Value, seg.L-hf.Ldata.Value), late.CI95}
	hf.Lpost = Estimate{late.Value - hf.Lcts.Value, late.CI95}
	hf.Octs, hf.GapData = Estimate{math.Inf(1), math.NaN()}, Estimate{math.Inf(1), math.NaN()}
	for _, f := range fans {
		hf.Octs.Value = math.Min(hf.Octs.Value, f.Cycles)
		hf.GapData.Value = math.Min(hf.GapData.Value, f.Cycles-float64(max(f.Bytes, 1)-1)*seg.G)
	}
	// Where no size's spacing exceeds o_cts the NIC never showed: g_data
	// is then only bounded by o_cts, and as the request to send's gap
	// too large a bound would space the posts. The caller takes another
	// segment's.
	if hf.GapData.Value >= hf.Octs.Value-1 {
		hf.GapData.Value = math.NaN()
	}
	// Exact fits leave rounding; a billionth of L is no finding.
	tiny := 1e-9 * math.Max(1, seg.L)
	for _, v := range []struct {
		name string
		e    *Estimate
	}{{"L_post", &hf.Lpost}, {"L_cts", &hf.Lcts}, {"L_cts_per_hop", &hf.LctsH}, {"L_data", &hf.Ldata}, {"L_data_per_hop", &hf.LdataH}, {"o_cts", &hf.Octs}, {"g_data", &hf.GapData}} {
		if math.IsNaN(v.e.Value) {
			continue
		}
		if v.e.Value < -tiny {
			return nil, fmt.Sprintf("%s = %.4g cycles is negative", v.name, v.e.Value)
		}
		v.e.Value = math.Max(v.e.Value, 0)
	}
	if hf.Lcts.Value+hf.Ldata.Value > seg.L+tiny || hf.LctsH.Value+hf.LdataH.Value > seg.Lh+tiny {
		return nil, fmt.Sprintf("L_cts + L_data = %.4g + %.4g per hop exceed L = %.4g + %.4g per hop: the request to send would fly a negative time (the send-first leg grows faster with distance than the one-way time leaves room for)",
			hf.Lcts.Value+hf.Ldata.Value, hf.LctsH.Value+hf.LdataH.Value, seg.L, seg.Lh)
	}
	// Keep the legs within L exactly, rounding and all.
	hf.Lcts.Value = math.Min(hf.Lcts.Value, seg.L-hf.Ldata.Value)
	hf.LctsH.Value = math.Min(hf.LctsH.Value, seg.Lh-hf.LdataH.Value)
	return &hf, ""
}

// fitHops fits y(m) = a + h·b by least squares (relative weights are
// not needed: the legs are of one order); with one distance b is 0.
func fitHops(ms []Measurement, y func(Measurement) float64) (a, b Estimate, err error) {
	hops := map[int]bool{}
	for _, m := range ms {
		hops[m.Hops] = true
	}
	cols := 1
	if len(hops) > 1 {
		cols = 2
	}
	xs := make([][]float64, len(ms))
	ys := make([]float64, len(ms))
	ws := make([]float64, len(ms))
	for i, m := range ms {
		xs[i] = []float64{1}
		if cols == 2 {
			xs[i] = append(xs[i], float64(m.Hops))
		}
		ys[i], ws[i] = y(m), 1
	}
	f, err := wls(xs, ys, ws)
	if err != nil {
		return a, b, err
	}
	a, b = f.est(0), Estimate{0, math.NaN()}
	if cols == 2 {
		b = f.est(1)
	}
	return a, b, nil
}

// handshakeChecks runs the train and fan-out benchmarks' schedules on the
// tier with segment i and compares them with the measurements.
func handshakeChecks(seg logp.Segment, p logp.Params, i int, ms []Measurement, coop bool) []HandshakeCheck {
	var out []HandshakeCheck
	for _, m := range ms {
		if segIndex(p, m.Bytes) != i || (m.Kind != KindTrain && m.Kind != KindFanout) {
			continue
		}
		q := loggops.Params{S: 0, Word: uint64(p.Word), Cooperative: coop, Hops: func(a, b int) int { return m.Hops },
			Segments: []loggops.Segment{{L: seg.L, Lh: seg.Lh, Os: seg.Os, Or: seg.Or, Gap: seg.Gap, G: seg.G, O: seg.O,
				Handshake: true, Lpost: seg.Lpost, Lcts: seg.Lcts, LctsH: seg.LctsH, Ldata: seg.Ldata, LdataH: seg.LdataH, Octs: seg.Octs, GapData: seg.GapData}}}
		pred, ok := predictBenchmark(m, q)
		if !ok {
			continue
		}
		c := HandshakeCheck{Kind: m.Kind, Bytes: m.Bytes, Hops: m.Hops, N: m.N, Measured: m.Cycles, Predicted: pred}
		if m.Cycles != 0 {
			c.RelErr = (pred - m.Cycles) / m.Cycles
		}
		out = append(out, c)
	}
	return out
}

// predictBenchmark is the tier's value of a train (N Isends then a wait,
// the receiver's blocking receives: the sender's finish) or a fan-out (N
// Isends to N receivers, Delay cycles of computation, then a wait: the
// mean spacing of the receivers' completions).
func predictBenchmark(m Measurement, q loggops.Params) (float64, bool) {
	n := m.N
	b := goal.NewBuilder(n+1, 0)
	size := uint64(m.Bytes)
	switch m.Kind {
	case KindTrain:
		var prev int32 = -1
		for range n {
			b.AddSend(0, 1, size, 0)
			r := b.AddRecv(1, 0, size, 0)
			if prev >= 0 {
				b.Require(1, r, prev)
			}
			prev = r
		}
	case KindFanout:
		for d := 1; d <= n; d++ {
			b.AddSend(0, d, size, 0)
			b.AddRecv(d, 0, size, 0)
		}
		b.AddCalc(0, uint64(m.Delay))
	}
	s, err := b.Schedule()
	if err != nil {
		return 0, false
	}
	res, err := loggops.Simulate(s, q, loggops.Options{})
	if err != nil {
		return 0, false
	}
	if m.Kind == KindTrain {
		return res.Finish[0], true
	}
	return (res.Finish[n] - res.Finish[1]) / float64(n-1), true
}
