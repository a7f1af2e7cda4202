package plots

import (
	"fmt"
	"image"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// kindChart is a chart of one kind with n measured series.
type kindChart func(n int) Chart

// chartKinds are the chart shapes nocsim draws: linear and log axes,
// model companions, reference guides, error bars with marked points,
// panels by name, long legend entries and a difference panel.
var chartKinds = map[string]kindChart{
	"linear": func(n int) Chart {
		c := Chart{Title: "linear", XLabel: "x (bytes)", YLabel: "y (cycles)"}
		for i := range n {
			c.Series = append(c.Series, Series{Name: fmt.Sprint("series ", i), X: []float64{1, 2, 3}, Y: []float64{10, 20 + float64(i), 30}})
		}
		return c
	},
	"log-log with companions": func(n int) Chart {
		c := Chart{Title: "log", XLabel: "x (bytes, log scale)", YLabel: "y (cycles, log scale)", LogX: true, LogY: true}
		for i := range n {
			y := []float64{10, 100 * float64(i+1), 1e4}
			c.Series = append(c.Series, Series{Name: fmt.Sprint("alg", i), X: []float64{8, 1024, 16384}, Y: y},
				Series{Name: fmt.Sprint("alg", i, " (LogGP)"), X: []float64{8, 1024, 16384}, Y: y, Dashed: true, Companion: true})
		}
		return c
	},
	"references": func(n int) Chart {
		c := Chart{Title: "speedup", XLabel: "ranks (P, log scale)", YLabel: "speedup (ratio)", LogX: true}
		for i := range n {
			c.Series = append(c.Series, Series{Name: fmt.Sprint("v", i), X: []float64{1, 4, 16}, Y: []float64{1, 3, 9 + float64(i)/4}})
		}
		return c.withSeries(Series{Name: "ideal", X: []float64{1, 4, 16}, Y: []float64{1, 4, 16}, Reference: true})
	},
	"error bars and marks": func(n int) Chart {
		c := Chart{Title: "sweep", XLabel: "rate (flits/node/cycle)", YLabel: "latency (cycles)", MarkLegend: "saturated"}
		for i := range n {
			c.Series = append(c.Series, Series{Name: fmt.Sprintf("noc.traffic=pattern%d network.vcs=%d network.vc_buf=4", i, i%3+1),
				X: []float64{0.1, 0.4, 0.2}, Y: []float64{20, 90, 30}, YErr: []float64{30, 5, 1}, Marks: []bool{false, true, false}})
		}
		return c
	},
	"panels by name": func(n int) Chart {
		c := Chart{Title: "bcast", XLabel: "size (bytes, log scale)", YLabel: "time (cycles, log scale)", LogX: true, LogY: true}
		for _, p := range []string{"P=4", "P=16"} {
			for i := range (n + 1) / 2 {
				c.Series = append(c.Series, Series{Name: fmt.Sprint("algorithm ", i), Panel: p, X: []float64{8, 1024}, Y: []float64{100, 1000 + float64(i)}})
			}
		}
		return c
	},
	"long names": func(n int) Chart {
		c := Chart{Title: strings.Repeat("a title that says what ran ", 6), XLabel: "x (ranks)", YLabel: "y (cycles)"}
		for i := range n {
			c.Series = append(c.Series, Series{Name: strings.Repeat(fmt.Sprint("long legend entry ", i, " "), 5), X: []float64{1, 2}, Y: []float64{1, float64(i)}})
		}
		return c
	},
	"difference panel": func(n int) Chart {
		c := Chart{Title: "compare", XLabel: "rank (MPI rank number)", YLabel: "finish (cycles)"}
		for i := range n {
			c.Series = append(c.Series, Series{Name: fmt.Sprint("tier ", i), X: []float64{0, 1, 2}, Y: []float64{1000, 1040 + float64(i), 980}})
		}
		if n > 1 {
			c.Diff = &Diff{Of: "tier 1", Base: "tier 0", Label: "tier 1 - tier 0 (% of tier 0)"}
		}
		return c
	},
}

func (c Chart) withSeries(s Series) Chart {
	c.Series = append(c.Series, s)
	return c
}

// Every chart kind, with 1, 8 and 20 series and at the default and an
// explicit size: the legend lies inside the image and off every data
// area, the data areas lie inside the image and apart, and no panel holds
// more than maxPerPanel measured series. The boxes are those the drawing
// used (Layout draws the chart); the PNG is then read back to check that
// the legend's box is where its ink is and that nothing is drawn past it
// at the bottom of the image.
func TestLegendInsideImageOffData(t *testing.T) {
	for name, kind := range chartKinds {
		for _, n := range []int{1, 8, 20} {
			for _, sz := range [][2]float64{{0, 0}, {8, 4}} {
				c := kind(n)
				lay, err := c.Layout(sz[0], sz[1])
				if err != nil {
					t.Fatalf("%s, %d series: %v", name, n, err)
				}
				what := fmt.Sprintf("%s, %d series, size %v", name, n, sz)
				if err := lay.Check(); err != nil {
					t.Errorf("%s: %v", what, err)
				}
				if n == 20 && len(lay.Data) < 2 {
					t.Errorf("%s: 20 series in %d panel(s): want small multiples", what, len(lay.Data))
				}
				if sz[0] == 0 {
					checkLegendInk(t, c, lay, what)
				}
			}
		}
	}
}

// checkLegendInk saves c and reads the PNG back: the legend's box holds
// ink, and no row below it does (nothing ran past the legend, off the
// computed image).
func checkLegendInk(t *testing.T, c Chart, lay Layout, what string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.png")
	if err := c.Save(path, 0, 0); err != nil {
		t.Fatal(err)
	}
	img := readPNG(t, path)
	b := img.Bounds()
	px := func(v vg.Length) int { return int(math.Round(float64(v / vg.Inch * vgimg.DefaultDPI))) }
	// vg's y runs up from the bottom, the image's down from the top.
	box := image.Rect(px(lay.Legend.Min.X), b.Dy()-px(lay.Legend.Max.Y), px(lay.Legend.Max.X), b.Dy()-px(lay.Legend.Min.Y))
	dark := func(x, y int) bool { r, g, bl, _ := img.At(x, y).RGBA(); return r+g+bl < 3*0xc000 }
	ink := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if dark(x, y) {
				ink++
			}
		}
	}
	if ink < 50 {
		t.Errorf("%s: %d dark pixels in the legend's box %v", what, ink, box)
	}
	for y := box.Max.Y + 2; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if dark(x, y) {
				t.Errorf("%s: ink at (%d, %d), below the legend's box %v", what, x, y, box)
				return
			}
		}
	}
}

