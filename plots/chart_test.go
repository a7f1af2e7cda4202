package plots

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

func sampleChart() Chart {
	return Chart{
		Title:  "uniform random, 8x8 mesh",
		XLabel: "offered load (flits/node/cycle)",
		YLabel: "average latency (cycles)",
		Series: []Series{
			{Name: "XY routing", X: []float64{0.05, 0.1, 0.2, 0.3, 0.4}, Y: []float64{20, 21, 24, 35, 120},
				Marks: []bool{false, false, false, false, true}},
			{Name: "zero-load model", X: []float64{0.05, 0.4}, Y: []float64{19, 19}, Dashed: true},
		},
		MarkLegend: "saturated",
	}
}

// dirEntries lists the names in dir, so tests can assert nothing was left behind.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestValidate(t *testing.T) {
	ok := func() Series { return Series{Name: "s", X: []float64{1, 2}, Y: []float64{3, 4}} }
	with := func(f func(*Series)) []Series { s := ok(); f(&s); return []Series{ok(), s} }
	tests := []struct {
		name   string
		chart  Chart
		substr string // must appear in the error; "" means no error expected
	}{
		{"valid", Chart{Series: []Series{ok()}}, ""},
		{"valid log", Chart{LogX: true, LogY: true, Series: []Series{ok()}}, ""},
		{"negative on linear axis", Chart{Series: with(func(s *Series) { s.Y[1] = -1 })}, ""},
		{"no series", Chart{}, "no series"},
		{"empty series", Chart{Series: with(func(s *Series) { s.X, s.Y = nil, nil })}, `series 1 ("s"): no points`},
		{"len mismatch", Chart{Series: with(func(s *Series) { s.Y = s.Y[:1] })}, "len(X)=2 != len(Y)=1"},
		{"marks mismatch", Chart{Series: with(func(s *Series) { s.Marks = []bool{true} })}, "len(Marks)=1 != len(X)=2"},
		{"NaN x", Chart{Series: with(func(s *Series) { s.X[1] = math.NaN() })}, "series 1 (\"s\"): point 1: x is NaN"},
		{"Inf y", Chart{Series: with(func(s *Series) { s.Y[0] = math.Inf(1) })}, "point 0: y is +Inf"},
		{"-Inf y", Chart{Series: with(func(s *Series) { s.Y[1] = math.Inf(-1) })}, "point 1: y is -Inf"},
		{"zero on log x", Chart{LogX: true, Series: with(func(s *Series) { s.X[0] = 0 })}, "point 0: x is 0, not positive, on a log axis"},
		{"negative on log y", Chart{LogY: true, Series: with(func(s *Series) { s.Y[1] = -2 })}, "point 1: y is -2, not positive"},
		{"error bars", Chart{Series: with(func(s *Series) { s.YErr = []float64{0, 0.5} })}, ""},
		{"error bars mismatch", Chart{Series: with(func(s *Series) { s.YErr = []float64{1} })}, "len(YErr)=1 != len(Y)=2"},
		{"negative error bar", Chart{Series: with(func(s *Series) { s.YErr = []float64{0, -1} })}, "point 1: error bar -1"},
		{"error bar below zero on log y", Chart{LogY: true, Series: with(func(s *Series) { s.YErr = []float64{3, 0} })}, "point 0: error bar reaches 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.chart.Validate()
			switch {
			case tt.substr == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.substr != "" && err == nil:
				t.Fatalf("Validate() = nil, want error containing %q", tt.substr)
			case tt.substr != "" && !strings.Contains(err.Error(), tt.substr):
				t.Fatalf("Validate() = %q, want it to contain %q", err, tt.substr)
			}
		})
	}
}

