package calibrate

import (
	"math"
	"strings"
	"testing"

	"nocsim/logp"
)

// synth generates the measurements an ideal LogGP machine would give:
// per segment, one-way o_s + L + h·Lh + (m-1)G + o_r, send times o_s plus
// sendPerByte per byte, receive times o_r, trains of n messages at
// g + (m-1)G each, and Netgauge's PRTT consistent with all of them.
func synth(p logp.Params, sizes, hops []int, sendPerByte float64) []Measurement {
	const n = 8
	var ms []Measurement
	for _, h := range hops {
		for _, m := range sizes {
			s := p.Seg(m)
			b := float64(max(m, 1) - 1)
			rtt := 2 * p.PointToPoint(m, float64(h))
			gap := s.Gap + b*s.G
			d := rtt
			ms = append(ms,
				Measurement{Kind: KindRTT, Bytes: m, Hops: h, N: 1, Cycles: rtt},
				Measurement{Kind: KindSend, Bytes: m, Hops: h, N: 1, Cycles: s.Os + sendPerByte*b},
				Measurement{Kind: KindRecv, Bytes: m, Hops: h, N: 1, Cycles: s.Or},
				Measurement{Kind: KindTrain, Bytes: m, Hops: h, N: n, Cycles: n * gap},
				Measurement{Kind: KindPRTT, Bytes: m, Hops: h, N: 1, Cycles: rtt},
				Measurement{Kind: KindPRTT, Bytes: m, Hops: h, N: n, Cycles: rtt + (n-1)*gap},
				Measurement{Kind: KindPRTT, Bytes: m, Hops: h, N: n, Delay: d, Cycles: rtt + (n-1)*(s.Os+sendPerByte*b+d)},
			)
		}
	}
	return ms
}

var knownLogGP = logp.Params{P: 16, Protocol: "eager", Segments: []logp.Segment{
	{MaxBytes: 1024, L: 30, Lh: 4, Os: 25, Or: 40, Gap: 35, G: 0.5},
	{MaxBytes: 0, L: 120, Lh: 12, Os: 180, Or: 150, Gap: 200, G: 0.25},
}}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-7*math.Max(1, math.Abs(b)) }

func TestFitRecoversKnownLogGP(t *testing.T) {
	sizes := []int{1, 8, 64, 256, 1024, 2048, 8192, 65536}
	ms := synth(knownLogGP, sizes, []int{1, 6}, 0.05)
	rep, err := Fit(ms, Options{P: 16, Protocol: "eager"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Breakpoints) != 1 || rep.Breakpoints[0] != 1024 {
		t.Fatalf("breakpoints %v, want [1024]", rep.Breakpoints)
	}
	if len(rep.Warnings) != 0 {
		t.Errorf("warnings for an ideal machine: %q", rep.Warnings)
	}
	if err := rep.Params.Validate(); err != nil {
		t.Error(err)
	}
	for i, want := range knownLogGP.Segments {
		got := rep.Params.Segments[i]
		if got.MaxBytes != want.MaxBytes {
			t.Errorf("segment %d: max_bytes %d, want %d", i, got.MaxBytes, want.MaxBytes)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"L", got.L, want.L}, {"L_per_hop", got.Lh, want.Lh}, {"o_s", got.Os, want.Os}, {"o_r", got.Or, want.Or}, {"g", got.Gap, want.Gap}, {"G", got.G, want.G}} {
			if !near(c.got, c.want) {
				t.Errorf("segment %d: %s = %v, want %v", i, c.name, c.got, c.want)
			}
		}
		sf := rep.Segments[i]
		if !near(sf.PRTTGap.Value, want.Gap) || !near(sf.PRTTOs.Value, want.Os) {
			t.Errorf("segment %d: Netgauge g %v and o_s %v, want %v and %v", i, sf.PRTTGap.Value, sf.PRTTOs.Value, want.Gap, want.Os)
		}
		if sf.R2 < 1-1e-9 || sf.WorstRelErr() > 1e-9 {
			t.Errorf("segment %d: R² %v, worst residual %v for exact data", i, sf.R2, sf.WorstRelErr())
		}
		if !(sf.G.CI95 < 1e-9) {
			t.Errorf("segment %d: G's CI %v for exact data", i, sf.G.CI95)
		}
	}
}