// Points are drawn in ascending x (unsorted --rates made a line double
// back), their marks and error bars moved with them.
func TestPointsSortedByX(t *testing.T) {
	s := Series{Name: "a", X: []float64{0.4, 0.05, 0.2}, Y: []float64{40, 5, 20}, Marks: []bool{true, false, false}, YErr: []float64{4, 0.5, 2}}
	got := Chart{Series: []Series{s}}.prepared().Series[0]
	if !slices.Equal(got.X, []float64{0.05, 0.2, 0.4}) || !slices.Equal(got.Y, []float64{5, 20, 40}) ||
		!slices.Equal(got.Marks, []bool{false, false, true}) || !slices.Equal(got.YErr, []float64{0.5, 2, 4}) {
		t.Errorf("sorted: %+v", got)
	}
	if s.X[0] != 0.4 {
		t.Error("the caller's series was changed")
	}
}

// A measured series whose points are exactly an earlier one's is named as
// the same as it (in its panel only); one that differs anywhere is not.
func TestSameAsFound(t *testing.T) {
	x := []float64{1, 2}
	c := Chart{Series: []Series{
		{Name: "a", X: x, Y: []float64{3, 4}},
		{Name: "b", X: []float64{2, 1}, Y: []float64{4, 3}}, // the same points, unsorted
		{Name: "c", X: x, Y: []float64{3, 4.0001}},
		{Name: "a model", X: x, Y: []float64{3, 4}, Companion: true},
	}}
	got := c.prepared().Series
	if got[1].SameAs != "a" || got[2].SameAs != "" || got[3].SameAs != "" {
		t.Errorf("same as: %q %q %q, want a, none, none", got[1].SameAs, got[2].SameAs, got[3].SameAs)
	}
	if l := got[1].label(); l != "b (same as a)" {
		t.Errorf("legend entry %q", l)
	}
	// In panels: b lies on a in P=4 only, so its entry says where; c lies
	// on a wherever it is drawn, so one entry says so.
	y := []float64{5, 6}
	p := Chart{Series: []Series{
		{Name: "a", Panel: "P=4", X: x, Y: x}, {Name: "b", Panel: "P=4", X: x, Y: x}, {Name: "c", Panel: "P=4", X: x, Y: x},
		{Name: "a", Panel: "P=16", X: x, Y: y}, {Name: "b", Panel: "P=16", X: x, Y: x}, {Name: "c", Panel: "P=16", X: x, Y: y},
	}}.prepared().Series
	if got := []string{p[1].SameAs, p[2].SameAs, p[4].SameAs, p[5].SameAs}; !slices.Equal(got, []string{"a at P=4", "a", "", "a"}) {
		t.Errorf("panels: same as %q, want a at P=4, a, none, a", got)
	}
}

