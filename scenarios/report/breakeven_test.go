package report

import (
	"math"
	"testing"
)

// The break-even is interpolated in log2 P on the ratio, between the last
// P where serial is faster and the first where the hypercube is.
func TestBreakEvenLocate(t *testing.T) {
	for _, c := range []struct {
		ratios []ProcsRatio
		status string
		lo, hi int
		procs  float64
	}{
		{[]ProcsRatio{{2, 0.5}, {4, 0.8}, {8, 1.2}}, "between", 4, 8, 4 * math.Exp2(0.5)},
		{[]ProcsRatio{{2, 0.5}, {4, 1}, {8, 3}}, "between", 4, 8, 4},
		{[]ProcsRatio{{2, 0.5}, {8, 2}}, "between", 2, 8, math.Exp2(1 + 0.5/1.5*2)},
		{[]ProcsRatio{{2, 1.1}, {4, 0.9}}, "below", 0, 2, 0},
		{[]ProcsRatio{{2, 0.1}, {4, 0.9}}, "above", 4, 0, 0},
	} {
		b := BreakEven{Ratios: c.ratios}
		b.locate()
		if b.Status != c.status || b.SerialFasterUpTo != c.lo || b.HypercubeFasterFrom != c.hi || math.Abs(b.Procs-c.procs) > 1e-12 {
			t.Errorf("%v: got %s %d %d %g, want %s %d %d %g", c.ratios, b.Status, b.SerialFasterUpTo, b.HypercubeFasterFrom, b.Procs, c.status, c.lo, c.hi, c.procs)
		}
	}
}
