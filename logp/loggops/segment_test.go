package loggops

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// One unbounded segment holding the scalar parameters, with no hop
// function, is the scalar model: every rank's finish is identical, for
// every pattern, size and threshold.
func TestOneSegmentIsScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 60 {
		p := randomParams(rng)
		q := p
		q.L, q.Os, q.Or, q.Gap, q.G, q.O = 99, 99, 99, 99, 99, 99 // ignored under Segments
		q.Segments = []Segment{{L: p.L, Os: p.Os, Or: p.Or, Gap: p.Gap, G: p.G, O: p.O, Lh: 7}}
		P, bytes := 2+rng.IntN(14), uint64(rng.IntN(300))
		for _, pat := range patterns {
			s := pat.make(P, bytes, nil)
			a, b := run(t, s, p), run(t, s, q)
			for r := range a.Finish {
				if a.Finish[r] != b.Finish[r] {
					t.Fatalf("%s P=%d %d B: rank %d finishes at %v with scalars, %v with one segment", pat.name, P, bytes, r, a.Finish[r], b.Finish[r])
				}
			}
		}
	}
}

// Each message size takes its own segment's parameters, and the hop
// function adds Lh per hop: a ping-pong is two one-way trips
// o_s + L + h·Lh + o_r + (s-1)max(O, G) of the size's segment (the
// answer's sender is idle and rank 0's CPU is free by then: the
// segments below keep o_s + (s-1)O under a one-way trip).
func TestSegmentsAndHops(t *testing.T) {
	segs := []Segment{
		{MaxBytes: 64, L: 100, Lh: 10, Os: 40, Or: 20, Gap: 150, G: 0, O: 0},
		{MaxBytes: 1024, L: 300, Lh: 15, Os: 60, Or: 25, Gap: 170, G: 0.25, O: 0.01},
		{L: 500, Lh: 20, Os: 80, Or: 30, Gap: 200, G: 0.5, O: 0.02},
	}
	for _, hops := range []int{0, 1, 6} {
		p := Params{S: DefaultS, Segments: segs, Hops: func(a, b int) int { return hops }}
		for _, c := range []struct {
			bytes uint64
			seg   int
		}{{0, 0}, {1, 0}, {64, 0}, {65, 1}, {1024, 1}, {1025, 2}, {65536, 2}} {
			g := segs[c.seg]
			s1 := float64(max(c.bytes, 1) - 1)
			oneWay := g.Os + g.L + float64(hops)*g.Lh + g.Or + s1*max(g.O, g.G)
			if got := run(t, pingPong(c.bytes, nil), p).Max; !near(got, 2*oneWay) {
				t.Errorf("%d hops, %d B: ping-pong %v, want 2 x %v (segment %d)", hops, c.bytes, got, oneWay, c.seg)
			}
		}
	}
}

// The hop function is asked about the pair that exchanges the message:
// on a flat broadcast the root's k-th message (to rank k) is handled
// k·g + o_s + L + Lh·hops(0, k) + o_r after the start.
func TestHopsPerPair(t *testing.T) {
	seg := Segment{L: 10, Lh: 3, Os: 2, Or: 1, Gap: 5}
	p := Params{S: DefaultS, Segments: []Segment{seg}, Hops: func(a, b int) int { return 4*a + b }}
	const P = 6
	res := run(t, flat(P, 1, nil), p)
	for k := 1; k < P; k++ {
		want := float64(k-1)*seg.Gap + seg.Os + seg.L + seg.Lh*float64(k) + seg.Or
		if !near(res.Finish[k], want) {
			t.Errorf("rank %d: %v, want %v", k, res.Finish[k], want)
		}
	}
}

func TestSegmentsValidate(t *testing.T) {
	ok := Segment{L: 1, Os: 1, Or: 1, Gap: 1}
	for _, c := range []struct {
		segs []Segment
		want string
	}{
		{[]Segment{{MaxBytes: 8, L: 1}}, "last segment must be unbounded"},
		{[]Segment{{MaxBytes: 0}, ok}, "allowed above 0"},
		{[]Segment{{MaxBytes: 64}, {MaxBytes: 64}, ok}, "above the previous"},
		{[]Segment{{Lh: -1}}, "segment 0: L_per_hop = -1"},
		{[]Segment{{MaxBytes: 8}, {O: math.NaN()}}, "segment 1: O = NaN"},
		{[]Segment{{G: math.Inf(1)}}, "segment 0: G = +Inf"},
	} {
		p := Params{Segments: c.segs}
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.segs, err, c.want)
		}
	}
	if err := (Params{Segments: []Segment{{MaxBytes: 8}, ok}}).Validate(); err != nil {
		t.Errorf("valid segments: %v", err)
	}
}

// Word: a message whose size is a whole number of words pays no per-byte
// CPU overhead; any other size pays O. A ping-pong is two one-way times
// o_s + L + o_r + max((s-1)O', (s-1)G) with O' = O or 0.
func TestWordExemptsWholeWords(t *testing.T) {
	p := New(6, 2, 4, 0.25, 0.5)
	p.Word = 4
	for _, s := range []uint64{1, 4, 1024, 1027, 4096, 4099} {
		o := 0.5
		if s%4 == 0 {
			o = 0
		}
		want := 2 * (2 + 6 + 2 + max(float64(s-1)*o, float64(s-1)*0.25))
		res, err := Simulate(pingPong(s, nil), p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Max != want {
			t.Errorf("%d bytes, word 4: ping-pong %v, want %v", s, res.Max, want)
		}
		p0 := p
		p0.Word = 0 // LogGOPSim: every size pays O
		res0, err := Simulate(pingPong(s, nil), p0, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want0 := 2 * (2 + 6 + 2 + max(float64(s-1)*0.5, float64(s-1)*0.25)); res0.Max != want0 {
			t.Errorf("%d bytes, no word: ping-pong %v, want %v", s, res0.Max, want0)
		}
	}
}