// A series on another is drawn differently (hollow glyphs, dashed): the
// two charts differ only in that flag and their PNGs differ.
func TestSameAsDrawnDistinct(t *testing.T) {
	x := []float64{1, 2, 3}
	a := Chart{Series: []Series{{Name: "a", X: x, Y: x}, {Name: "b", X: x, Y: []float64{1, 2, 3.5}}}}
	b := a
	b.Series = []Series{a.Series[0], a.Series[1]}
	b.Series[1].SameAs = "zz"
	b.Series[1].Name = "b"
	a.Series[1].Name = "b (same as zz)" // the same legend text either way
	if string(savePNG(t, a, "a.png")) == string(savePNG(t, b, "b.png")) {
		t.Error("a series marked SameAs is drawn as any other")
	}
}

// Error bars of a quantity that cannot be negative stop at 0; a series
// with negative values keeps its symmetric bars.
func TestErrorBarsClippedAtZero(t *testing.T) {
	s := Series{X: []float64{1, 2}, Y: []float64{3, 10}, YErr: []float64{5, 2}}
	if lo, hi := (yErrs{s, true}).YError(0); lo != 3 || hi != 5 {
		t.Errorf("clipped bar %v..%v around 3, want down to 0 (3) and up 5", lo, hi)
	}
	if lo, hi := (yErrs{s, true}).YError(1); lo != 2 || hi != 2 {
		t.Errorf("bar inside the range: %v, %v", lo, hi)
	}
	ps, _, err := Chart{Series: []Series{s}}.layout(0, 0).plots()
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].Y.Min != 0 {
		t.Errorf("y axis from %v: the clipped bar reaches 0, no lower", ps[0].Y.Min)
	}
	neg := Series{X: []float64{1, 2}, Y: []float64{-1, 10}, YErr: []float64{5, 2}}
	ps, _, _ = Chart{Series: []Series{neg}}.layout(0, 0).plots()
	if ps[0].Y.Min != -6 {
		t.Errorf("a series with negative values: y from %v, want -6", ps[0].Y.Min)
	}
}

// A linear y axis starts at zero (a time or a ratio of times read
// against a cut axis overstates a gap); panels share their ranges; the
// difference panel holds the relative difference in percent and 0.
func TestLinearYFromZeroAndDiffPanel(t *testing.T) {
	x := []float64{0, 1, 2}
	c := Chart{Series: []Series{{Name: "sim", X: x, Y: []float64{1000, 1000, 2000}}, {Name: "pred", X: x, Y: []float64{1047, 1000, 1900}}},
		Diff: &Diff{Of: "pred", Base: "sim"}}
	ps, diff, err := c.layout(0, 0).plots()
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].Y.Min != 0 {
		t.Errorf("y from %v, want 0", ps[0].Y.Min)
	}
	if diff == nil {
		t.Fatal("no difference panel")
	}
	if !(diff.Y.Min <= -5 && diff.Y.Max >= 4.7 && diff.Y.Max < 10) {
		t.Errorf("difference panel y %v..%v, want the -5%% and +4.7%% and not much more", diff.Y.Min, diff.Y.Max)
	}
	lay, err := c.Layout(0, 0)
	if err != nil || len(lay.Data) != 2 || lay.Data[0].Min.X != lay.Data[1].Min.X {
		t.Errorf("layout %+v, %v: want two data areas, aligned on x", lay.Data, err)
	}
	if err := (Chart{Series: c.Series, Diff: &Diff{Of: "nope", Base: "sim"}}).Validate(); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("a difference of an unknown series: %v", err)
	}
	p := Chart{Series: []Series{{Name: "a", Panel: "1", X: x, Y: []float64{5, 6, 7}}, {Name: "a", Panel: "2", X: []float64{10, 11}, Y: []float64{500, 600}}}}
	ps, _, _ = p.layout(0, 0).plots()
	if len(ps) != 2 || ps[0].X.Max != ps[1].X.Max || ps[0].Y.Max != ps[1].Y.Max || ps[0].Y.Min != 0 {
		t.Errorf("panels' ranges differ or do not start at 0")
	}
}

