package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one named line of points; it implements plotter.XYer so any result table can be charted.
type Series struct {
	Name   string
	X, Y   []float64
	Dashed bool   // reference/model lines (e.g. an analytic zero-load latency or a LogGP prediction) are dashed
	Marks  []bool // optional, same length as X: points drawn with a distinct hollow/cross glyph (e.g. saturated points); nil = none marked
	// JoinMarked keeps marked points on the series' line: they mark an
	// event (a protocol segment's first size), not a point that failed.
	// By default a marked (saturated, failed) point stands apart.
	JoinMarked bool
	// Companion draws the series in the previous series' colour and without
	// glyphs: a model line beside the measurement it belongs to.
	Companion bool
	// Reference draws a guide that belongs to no measured series (ideal
	// speedup, ratio 1): grey, dashed, without glyphs, taking no colour
	// from the palette.
	Reference bool
	// YErr, optional, same length as Y: half-widths drawn as error bars
	// (e.g. a 95% interval over repetitions); nil = none. For a series
	// with no negative value (a time, a rate) the bar is cut at 0: the
	// quantity cannot be below it, so the part of a symmetric interval
	// under 0 claims nothing.
	YErr []float64
	// Panel names the small multiple the series is drawn in (e.g. "P=16"):
	// series with the same Name in several panels share a colour and one
	// legend entry. A Reference with no Panel is drawn in every panel.
	// Unset everywhere, a chart of more than maxPerPanel measured series
	// is split into panels by itself.
	Panel string
	// SameAs names the series this one lies on (within the caller's
	// tolerance): the legend says so and the series is drawn with hollow
	// glyphs and a dashed line, so that neither hides the other. Series
	// whose points coincide exactly are found when drawing.
	SameAs string
}

// yErrs adapts a series with YErr to plotter.YErrorBars, the lower half
// cut at 0 when clip is set.
type yErrs struct {
	Series
	clip bool
}

func (e yErrs) YError(i int) (float64, float64) {
	lo := e.YErr[i]
	if e.clip {
		lo = min(lo, max(e.Y[i], 0))
	}
	return lo, e.YErr[i]
}

// measured is whether the series is a measurement: neither a model line
// (Companion) nor a guide (Reference).
func (s Series) measured() bool { return !s.Companion && !s.Reference }

// label is the series' legend entry: its name, and the series it lies on.
func (s Series) label() string {
	if s.SameAs == "" {
		return s.Name
	}
	return s.Name + " (same as " + s.SameAs + ")"
}

// Len implements plotter.XYer.
func (s Series) Len() int { return len(s.X) }

// XY implements plotter.XYer.
func (s Series) XY(i int) (float64, float64) { return s.X[i], s.Y[i] }

func (s Series) marked(i int) bool { return s.Marks != nil && s.Marks[i] }

// joined is what the series' line runs through: its unmarked points only,
// so that a marked (saturated, failed) point stands apart instead of
// being joined into the curve.
func (s Series) joined() plotter.XYer {
	if s.Marks == nil || s.JoinMarked {
		return s
	}
	var xy plotter.XYs
	for i := range s.X {
		if !s.marked(i) {
			xy = append(xy, plotter.XY{X: s.X[i], Y: s.Y[i]})
		}
	}
	return xy
}

// Chart is a line chart of one or more series.
type Chart struct {
	Title, XLabel, YLabel string // labels must carry units, e.g. "offered load (flits/node/cycle)"
	LogX, LogY            bool
	Series                []Series
	MarkLegend            string // legend text for marked points, e.g. "saturated"; empty = no legend entry
	// XTicks, when set, are the only x ticks, each labelled with its value
	// (e.g. the rank counts run, on a log axis: a log2 axis when they are
	// powers of two).
	XTicks []float64
	// Diff, when set, adds a panel under the plot with one series'
	// relative difference from another: where a gap of a few percent
	// matters, it is drawn there at its own scale rather than by cutting
	// the main y axis (which starts at zero).
	Diff *Diff
}

// Diff is a relative-difference panel: 100 (Of - Base) / Base at each x
// both series have, in percent.
type Diff struct {
	Of, Base string // series names
	Label    string // the panel's y label, with its unit, e.g. "predicted - simulated (% of simulated)"
}

const (
	defaultWidthIn  = 6
	defaultHeightIn = 4
)

