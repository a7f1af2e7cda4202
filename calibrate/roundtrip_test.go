package calibrate

import (
	"math"
	"strings"
	"testing"
)

var issueSizes = []int{8, 16, 32, 64, 128, 256, 512, 1024, 4096, 16384, 65536}

// measure4x4 runs the microbenchmarks on a 4x4 mesh between neighbours
// (0 -> 1, one hop) and across the mesh (0 -> 15, six hops).
func measure4x4(t *testing.T, proto string) []Measurement {
	t.Helper()
	var all []Measurement
	for _, p := range []struct{ from, to, hops int }{{0, 1, 1}, {0, 15, 6}} {
		ms, err := Run(simWorld(4, 4, proto), p.from, p.to, p.hops, issueSizes, 3)
		if err != nil {
			t.Fatalf("%s %d->%d: %v", proto, p.from, p.to, err)
		}
		if want := len(issueSizes) * 9; len(ms) != want {
			t.Fatalf("%s %d->%d: %d measurements, want %d", proto, p.from, p.to, len(ms), want)
		}
		all = append(all, ms...)
	}
	return all
}

// The issue's acceptance test: parameters fitted from the simulated
// microbenchmarks predict the uncontended one-way time within 5% at every
// size and both distances, and the eager protocol's switch to rendezvous
// at eager_bytes = 128 shows as a breakpoint.
func TestRoundTrip4x4(t *testing.T) {
	for _, proto := range []string{"eager", "scmp"} {
		t.Run(proto, func(t *testing.T) {
			ms := measure4x4(t, proto)
			rep, err := Fit(ms, Options{P: 16, Protocol: proto, ClockHz: 1e9, Source: "simulated 4x4"})
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			t.Log("\n" + text.String())
			checked := 0
			for _, m := range ms {
				if m.Kind != KindRTT {
					continue
				}
				want := m.Cycles / 2
				got := rep.Params.PointToPoint(m.Bytes, float64(m.Hops))
				if rel := (got - want) / want; math.Abs(rel) > 0.05 {
					t.Errorf("%d B at %d hops: predicted %.1f cycles, measured %.1f (%+.1f%%)", m.Bytes, m.Hops, got, want, 100*rel)
				}
				checked++
			}
			if checked != 2*len(issueSizes) {
				t.Errorf("checked %d one-way times, want %d", checked, 2*len(issueSizes))
			}
			residuals := 0
			for _, s := range rep.Segments {
				residuals += len(s.Residuals)
				if s.WorstRelErr() > 0.05 {
					t.Errorf("segment %d..%d B: worst residual %.2f%%", s.MinBytes, s.MaxBytes, 100*s.WorstRelErr())
				}
			}
			if residuals != checked {
				t.Errorf("%d residuals, want one per size and distance (%d)", residuals, checked)
			}
			// The DMA streams a word per cycle: large messages cost 1/4
			// cycle per byte whatever the protocol.
			last := rep.Segments[len(rep.Segments)-1]
			if last.G.Value < 0.24 || last.G.Value > 0.26 {
				t.Errorf("G = %v cycles/byte for large messages, want about 1/4", last.G.Value)
			}
			if last.Seg.MaxBytes != 0 {
				t.Errorf("last segment bounded at %d bytes", last.Seg.MaxBytes)
			}
			if last.Lh.Value <= 0 {
				t.Errorf("L_per_hop = %v: farther tiles must take longer", last.Lh.Value)
			}
			if proto == "eager" {
				found := false
				for _, b := range rep.Breakpoints {
					found = found || b == 128
				}
				if !found {
					t.Errorf("breakpoints %v: want the eager/rendezvous switch at 128 bytes (between 128 and 256)", rep.Breakpoints)
				}
			}
		})
	}
}

func TestRunRejectsBadArguments(t *testing.T) {
	nw := simWorld(2, 2, "scmp")
	for _, c := range []struct {
		from, to, hops, reps int
		sizes                []int
		word                 string
	}{
		{0, 0, 1, 1, []int{8}, "ranks"},
		{0, 1, -1, 1, []int{8}, "hops"},
		{0, 1, 1, 0, []int{8}, "reps"},
		{0, 1, 1, 1, nil, "size"},
		{0, 1, 1, 1, []int{-8}, "size"},
	} {
		if _, err := Run(nw, c.from, c.to, c.hops, c.sizes, c.reps); err == nil || !strings.Contains(err.Error(), c.word) {
			t.Errorf("%+v: error %v, want one about %s", c, err, c.word)
		}
	}
	// A rank the machine does not have is the factory's error, passed on.
	if _, err := Run(nw, 0, 7, 3, []int{8}, 1); err == nil {
		t.Error("ranks 0 and 7 on a 2x2 mesh: no error")
	}
}