// The image is the plot's width and its height with the title's and the
// legend's rows added (the legend goes under the plot); an explicit size
// is the plot's, as the default is.
func TestSavePNGSize(t *testing.T) {
	for _, sz := range [][2]float64{{0, 0}, {3, 2}} {
		path := filepath.Join(t.TempDir(), "chart.png")
		if err := sampleChart().Save(path, sz[0], sz[1]); err != nil {
			t.Fatal(err)
		}
		w, h := sz[0], sz[1]
		if w == 0 {
			w, h = defaultWidthIn, defaultHeightIn
		}
		l := sampleChart().layout(sz[0], sz[1])
		extra := float64((l.titleH + legendGap + l.legend.height + margin) / vg.Inch)
		b := readPNG(t, path).Bounds()
		wantW, wantH := int(math.Round(w*vgimg.DefaultDPI)), int(math.Round((h+extra)*vgimg.DefaultDPI))
		if b.Dx() != wantW || b.Dy() < wantH-1 || b.Dy() > wantH+1 || extra < 0.3 {
			t.Errorf("size %v: image is %dx%d, want %dx%d (%.2f in for the title and the legend's rows)", sz, b.Dx(), b.Dy(), wantW, wantH, extra)
		}
	}
}

func savePNG(t *testing.T, c Chart, name string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := c.Save(path, 0, 0); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSaveDeterministic(t *testing.T) {
	for _, log := range []bool{false, true} {
		c := sampleChart()
		c.LogX, c.LogY = log, log
		a, b := savePNG(t, c, "a.png"), savePNG(t, c, "b.png")
		if !bytes.Equal(a, b) {
			t.Errorf("log=%v: two saves of the same chart differ (%d vs %d bytes)", log, len(a), len(b))
		}
	}
}

// Each styling option must reach the output; otherwise marks or dashes
// could silently stop being drawn.
func TestStylingChangesOutput(t *testing.T) {
	base := sampleChart()
	base.Series[0].Marks = nil
	base.Series[1].Dashed = false
	baseline := savePNG(t, base, "base.png")

	// Without MarkLegend so that only the glyphs can make a difference.
	marked := sampleChart()
	marked.Series[1].Dashed = false
	marked.MarkLegend = ""
	markedBytes := savePNG(t, marked, "m.png")
	legend := marked
	legend.MarkLegend = "saturated"
	dashed := sampleChart()
	dashed.Series[0].Marks = nil
	logY := base
	logY.LogY = true
	companion := sampleChart()
	companion.Series[0].Marks = nil
	companion.Series[1].Dashed = false
	companion.Series = append([]Series(nil), companion.Series...)
	companion.Series[1].Companion = true
	bars := base
	bars.Series = append([]Series(nil), base.Series...)
	bars.Series[0].YErr = make([]float64, len(bars.Series[0].Y))
	for i, y := range bars.Series[0].Y {
		bars.Series[0].YErr[i] = y / 4
	}
	tests := []struct {
		name      string
		c         Chart
		reference []byte
	}{
		{"error bars", bars, baseline},
		{"marks", marked, baseline},
		{"mark legend", legend, markedBytes},
		{"dashed", dashed, baseline},
		{"log y", logY, baseline},
		{"companion", companion, baseline},
	}
	for _, tt := range tests {
		if bytes.Equal(savePNG(t, tt.c, "v.png"), tt.reference) {
			t.Errorf("%s: option did not change the output", tt.name)
		}
	}
}

func TestSaveFailureLeavesNothing(t *testing.T) {
	tests := []struct {
		name  string
		chart Chart
		setup func(t *testing.T, dir string) string // returns the path to save to
		left  []string                              // entries expected in dir afterwards
	}{
		{"unknown extension", sampleChart(),
			func(t *testing.T, dir string) string { return filepath.Join(dir, "chart.jpg") }, nil},
		{"no extension", sampleChart(),
			func(t *testing.T, dir string) string { return filepath.Join(dir, "chart") }, nil},
		{"missing directory", sampleChart(),
			func(t *testing.T, dir string) string { return filepath.Join(dir, "nope", "chart.png") }, nil},
		{"invalid chart", Chart{},
			func(t *testing.T, dir string) string { return filepath.Join(dir, "chart.png") }, nil},
		// The rename fails after the temp file was fully written, so this is
		// the case that exercises the temp-file cleanup.
		{"target is a directory", sampleChart(),
			func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "taken.png")
				if err := os.Mkdir(p, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(p, "x"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}, []string{"taken.png"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tt.setup(t, dir)
			if err := tt.chart.Save(path, 0, 0); err == nil {
				t.Fatalf("Save(%s) succeeded, want error", path)
			}
			if got := dirEntries(t, dir); !slices.Equal(got, tt.left) {
				t.Fatalf("directory holds %q after failed save, want %q", got, tt.left)
			}
		})
	}
}

func TestUnknownExtensionNamesAllowed(t *testing.T) {
	err := sampleChart().Save(filepath.Join(t.TempDir(), "chart.gif"), 0, 0)
	if err == nil {
		t.Fatal("Save(.gif) succeeded")
	}
	for _, ext := range []string{".png", ".svg", ".pdf"} {
		if !strings.Contains(err.Error(), ext) {
			t.Errorf("error %q does not name %s", err, ext)
		}
	}
}

func TestFailedSaveKeepsExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chart.png")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := sampleChart()
	bad.LogY = true
	bad.Series[0].Y[0] = 0
	if err := bad.Save(path, 0, 0); err == nil {
		t.Fatal("Save with a zero on a log axis succeeded")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "old" {
		t.Fatalf("existing file changed: %q, %v", b, err)
	}
}

func TestLogAxisConstantSeries(t *testing.T) {
	// A flat line at y<=1 would make gonum/plot's default range padding
	// reach zero on a log axis.
	c := Chart{LogX: true, LogY: true, Series: []Series{{Name: "flat", X: []float64{1, 10}, Y: []float64{0.5, 0.5}}}}
	if err := c.Save(filepath.Join(t.TempDir(), "flat.png"), 0, 0); err != nil {
		t.Fatal(err)
	}
}

func TestSaveVectorFormats(t *testing.T) {
	tests := []struct {
		ext      string
		prefixes []string
	}{
		{".svg", []string{"<?xml", "<svg"}},
		{".SVG", []string{"<?xml", "<svg"}},
		{".pdf", []string{"%PDF-"}},
	}
	for _, tt := range tests {
		t.Run(tt.ext, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "chart"+tt.ext)
			if err := sampleChart().Save(path, 0, 0); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range tt.prefixes {
				found = found || bytes.HasPrefix(b, []byte(p))
			}
			if !found {
				t.Fatalf("file starts %q, want one of %q", b[:min(len(b), 16)], tt.prefixes)
			}
			if got := dirEntries(t, dir); len(got) != 1 {
				t.Fatalf("directory holds %q, want only the chart", got)
			}
		})
	}
}

