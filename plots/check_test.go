package plots

import (
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// A label passes only with a non-empty parenthesised part; the error
// names the axis and the label.
func TestCheckLabels(t *testing.T) {
	for _, c := range []struct {
		x, y string
		bad  string // axis named in the error, "" = passes
	}{
		{"message size (bytes, log scale)", "one-way time (cycles)", ""},
		{"ranks (P)", "MPI time / native time (ratio)", ""},
		{"ranks () (P)", "time (cycles)", ""}, // the first part is empty, the second names the unit
		{"ranks", "time (cycles)", "x"},
		{"ranks (P)", "time", "y"},
		{"ranks (P)", "time ()", "y"},
		{"ranks (P", "time (cycles)", "x"},
		{"", "time (cycles)", "x"},
	} {
		err := Chart{XLabel: c.x, YLabel: c.y}.CheckLabels()
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("%q / %q: %v", c.x, c.y, err)
		case c.bad != "" && (err == nil || !strings.Contains(err.Error(), c.bad+" axis")):
			t.Errorf("%q / %q: error %v, want one naming the %s axis", c.x, c.y, err, c.bad)
		}
	}
}

// XTickValues are what the drawn axis is ticked at: the given ticks, else
// the values run when few, else none.
func TestXTickValues(t *testing.T) {
	few := Chart{Series: []Series{{X: []float64{16, 4, 1}, Y: []float64{1, 2, 3}}, {X: []float64{4, 64}, Y: []float64{1, 2}}}}
	if got := few.XTickValues(); !slices.Equal(got, []float64{1, 4, 16, 64}) {
		t.Errorf("few values: %v", got)
	}
	given := few
	given.XTicks = []float64{1, 2}
	if got := given.XTickValues(); !slices.Equal(got, []float64{1, 2}) {
		t.Errorf("given ticks: %v", got)
	}
	var many Chart
	s := Series{}
	for i := range maxAutoTicks + 1 {
		s.X, s.Y = append(s.X, float64(i)), append(s.Y, 1)
	}
	many.Series = []Series{s}
	if got := many.XTickValues(); got != nil {
		t.Errorf("%d values: ticks %v, want the axis's own", maxAutoTicks+1, got)
	}
}

// A title wider than the plot is broken at spaces into lines that fit,
// every word kept in order; a short one is left alone.
func TestWrapTitle(t *testing.T) {
	sty := plot.New().Title.TextStyle
	long := "one-way time: simulated and LogGP fit (4x4 mesh, scmp protocol, nocsim library; fit saved as params.json)"
	width := vg.Inch * 4
	got := wrap(sty, long, width)
	lines := strings.Split(got, "\n")
	if len(lines) < 2 || strings.Join(lines, " ") != long {
		t.Errorf("wrapped into %q", lines)
	}
	for _, l := range lines {
		if sty.Width(l) > width {
			t.Errorf("line %q is %v wide, more than %v", l, sty.Width(l), width)
		}
	}
	if got := wrap(sty, "bcast: 4x4 mesh", width); got != "bcast: 4x4 mesh" {
		t.Errorf("short title changed to %q", got)
	}
}