var (
	// Series glyphs are all filled so that the cross used for marked
	// points can never be confused with a series' own glyph.
	seriesGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
	// palette is twelve colours that stay apart on screen and paper
	// (Tableau's ten, with black and a dark gold for the eleventh and
	// twelfth); gonum's default has seven, so larger charts repeated them.
	palette = []color.RGBA{
		{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
		{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
		{0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff}, {0x00, 0x00, 0x00, 0xff}, {0x9c, 0x6b, 0x00, 0xff},
	}
	// hollowGlyphs are seriesGlyphs' outlines, for a series that lies on
	// another (SameAs): drawn larger, around the other's filled glyphs.
	hollowGlyphs = []draw.GlyphDrawer{draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}}
	sameRadius   = vg.Points(4.5)
	sameDashes   = []vg.Length{vg.Points(4), vg.Points(4)}
	markGlyph    = draw.CrossGlyph{}
	glyphRadius  = vg.Points(2.5)
	markRadius   = vg.Points(4)
	dashes       = []vg.Length{vg.Points(6), vg.Points(3)}
	// companion (model) lines: wide, pale, long dashes (see plot)
	companionWidth  = vg.Points(3.5)
	companionDashes = []vg.Length{vg.Points(9), vg.Points(3)}
)

// pale is col blended halfway to white: a model line's shade, kept apart
// from its measurement's full colour but recognisably the same hue.
func pale(col color.Color) color.Color {
	r, g, b, _ := col.RGBA()
	mix := func(v uint32) uint8 { return uint8((v>>8 + 0xff) / 2) }
	return color.RGBA{mix(r), mix(g), mix(b), 0xff}
}

// Canvases are built directly rather than through draw.NewFormattedCanvas
// so that the allowed formats are exactly the documented ones.
var formats = map[string]func(w, h vg.Length) vg.CanvasWriterTo{
	".png": func(w, h vg.Length) vg.CanvasWriterTo { return vgimg.PngCanvas{Canvas: vgimg.New(w, h)} },
	".svg": func(w, h vg.Length) vg.CanvasWriterTo { return vgsvg.New(w, h) },
	".pdf": func(w, h vg.Length) vg.CanvasWriterTo { return vgpdf.New(w, h) },
}

// Validate reports a clear error (naming the series and point index) for: no series, a series with no points,
// len(X)!=len(Y), len(Marks) non-zero and != len(X), NaN/Inf values, and non-positive values on a log axis.
func (c Chart) Validate() error {
	if len(c.Series) == 0 {
		return errors.New("plots: chart has no series")
	}
	if d := c.Diff; d != nil {
		for _, n := range []string{d.Of, d.Base} {
			if !slices.ContainsFunc(c.Series, func(s Series) bool { return s.Name == n }) {
				return fmt.Errorf("plots: difference panel: no series named %q", n)
			}
		}
		if c.LogX {
			return errors.New("plots: difference panel: needs a linear x axis")
		}
	}
	for si, s := range c.Series {
		name := fmt.Sprintf("series %d (%q)", si, s.Name)
		switch {
		case len(s.X) != len(s.Y):
			return fmt.Errorf("plots: %s: len(X)=%d != len(Y)=%d", name, len(s.X), len(s.Y))
		case len(s.X) == 0:
			return fmt.Errorf("plots: %s: no points", name)
		case len(s.Marks) != 0 && len(s.Marks) != len(s.X):
			return fmt.Errorf("plots: %s: len(Marks)=%d != len(X)=%d", name, len(s.Marks), len(s.X))
		case len(s.YErr) != 0 && len(s.YErr) != len(s.Y):
			return fmt.Errorf("plots: %s: len(YErr)=%d != len(Y)=%d", name, len(s.YErr), len(s.Y))
		}
		for i, e := range s.YErr {
			if math.IsNaN(e) || math.IsInf(e, 0) || e < 0 {
				return fmt.Errorf("plots: %s: point %d: error bar %v is not a finite non-negative half-width", name, i, e)
			}
			if c.LogY && s.Y[i]-e <= 0 {
				return fmt.Errorf("plots: %s: point %d: error bar reaches %v, not positive, on a log axis", name, i, s.Y[i]-e)
			}
		}
		for i := range s.X {
			if err := checkValue(s.X[i], c.LogX); err != nil {
				return fmt.Errorf("plots: %s: point %d: x %w", name, i, err)
			}
			if err := checkValue(s.Y[i], c.LogY); err != nil {
				return fmt.Errorf("plots: %s: point %d: y %w", name, i, err)
			}
		}
	}
	return nil
}

func checkValue(v float64, log bool) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("is %v", v)
	case log && v <= 0:
		return fmt.Errorf("is %v, not positive, on a log axis", v)
	}
	return nil
}

// CheckExt reports whether Save can write path's format, so that a caller
// can reject a bad output name before any simulation starts.
func CheckExt(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if _, ok := formats[ext]; !ok {
		return fmt.Errorf("plots: %s: unsupported extension %q (allowed: .png, .svg, .pdf)", path, ext)
	}
	return nil
}