// Check fails the layouts the issue found: a legend beside the plot run
// off the image's bottom, a legend over the data, a panel of 9 lines.
func TestLayoutCheckCatches(t *testing.T) {
	img := vg.Rectangle{Max: vg.Point{X: 400, Y: 300}}
	data := []vg.Rectangle{{Min: vg.Point{X: 40, Y: 80}, Max: vg.Point{X: 300, Y: 280}}}
	below := vg.Rectangle{Min: vg.Point{X: 40, Y: 5}, Max: vg.Point{X: 300, Y: 40}}
	tests := []struct {
		name string
		l    Layout
		want string // "" = no error
	}{
		{"legend below", Layout{Image: img, Data: data, Legend: below, Measured: []int{8}, Titles: []string{""}}, ""},
		{"legend off the bottom", Layout{Image: img, Data: data, Legend: vg.Rectangle{Min: vg.Point{X: 310, Y: -50}, Max: vg.Point{X: 390, Y: 280}}}, "not inside the image"},
		{"legend over the data", Layout{Image: img, Data: data, Legend: vg.Rectangle{Min: vg.Point{X: 50, Y: 200}, Max: vg.Point{X: 150, Y: 270}}}, "over data area 0"},
		{"no legend", Layout{Image: img, Data: data}, "not inside the image"},
		{"nine lines in a panel", Layout{Image: img, Data: data, Legend: below, Measured: []int{9}, Titles: []string{"P=4"}}, `panel 0 ("P=4") holds 9`},
		{"panels overlap", Layout{Image: img, Data: append(data, data[0]), Legend: below}, "overlap"},
	}
	for _, tc := range tests {
		err := tc.l.Check()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// More than 8 lines named by "key=value" settings (a sweep's) are split
// by the key that gives the fewest panels, the panels in ascending value
// and each line named by the other settings, so a setting keeps one
// colour and one legend entry in all of them.
func TestPanelByKey(t *testing.T) {
	var c Chart
	for _, r := range []string{"0.4", "0.05", "0.2"} {
		for _, tr := range []string{"uniform", "transpose", "bitcomp", "bitrev", "shuffle", "tornado"} {
			c.Series = append(c.Series, Series{Name: "traffic=" + tr + " rate=" + r, X: []float64{1, 2}, Y: []float64{3, 4}})
		}
	}
	pc := c.prepared()
	ps := pc.panels()
	var titles []string
	for _, p := range ps {
		titles = append(titles, p.title)
	}
	if !slices.Equal(titles, []string{"rate=0.05", "rate=0.2", "rate=0.4"}) {
		t.Fatalf("panels %q, want one per rate, ascending", titles)
	}
	if s := pc.Series[ps[0].series[0]]; s.Name != "traffic=uniform" || s.Panel != "rate=0.05" {
		t.Errorf("first line %q in %q", s.Name, s.Panel)
	}
	if es := pc.legendEntries(); len(es) != 6 {
		t.Errorf("%d legend entries, want one per traffic", len(es))
	}
	// Eight lines stay in one panel, names as given.
	c.Series = c.Series[:8]
	if pc := c.prepared(); len(pc.panels()) != 1 || pc.Series[0].Name != "traffic=uniform rate=0.4" {
		t.Errorf("8 lines: %d panels, first named %q", len(pc.panels()), pc.Series[0].Name)
	}
}