// brokenCanvas panics on every call (its embedded interface is nil), standing
// in for gonum/plot panicking part-way through a draw.
type brokenCanvas struct{ vg.CanvasSizer }

func TestDrawPanicBecomesError(t *testing.T) {
	if _, err := sampleChart().layout(0, 0).draw(brokenCanvas{}); err == nil {
		t.Fatal("draw on a panicking canvas returned nil error")
	}
}

// The legend under the plot takes the plot's width, whatever the names:
// a long entry is wrapped, and more entries add rows, not width.
func TestLegendKeepsPlotWidth(t *testing.T) {
	short := Chart{Title: "t", XLabel: "x", YLabel: "y", Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{3, 4}}}}
	long := short
	long.Series = []Series{{Name: strings.Repeat("a series with a very long legend entry ", 4), X: []float64{1, 2}, Y: []float64{3, 4}}}
	many := short
	for i := range maxPerPanel - 1 {
		many.Series = append(many.Series, Series{Name: fmt.Sprint("series ", i), X: []float64{1, 2}, Y: []float64{3, float64(i)}})
	}
	ls, ll, lm := short.layout(0, 0), long.layout(0, 0), many.layout(0, 0)
	if ls.size.X != defaultWidthIn*vg.Inch || ll.size.X != ls.size.X || lm.size.X != ls.size.X {
		t.Errorf("widths %v, %v, %v: want all %v", ls.size.X, ll.size.X, lm.size.X, defaultWidthIn*vg.Inch)
	}
	if !(ll.legend.height > ls.legend.height && lm.legend.height > ll.legend.height) {
		t.Errorf("legend heights %v, %v, %v: want the long name wrapped and 8 entries in more rows", ls.legend.height, ll.legend.height, lm.legend.height)
	}
	if !strings.Contains(ll.legend.entries[0].text, "\n") {
		t.Errorf("long entry not wrapped: %q", ll.legend.entries[0].text)
	}
}