// Save writes the chart to path; the format is chosen from the extension (.png, .svg, .pdf; anything else is an
// error naming the allowed extensions). width and height, in inches, are the plot's: its title, axes and data
// (0 means 6x4; a chart split into panels gets 70% x 80% of that per panel); the legend's rows are added
// below, so that it lies inside the image and over no data however many series there are.
// The file is written whole or not at all: render to a temp file in the same directory, then os.Rename.
// Validate is called first.
func (c Chart) Save(path string, widthIn, heightIn float64) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if err := CheckExt(path); err != nil {
		return err
	}
	if !(widthIn >= 0 && heightIn >= 0) || math.IsInf(widthIn, 0) || math.IsInf(heightIn, 0) {
		return fmt.Errorf("plots: %s: invalid size %vx%v inches", path, widthIn, heightIn)
	}
	newCanvas := formats[strings.ToLower(filepath.Ext(path))]
	lay := c.layout(widthIn, heightIn)
	cv := newCanvas(lay.size.X, lay.size.Y)
	if _, err := lay.draw(cv); err != nil {
		return fmt.Errorf("plots: %s: %w", path, err)
	}
	return WriteFileAtomic(path, cv)
}

// niceTicks puts linear-axis ticks at multiples of 1, 2 or 5 times
// a power of ten, at most eight full steps (steps, when set: a short panel
// takes fewer): gonum's default can pick a step of 6 and label 3, 9, 15.
type niceTicks struct{ steps int }

// Ticks implements plot.Ticker.
func (n niceTicks) Ticks(lo, hi float64) []plot.Tick {
	steps := 8.0
	if n.steps > 0 {
		steps = float64(n.steps)
	}
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/4)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		step = m * mag
		if (hi-lo)/step <= steps {
			break
		}
	}
	var ts []plot.Tick
	for k := math.Ceil(lo / step); k*step <= hi*(1+1e-12); k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64) // 0.30000000000000004 -> 0.3
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
	}
	return ts
}

// plainLogTicks are gonum's log ticks labelled in plain notation when
// every label lies between 0.001 and 10^6 (1000000, not 1e+06); an axis
// that reaches past them is labelled in exponents throughout, so that
// 1000000 does not stand under 1e+07 on one axis (and no label has more
// zeros than a reader counts at a glance).
type plainLogTicks struct{}

// Ticks implements plot.Ticker.
func (plainLogTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	plain := true
	for _, t := range ts {
		plain = plain && (t.Label == "" || t.Value >= 1e-3 && t.Value <= 1e6)
	}
	for i := range ts {
		if ts[i].Label == "" {
			continue
		}
		if plain {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 64)
		} else {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'e', -1, 64)
		}
	}
	return ts
}

// style is the colour and glyph (index into seriesGlyphs) of the i-th
// non-companion series: the colour cycles through the palette and the
// glyph through the shapes, shifted by one each time the palette wraps, so
// no two of the first len(palette)*len(seriesGlyphs) series look alike.
func style(i int) (color.RGBA, int) {
	n := len(palette)
	return palette[i%n], (i + i/n) % len(seriesGlyphs)
}

// maxAutoTicks is how many distinct x values a chart may have for its
// ticks to be put at exactly those values.
const maxAutoTicks = 10

// xTicks are the x ticks: XTicks when given; otherwise, when the series
// share at most maxAutoTicks distinct x values (rank counts, message sizes
// run), those values, so that the axis reads what was run rather than
// decades or odd steps (3, 9, 15 for P = 1, 4, 16); otherwise none (the
// axis's own ticks).
func (c Chart) xTicks() []float64 {
	if len(c.XTicks) > 0 {
		return c.XTicks
	}
	var xs []float64
	for _, s := range c.Series {
		for _, x := range s.X {
			if !slices.Contains(xs, x) {
				if len(xs) == maxAutoTicks {
					return nil
				}
				xs = append(xs, x)
			}
		}
	}
	slices.Sort(xs)
	return xs
}

// edgeRoom is the share of an axis's data range added past its largest
// value.
const edgeRoom = 0.03

// widen moves an axis's maximum edgeRoom of its range past the data (by a
// factor on a log axis).
func widen(a *plot.Axis, log bool) {
	if !(a.Max > a.Min) {
		return
	}
	if log && a.Min > 0 {
		a.Max *= math.Pow(a.Max/a.Min, edgeRoom)
		return
	}
	a.Max += edgeRoom * (a.Max - a.Min)
}

func logAxis(a *plot.Axis) {
	a.Scale = plot.LogScale{}
	// Prec -1 keeps labels such as 0.01 from being rounded to "0".
	a.Tick.Marker = plainLogTicks{}
	// Rescaling to the ticks guarantees at least one labelled decade.
	a.AutoRescale = true
	// gonum/plot widens an empty range by ±1, which can reach zero and
	// make LogTicks panic; widen by a decade each way instead.
	if a.Min == a.Max {
		a.Min /= 10
		a.Max *= 10
	}
}

// wrap breaks text at spaces into lines no wider than width (a single
// word wider than width keeps its own line).
func wrap(sty text.Style, s string, width vg.Length) string {
	if sty.Width(s) <= width {
		return s
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case sty.Width(line+" "+w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return strings.Join(append(lines, line), "\n")
}

type glyphThumb draw.GlyphStyle

func (g glyphThumb) Thumbnail(c *draw.Canvas) { c.DrawGlyph(draw.GlyphStyle(g), c.Center()) }