// Without PRTT, trains or send times Fit falls back or says what it
// assumed; with one distance it cannot separate the hop term.
func TestFitPartialMeasurements(t *testing.T) {
	one := logp.Params{Segments: []logp.Segment{{L: 50, Lh: 5, Os: 20, Or: 30, Gap: 40, G: 0.25}}}
	var ms []Measurement
	for _, m := range synth(one, []int{8, 64, 512, 4096}, []int{2}, 0) {
		if m.Kind == KindRTT || m.Kind == KindPRTT {
			ms = append(ms, m)
		}
	}
	rep, err := Fit(ms, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Segments[0]
	if !near(s.Os.Value, 20) || !near(s.Gap.Value, 40) {
		t.Errorf("o_s %v and g %v from PRTT, want 20 and 40", s.Os.Value, s.Gap.Value)
	}
	// o_r unmeasured counts as 0; L at 2 hops absorbs it and the hop term.
	if !near(s.L.Value, 50+2*5+30) || s.Lh.Value != 0 {
		t.Errorf("L = %v, L_per_hop = %v; want 90 and 0", s.L.Value, s.Lh.Value)
	}
	for _, want := range []string{"L_per_hop not identified", "o_r not measured", "o_s from PRTT", "g from PRTT"} {
		if !strings.Contains(strings.Join(rep.Warnings, "\n"), want) {
			t.Errorf("no warning %q in %q", want, rep.Warnings)
		}
	}
	if _, err := Fit([]Measurement{{Kind: KindSend, Bytes: 8, N: 1, Cycles: 10}}, Options{}); err == nil || !strings.Contains(err.Error(), "round trip") {
		t.Errorf("no round trips: error %v", err)
	}
}

// Send and receive times that add up to more than the one-way time imply
// a negative latency: Fit keeps it and names it in a warning.
func TestFitFlagsNegativeLatency(t *testing.T) {
	bad := logp.Params{Segments: []logp.Segment{{L: 10, Lh: 2, Os: 25, Or: 40, Gap: 30, G: 0.5}}}
	ms := synth(bad, []int{8, 64, 512}, []int{1, 3}, 0)
	for i := range ms {
		if ms[i].Kind == KindRecv {
			ms[i].Cycles += 30 // the receive time counts 30 cycles the ping-pong overlaps
		}
	}
	rep, err := Fit(ms, Options{P: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Params.Segments[0].L; !near(got, -20) {
		t.Errorf("L = %v, want the fitted -20, unclamped", got)
	}
	found := false
	for _, w := range rep.Warnings {
		found = found || strings.Contains(w, "L = -20") && strings.Contains(w, "non-physical")
	}
	if !found {
		t.Errorf("no warning naming L as non-physical: %q", rep.Warnings)
	}
	if err := rep.Params.Validate(); err == nil || !strings.Contains(err.Error(), "L") {
		t.Errorf("Validate of the non-physical params: %v, want an error naming L", err)
	}
	var text strings.Builder
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "-20") || !strings.Contains(text.String(), "warning: segment 0") {
		t.Errorf("the text report hides the negative L or its warning:\n%s", text.String())
	}
}

// A slight curvature within the tolerance is not a protocol switch.
func TestFitNoSplitWithinTolerance(t *testing.T) {
	one := logp.Params{Segments: []logp.Segment{{L: 50, Lh: 5, Os: 20, Or: 30, Gap: 40, G: 0.25}}}
	ms := synth(one, []int{8, 64, 512, 4096, 32768}, []int{1, 4}, 0)
	for i := range ms {
		if ms[i].Kind == KindRTT && ms[i].Bytes == 512 {
			ms[i].Cycles *= 1.01
		}
	}
	rep, err := Fit(ms, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Breakpoints) != 0 {
		t.Errorf("breakpoints %v for a 1%% bump", rep.Breakpoints)
	}
	if w := rep.Segments[0].WorstRelErr(); w > 0.02 || w == 0 {
		t.Errorf("worst residual %v, want the bump's share, under 2%%", w)
	}
}

func TestFitRejectsImpossibleMeasurements(t *testing.T) {
	for _, m := range []Measurement{
		{Kind: "pingpong", Bytes: 8, N: 1, Cycles: 10},
		{Kind: KindRTT, Bytes: -1, N: 1, Cycles: 10},
		{Kind: KindRTT, Bytes: 8, N: 1, Cycles: -10},
		{Kind: KindRTT, Bytes: 8, N: 1, Cycles: math.NaN()},
		{Kind: KindRTT, Bytes: 8, N: 0, Cycles: 10},
		{Kind: KindRTT, Bytes: 8, N: 3, Cycles: 10},
		{Kind: KindTrain, Bytes: 8, N: 3, Delay: 5, Cycles: 10},
	} {
		if _, err := Fit([]Measurement{m}, Options{}); err == nil || !strings.Contains(err.Error(), "measurement 1") {
			t.Errorf("%+v: error %v", m, err)
		}
	}
}
