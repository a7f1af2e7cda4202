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
	// (e.g. a 95% interval over repetitions); nil = none.
	YErr []float64
}

// yErrs adapts a series with YErr to plotter.YErrorBars.
type yErrs struct{ Series }

func (e yErrs) YError(i int) (float64, float64) { return e.YErr[i], e.YErr[i] }

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
	markGlyph   = draw.CrossGlyph{}
	glyphRadius = vg.Points(2.5)
	markRadius  = vg.Points(4)
	dashes      = []vg.Length{vg.Points(6), vg.Points(3)}
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
// error naming the allowed extensions). width and height are in inches (use vg.Inch); 0 means 6x4.
// The file is written whole or not at all: render to a temp file in the same directory, then os.Rename.
// Validate is called first.
func (c Chart) Save(path string, widthIn, heightIn float64) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if err := CheckExt(path); err != nil {
		return err
	}
	newCanvas := formats[strings.ToLower(filepath.Ext(path))]
	if widthIn == 0 {
		// The legend's column comes on top of the usual plot width, so
		// the data keeps its room.
		widthIn = defaultWidthIn + c.legendWidthIn()
	}
	if heightIn == 0 {
		heightIn = defaultHeightIn
	}
	if !(widthIn > 0 && heightIn > 0) || math.IsInf(widthIn, 0) || math.IsInf(heightIn, 0) {
		return fmt.Errorf("plots: %s: invalid size %vx%v inches", path, widthIn, heightIn)
	}
	cv := newCanvas(vg.Length(widthIn)*vg.Inch, vg.Length(heightIn)*vg.Inch)
	if err := c.draw(cv); err != nil {
		return fmt.Errorf("plots: %s: %w", path, err)
	}
	return WriteFileAtomic(path, cv)
}

// legendWidthIn is the width of the legend column in inches: the longest
// entry in the legend's font, its thumbnail and some padding.
func (c Chart) legendWidthIn() float64 {
	l := plot.NewLegend()
	var w vg.Length
	for _, sr := range c.Series {
		w = max(w, l.TextStyle.Width(sr.Name))
	}
	if c.MarkLegend != "" {
		w = max(w, l.TextStyle.Width(c.MarkLegend))
	}
	return float64((w + l.ThumbnailWidth + vg.Points(16)) / vg.Inch)
}

// draw turns gonum/plot panics into errors: it reports some bad inputs by
// panicking, and a chart failure must not take the whole CLI run down.
func (c Chart) draw(cv vg.CanvasSizer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing chart: %v", r)
		}
	}()
	p, err := c.plot()
	if err != nil {
		return err
	}
	dc := draw.New(cv)
	// The legend goes in a column right of the plot, where it can hide
	// no data, whatever the data's shape.
	l := p.Legend
	p.Legend = plot.NewLegend()
	w := l.Rectangle(dc).Size().X + vg.Points(8)
	pc := draw.Crop(dc, 0, -w, 0, 0)
	// A title that says what ran (machine, protocol, library, parameters)
	// is often wider than the plot: gonum would cut both its ends off.
	p.Title.Text = wrap(p.Title.TextStyle, p.Title.Text, pc.Size().X-vg.Points(8))
	l.Top, l.Left = true, true
	l.Draw(draw.Crop(dc, dc.Size().X-w+vg.Points(4), 0, 0, -vg.Points(24)))
	if c.LogY && c.YLabel != "" {
		// gonum/plot pads a vertical axis for its label as if the label
		// sat at the arithmetic middle of the range, which on a log axis
		// is near the top: the plot shrank under a band of white. The
		// label is drawn here instead, centred, where gonum would draw it.
		lb := p.Y.Label
		p.Y.Label.Text = ""
		sty := lb.TextStyle
		sty.Rotation += math.Pi / 2
		h, d := lb.TextStyle.Height(lb.Text), lb.TextStyle.FontExtents().Descent
		pc.FillText(sty, vg.Point{X: pc.Min.X + h - d, Y: pc.Center().Y}, lb.Text)
		pc = draw.Crop(pc, h+lb.Padding, 0, 0, 0)
	}
	p.Draw(pc)
	return nil
}

