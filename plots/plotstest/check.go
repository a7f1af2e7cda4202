// Package plotstest checks charts in tests: what every chart must show
// (units on both axes, log axes for P and sizes, ticks at the values run,
// a title naming what ran) and the series it holds. It is shared by the
// tests of every package that builds charts (report, scenarios).
package plotstest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"nocsim/plots"
)

// ChartWant is what every chart test checks beyond its series: the
// phrases its title must hold (machine, protocol, library, parameters),
// phrases it must not, its log axes and the x ticks (the values run).
type ChartWant struct {
	Title, NotTitle []string
	LogX, LogY      bool
	Ticks           []float64
}

// CheckChart checks what issue 13 asks of every chart: it validates and
// draws, both axis labels name a unit, the axes holding P or sizes are
// logarithmic, the x axis is ticked at the values run and the title says
// what ran.
func CheckChart(t testing.TB, c plots.Chart, w ChartWant) {
	t.Helper()
	if err := c.Validate(); err != nil {
		t.Errorf("%q: %v", c.Title, err)
	}
	if err := c.CheckLabels(); err != nil {
		t.Errorf("%q: %v", c.Title, err)
	}
	if c.LogX != w.LogX || c.LogY != w.LogY {
		t.Errorf("%q: log x %v, log y %v; want %v, %v", c.Title, c.LogX, c.LogY, w.LogX, w.LogY)
	}
	if got := c.XTickValues(); !slices.Equal(got, w.Ticks) {
		t.Errorf("%q: x ticks %v, want the values run %v", c.Title, got, w.Ticks)
	}
	for _, s := range w.Title {
		if !strings.Contains(c.Title, s) {
			t.Errorf("title %q lacks %q", c.Title, s)
		}
	}
	for _, s := range w.NotTitle {
		if strings.Contains(c.Title, s) {
			t.Errorf("title %q holds %q", c.Title, s)
		}
	}
	if err := c.Save(filepath.Join(t.TempDir(), "c.png"), 0, 0); err != nil {
		t.Errorf("%q: %v", c.Title, err)
	}
}

// SeriesWant is one series as the chart should hold it: name, points and
// how it is drawn (solid measured, dashed companion model, grey reference).
type SeriesWant struct {
	Name                         string
	X, Y                         []float64
	Dashed, Companion, Reference bool
	Marked                       []bool // nil: none marked
	SameAs                       string // the series it is named as lying on
	Panel                        string // the small multiple it is drawn in
}

// CheckSeries checks the chart holds exactly want, in order: names, points,
// marks and how each is drawn.
func CheckSeries(t testing.TB, c plots.Chart, want []SeriesWant) {
	t.Helper()
	if len(c.Series) != len(want) {
		var names []string
		for _, s := range c.Series {
			names = append(names, s.Name)
		}
		t.Fatalf("%q: series %q, want %d", c.Title, names, len(want))
	}
	for i, w := range want {
		s := c.Series[i]
		if s.Name != w.Name || s.Dashed != w.Dashed || s.Companion != w.Companion || s.Reference != w.Reference || s.SameAs != w.SameAs || s.Panel != w.Panel {
			t.Errorf("series %d: %q dashed %v companion %v reference %v same as %q panel %q; want %q %v %v %v %q %q", i, s.Name, s.Dashed, s.Companion, s.Reference, s.SameAs, s.Panel,
				w.Name, w.Dashed, w.Companion, w.Reference, w.SameAs, w.Panel)
		}
		if !slices.Equal(s.X, w.X) || !slices.Equal(s.Y, w.Y) {
			t.Errorf("series %q: X %v Y %v, want %v %v", s.Name, s.X, s.Y, w.X, w.Y)
		}
		marked := slices.Contains(s.Marks, true)
		if w.Marked == nil && marked || w.Marked != nil && !slices.Equal(s.Marks, w.Marked) {
			t.Errorf("series %q: marks %v, want %v", s.Name, s.Marks, w.Marked)
		}
	}
}
