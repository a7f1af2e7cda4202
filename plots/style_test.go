package plots

import (
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// No two of the first 36 series share both colour and glyph, and the
// first twelve all have different colours.
func TestSeriesStylesDistinct(t *testing.T) {
	type st struct {
		r, g, b uint8
		shape   int
	}
	seen := map[st]int{}
	for i := range len(palette) * len(seriesGlyphs) {
		c, sh := style(i)
		k := st{c.R, c.G, c.B, sh}
		if j, ok := seen[k]; ok {
			t.Errorf("series %d looks like series %d", i, j)
		}
		seen[k] = i
	}
	cols := map[[3]uint8]bool{}
	for i := range 12 {
		c, _ := style(i)
		cols[[3]uint8{c.R, c.G, c.B}] = true
	}
	if len(cols) != 12 {
		t.Errorf("the first 12 series have %d colours, want 12", len(cols))
	}
}

func TestXTicksAtValuesRun(t *testing.T) {
	s := func(xs ...float64) Series { return Series{X: xs, Y: make([]float64, len(xs))} }
	tests := []struct {
		name string
		c    Chart
		want []float64
	}{
		{"union of the series, sorted", Chart{Series: []Series{s(16, 1), s(4, 1)}}, []float64{1, 4, 16}},
		{"given ticks win", Chart{XTicks: []float64{2}, Series: []Series{s(1, 4)}}, []float64{2}},
		{"too many values: the axis's own", Chart{Series: []Series{s(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)}}, nil},
		{"exactly the limit", Chart{Series: []Series{s(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)}}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
	}
	for _, tc := range tests {
		if got := tc.c.xTicks(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A marked point is left out of the line (and a series whose points are
// all marked still draws).
func TestMarkedPointsNotJoined(t *testing.T) {
	sr := Series{Name: "a", X: []float64{1, 2, 3}, Y: []float64{1, 2, 30}, Marks: []bool{false, false, true}}
	j := sr.joined()
	if j.Len() != 2 {
		t.Fatalf("line through %d points, want the 2 unmarked", j.Len())
	}
	if x, _ := j.XY(1); x != 2 {
		t.Errorf("second joined point at x=%v, want 2", x)
	}
	kept := sr
	kept.JoinMarked = true
	if n := kept.joined().Len(); n != 3 {
		t.Errorf("JoinMarked: line through %d points, want all 3", n)
	}
	all := Series{Name: "b", X: []float64{1, 2}, Y: []float64{1, 2}, Marks: []bool{true, true}}
	c := Chart{Title: "t", XLabel: "x (u)", YLabel: "y (u)", Series: []Series{sr, all}, MarkLegend: "saturated"}
	if err := c.Save(filepath.Join(t.TempDir(), "m.png"), 0, 0); err != nil {
		t.Fatal(err)
	}
}

// Linear ticks: at most eight steps of 1, 2 or 5 times a power of ten, inside
// the range, labelled exactly.
func TestNiceTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   []float64
	}{
		{1, 16.5, []float64{2, 4, 6, 8, 10, 12, 14, 16}},
		{0.05, 0.8, []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}},
		{0, 100, []float64{0, 20, 40, 60, 80, 100}},
		{-1, 1, []float64{-1, -0.5, 0, 0.5, 1}},
	}
	for _, tc := range tests {
		var got []float64
		for _, tk := range (niceTicks{}).Ticks(tc.lo, tc.hi) {
			got = append(got, tk.Value)
			if tk.Label != strconv.FormatFloat(tk.Value, 'g', -1, 64) {
				t.Errorf("[%v, %v]: tick %v labelled %q", tc.lo, tc.hi, tk.Value, tk.Label)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("[%v, %v]: ticks %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// A reference line takes no palette colour: the series after it keeps the
// colour it would have without it; a companion shares its leader's.
func TestColourIndices(t *testing.T) {
	a, b, c, ref, comp := Series{Name: "a"}, Series{Name: "b"}, Series{Name: "c"}, Series{Reference: true}, Series{Companion: true}
	inP := func(s Series, p string) Series { s.Panel = p; return s }
	tests := []struct {
		series []Series
		want   []int
	}{
		{[]Series{a, b, c}, []int{0, 1, 2}},
		{[]Series{a, ref, b}, []int{0, -1, 1}},
		{[]Series{ref, a, comp, b}, []int{-1, 0, 0, 1}},
		{[]Series{a, comp, comp, b}, []int{0, 0, 0, 1}},
		// A name drawn in two panels keeps its colour in both.
		{[]Series{inP(a, "1"), inP(b, "1"), inP(b, "2"), inP(comp, "2"), inP(a, "2")}, []int{0, 1, 1, 1, 0}},
	}
	for _, tc := range tests {
		if got := (Chart{Series: tc.series}).colourIndices(); !slices.Equal(got, tc.want) {
			t.Errorf("%v: %v, want %v", tc.series, got, tc.want)
		}
	}
}

// Log ticks are plain numbers when every label fits 0.001..10^6, and
// exponents throughout an axis that reaches past: one notation per axis.
func TestPlainLogTickLabels(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   map[float64]string
	}{
		{0.005, 2e5, map[float64]string{0.01: "0.01", 1: "1", 1000: "1000", 1e6: "1000000"}},
		{0.005, 2e6, map[float64]string{0.01: "1e-02", 1e6: "1e+06", 1e7: "1e+07"}},
		{0.005, 2e8, map[float64]string{0.01: "1e-02", 1: "1e+00", 1000: "1e+03", 1e6: "1e+06", 1e8: "1e+08"}},
		{5e5, 2e10, map[float64]string{1e6: "1e+06", 1e7: "1e+07", 1e10: "1e+10"}},
	} {
		for _, tk := range (plainLogTicks{}).Ticks(c.lo, c.hi) {
			if w, ok := c.want[tk.Value]; ok && tk.Label != w {
				t.Errorf("%g..%g: tick %v labelled %q, want %q", c.lo, c.hi, tk.Value, tk.Label, w)
			}
			delete(c.want, tk.Value)
		}
		if len(c.want) != 0 {
			t.Errorf("%g..%g: decades without a tick: %v", c.lo, c.hi, c.want)
		}
	}
}

// The last point never sits on the plot's edge: both axes reach past the
// largest value, linear and log.
func TestAxesLeaveRoomPastTheData(t *testing.T) {
	s := Series{Name: "a", X: []float64{1, 10}, Y: []float64{5, 50}}
	for _, log := range []bool{false, true} {
		ps, _, err := Chart{Series: []Series{s}, LogX: log, LogY: log}.layout(0, 0).plots()
		if err != nil {
			t.Fatal(err)
		}
		if p := ps[0]; !(p.X.Max > 10 && p.Y.Max > 50) {
			t.Errorf("log %v: axes end at x %v, y %v: want past the data (10, 50)", log, p.X.Max, p.Y.Max)
		}
	}
}
