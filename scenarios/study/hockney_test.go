package study

import (
	"math"
	"strings"
	"testing"

	"nocsim/calibrate"
	"nocsim/logp"
)

// Round trips that lie on a line give back its t_s and t_e (half of the
// round trip's), and only the requested distance is fitted.
func TestFitHockneyMeasured(t *testing.T) {
	var ms []calibrate.Measurement
	for _, m := range []int{8, 64, 1024, 4096} {
		ms = append(ms, calibrate.Measurement{Kind: calibrate.KindRTT, Bytes: m, Hops: 2, N: 1, Cycles: 2 * (150 + 0.5*float64(m))})
		ms = append(ms, calibrate.Measurement{Kind: calibrate.KindRTT, Bytes: m, Hops: 6, N: 1, Cycles: 2 * (190 + 0.5*float64(m))})
		ms = append(ms, calibrate.Measurement{Kind: calibrate.KindSend, Bytes: m, Hops: 2, N: 1, Cycles: 1e6})
	}
	for _, c := range []struct {
		hops int
		ts   float64
		n    int
	}{{2, 150, 4}, {6, 190, 4}, {-1, 170, 8}} {
		f, err := FitHockneyMeasured(ms, c.hops, "x")
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Sizes) != c.n || math.Abs(f.Ts-c.ts) > 1e-6 || math.Abs(f.Te-0.5) > 1e-9 {
			t.Errorf("hops %d: %d points, t_s %v t_e %v; want %d, %v, 0.5", c.hops, len(f.Sizes), f.Ts, f.Te, c.n, c.ts)
		}
	}
	if _, err := FitHockneyMeasured(ms, 3, "x"); err == nil || !strings.Contains(err.Error(), "[2 6]") {
		t.Errorf("3 hops: %v, want the hop counts present", err)
	}
}

// A one-segment LogGP machine is a line in m: its Hockney fit is exact,
// t_s = o_s + L + h L_h + o_r - G and t_e = G.
func TestFitHockneyParamsOneSegment(t *testing.T) {
	p := logp.Params{P: 4, AvgHops: 2, Sizes: []int{8, 64, 1024},
		Segments: []logp.Segment{{L: 20, Lh: 5, Os: 30, Or: 40, Gap: 10, G: 0.25}}}
	f, err := FitHockneyParams(p, 3, "p")
	if err != nil {
		t.Fatal(err)
	}
	if want := 30 + 20 + 3*5 + 40 - 0.25; math.Abs(f.Ts-want) > 1e-6 || math.Abs(f.Te-0.25) > 1e-9 {
		t.Errorf("t_s %v t_e %v, want %v, 0.25", f.Ts, f.Te, want)
	}
	p.Sizes = []int{64}
	if _, err := FitHockneyParams(p, 3, "p"); err == nil {
		t.Error("one size fitted")
	}
}