func (c Chart) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.Legend.Top = true
	p.Legend.Left = true
	// The grid goes first so the data is drawn over it.
	p.Add(plotter.NewGrid())

	anyMarked := false
	cis := c.colourIndices()
	// Model lines (companions) go under the measurements, wide and pale:
	// where a model fits well its line would otherwise lie hidden exactly
	// under the measured one; a pale band behind a thin line with points
	// keeps both in sight.
	var under, over []plot.Plotter
	for i, s := range c.Series {
		ci := max(cis[i], 0)
		line, err := plotter.NewLine(s.joined())
		if err != nil {
			return nil, fmt.Errorf("series %d (%q): %w", i, s.Name, err)
		}
		pts, err := plotter.NewScatter(s)
		if err != nil {
			return nil, fmt.Errorf("series %d (%q): %w", i, s.Name, err)
		}
		col, shape := style(ci)
		line.Color = col
		if s.Dashed {
			line.Dashes = dashes
		}
		if s.Reference {
			line.Color, line.Dashes = color.Gray{Y: 0x50}, dashes
		}
		if s.Companion && !s.Reference {
			line.Color = pale(col)
			line.Width = companionWidth
			line.Dashes = companionDashes
			under = append(under, line)
			p.Legend.Add(s.Name, line)
			continue
		}
		if s.Reference {
			over = append(over, line)
			p.Legend.Add(s.Name, line)
			continue
		}
		pts.GlyphStyle = draw.GlyphStyle{Color: col, Radius: glyphRadius, Shape: seriesGlyphs[shape]}
		// Marked points replace the series glyph rather than overlaying it,
		// so a saturated point reads as a different kind of point.
		mark := draw.GlyphStyle{Color: col, Radius: markRadius, Shape: markGlyph}
		pts.GlyphStyleFunc = func(j int) draw.GlyphStyle {
			if s.marked(j) {
				return mark
			}
			return pts.GlyphStyle
		}
		for j := range s.X {
			anyMarked = anyMarked || s.marked(j)
		}
		over = append(over, line, pts)
		p.Legend.Add(s.Name, line, pts)
		if len(s.YErr) > 0 {
			bars, err := plotter.NewYErrorBars(yErrs{s})
			if err != nil {
				return nil, fmt.Errorf("series %d (%q): %w", i, s.Name, err)
			}
			bars.Color = col
			over = append(over, bars)
		}
	}
	p.Add(under...)
	p.Add(over...)
	if c.MarkLegend != "" && anyMarked {
		p.Legend.Add(c.MarkLegend, glyphThumb{Color: color.Black, Radius: markRadius, Shape: markGlyph})
	}

	if c.LogX {
		logAxis(&p.X)
	} else {
		p.X.Tick.Marker = niceTicks{}
	}
	if ticks := c.xTicks(); len(ticks) > 0 {
		ts := make(plot.ConstantTicks, len(ticks))
		for i, v := range ticks {
			ts[i] = plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)}
		}
		p.X.Tick.Marker = ts
	}
	if c.LogY {
		logAxis(&p.Y)
	} else {
		p.Y.Tick.Marker = niceTicks{}
	}
	// Room past the largest x and y, so that a marker on the last point
	// is drawn whole inside the plot rather than cut by its edge.
	widen(&p.X, c.LogX)
	widen(&p.Y, c.LogY)
	return p, nil
}

// niceTicks puts linear-axis ticks at multiples of 1, 2 or 5 times
// a power of ten, at most eight full steps: gonum's default can pick a step
// of 6 and label 3, 9, 15.
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/4)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		step = m * mag
		if (hi-lo)/step <= 8 {
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

// colourIndices is each series' place in the palette: a new one for each
// measured series, its leader's for a companion (the first series' own if
// it has none), -1 for a reference line.
func (c Chart) colourIndices() []int {
	out := make([]int, len(c.Series))
	ci := -1
	for i, s := range c.Series {
		switch {
		case s.Reference:
			out[i] = -1
			continue
		case !s.Companion || ci < 0:
			ci++
		}
		out[i] = ci
	}
	return out
}

// plainLogTicks are gonum's log ticks labelled in plain notation between
// 0.001 and 10^7 (1000000, not 1e+06), with exponents only beyond.
type plainLogTicks struct{}

// Ticks implements plot.Ticker.
func (plainLogTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	for i := range ts {
		if v := ts[i].Value; ts[i].Label != "" && v >= 1e-3 && v < 1e7 {
			ts[i].Label = strconv.FormatFloat(v, 'f', -1, 64)
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
