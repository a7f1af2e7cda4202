package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Layout is where a drawn chart's parts lie, in points from the image's
// bottom left corner. Tests check that the legend lies inside the image
// and off every data area.
type Layout struct {
	Image  vg.Rectangle
	Legend vg.Rectangle   // the legend's entries: thumbnails and text
	Data   []vg.Rectangle // each panel's data area, then the difference panel's
	Titles []string       // each panel's title
	// Measured is how many measured series (neither model nor guide)
	// each panel holds.
	Measured []int
}

// Layout draws the chart as Save would at that size (into memory) and
// reports where its parts went.
func (c Chart) Layout(widthIn, heightIn float64) (Layout, error) {
	if err := c.Validate(); err != nil {
		return Layout{}, err
	}
	l := c.layout(widthIn, heightIn)
	return l.draw(vgimg.New(l.size.X, l.size.Y))
}

// chartLayout is a chart measured for drawing.
type chartLayout struct {
	c          Chart // prepared
	panels     []panel
	cols, rows int
	panel      vg.Point  // one panel's size
	diffH      vg.Length // the difference panel's height, 0 if none
	title      string    // wrapped
	titleH     vg.Length
	legend     legendGrid
	size       vg.Point // the image's
}

const (
	// A panel of a split chart is this share of the single plot's size.
	panelWidthShare, panelHeightShare = 0.7, 0.8
	// The difference panel is this share of the plot's height.
	diffHeightShare = 0.4
)

var (
	titlePad  = vg.Points(10)
	legendGap = vg.Points(10) // between the x axis' label and the legend
	margin    = vg.Points(6)  // the image's right and bottom edges
)

// layout sizes c: width and height (inches, 0 = default) are one plot's,
// the legend's rows come below.
func (c Chart) layout(widthIn, heightIn float64) chartLayout {
	pc := c.prepared()
	l := chartLayout{c: pc, panels: pc.panels()}
	w, h := float64(defaultWidthIn), float64(defaultHeightIn)
	if widthIn > 0 {
		w = widthIn
	}
	if heightIn > 0 {
		h = heightIn
	}
	n := len(l.panels)
	l.cols = 1
	if n > 1 {
		l.cols = 2
		w, h = w*panelWidthShare, h*panelHeightShare
	}
	if n > 4 {
		l.cols = 3
	}
	l.rows = (n + l.cols - 1) / l.cols
	l.panel = vg.Point{X: vg.Length(w) * vg.Inch, Y: vg.Length(h) * vg.Inch}
	if pc.Diff != nil && n == 1 {
		l.diffH = vg.Length(diffHeightShare) * l.panel.Y
	}
	width := vg.Length(l.cols) * l.panel.X
	sty := titleStyle()
	if pc.Title != "" {
		// A title that says what ran (machine, protocol, library,
		// parameters) is often wider than the plot: wrapped, not cut.
		l.title = wrap(sty, pc.Title, width-2*margin)
		l.titleH = sty.Height(l.title) + titlePad
	}
	l.legend = layoutLegend(pc, pc.legendEntries(), width-2*margin)
	l.size = vg.Point{X: width, Y: l.titleH + vg.Length(l.rows)*l.panel.Y + l.diffH + legendGap + l.legend.height + margin}
	return l
}

func titleStyle() text.Style {
	sty := plot.New().Title.TextStyle
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	return sty
}

// draw turns gonum/plot panics into errors: it reports some bad inputs by
// panicking, and a chart failure must not take the whole CLI run down.
func (l chartLayout) draw(cv vg.CanvasSizer) (lay Layout, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing chart: %v", r)
		}
	}()
	ps, diff, err := l.plots()
	if err != nil {
		return lay, err
	}
	dc := draw.New(cv)
	lay.Image = dc.Rectangle
	top := dc.Max.Y
	if l.title != "" {
		dc.FillText(titleStyle(), vg.Point{X: dc.Center().X, Y: top - titlePad/2}, l.title)
		top -= l.titleH
	}
	for k, p := range ps {
		r, col := k/l.cols, k%l.cols
		x0, y1 := dc.Min.X+vg.Length(col)*l.panel.X, top-vg.Length(r)*l.panel.Y
		pcv := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x0, Y: y1 - l.panel.Y}, Max: vg.Point{X: x0 + l.panel.X - margin, Y: y1}}}
		pcv = l.yLabel(pcv, p, l.c.LogY)
		var dcv draw.Canvas
		if diff != nil {
			dcv = draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x0, Y: y1 - l.panel.Y - l.diffH}, Max: vg.Point{X: x0 + l.panel.X - margin, Y: y1 - l.panel.Y}}}
			dcv = l.yLabel(dcv, diff, true)
			// The two panels share the x axis: their data areas start
			// at the same x, whatever their y tick labels' widths.
			a, b := p.DataCanvas(pcv).Min.X, diff.DataCanvas(dcv).Min.X
			if a < b {
				pcv = draw.Crop(pcv, b-a, 0, 0, 0)
			} else {
				dcv = draw.Crop(dcv, a-b, 0, 0, 0)
			}
		}
		lay.Data = append(lay.Data, p.DataCanvas(pcv).Rectangle)
		lay.Titles = append(lay.Titles, l.panels[k].title)
		m := 0
		for _, i := range l.panels[k].series {
			if l.c.Series[i].measured() {
				m++
			}
		}
		lay.Measured = append(lay.Measured, m)
		p.Draw(pcv)
		if diff != nil {
			lay.Data = append(lay.Data, diff.DataCanvas(dcv).Rectangle)
			diff.Draw(dcv)
		}
	}
	legendTop := top - vg.Length(l.rows)*l.panel.Y - l.diffH - legendGap
	lay.Legend, err = l.legend.draw(dc, l.c, legendTop)
	return lay, err
}

// yLabel draws a y axis' label itself when own is set and returns the
// rest of the canvas: gonum/plot pads a vertical axis for its label as if
// the label sat at the arithmetic middle of the range, which on a log
// axis is near the top, so the plot shrank under a band of white; and it
// shrinks a short panel (the difference panel) to nothing under a label
// longer than the panel is high. The label is drawn centred, where gonum
// would draw it, wrapped to the panel's height.
func (l chartLayout) yLabel(pc draw.Canvas, p *plot.Plot, own bool) draw.Canvas {
	if !own || p.Y.Label.Text == "" {
		return pc
	}
	lb := p.Y.Label
	lb.Text = wrap(lb.TextStyle, lb.Text, pc.Size().Y-2*margin)
	p.Y.Label.Text = ""
	sty := lb.TextStyle
	sty.Rotation += math.Pi / 2
	h, d := lb.TextStyle.Height(lb.Text), lb.TextStyle.FontExtents().Descent
	mid := pc.Center().Y
	if p.Title.Text != "" {
		mid -= (p.Title.TextStyle.Height(p.Title.Text) + p.Title.Padding) / 2
	}
	pc.FillText(sty, vg.Point{X: pc.Min.X + h - d, Y: mid}, lb.Text)
	return draw.Crop(pc, h+lb.Padding, 0, 0, 0)
}

// plots builds each panel's plot and the difference panel's (nil if
// none), all on the same x and y ranges so that panels compare.
func (l chartLayout) plots() ([]*plot.Plot, *plot.Plot, error) {
	c := l.c
	cis := c.colourIndices()
	var ps []*plot.Plot
	for _, pn := range l.panels {
		p := plot.New()
		p.Title.Text = pn.title
		p.X.Label.Text = c.XLabel
		if c.Diff != nil {
			p.X.Label.Text = "" // the difference panel under it names the axis
		}
		p.Y.Label.Text = c.YLabel
		p.Add(plotter.NewGrid()) // first, so the data is drawn over it
		var under, over []plot.Plotter
		for _, i := range pn.series {
			u, o, _, err := c.plotters(i, cis[i])
			if err != nil {
				return nil, nil, err
			}
			under, over = append(under, u...), append(over, o...)
		}
		p.Add(under...)
		p.Add(over...)
		ps = append(ps, p)
	}
	var diff *plot.Plot
	if c.Diff != nil && len(ps) == 1 {
		var err error
		if diff, err = c.diffPlot(cis); err != nil {
			return nil, nil, err
		}
	}
	// One x range for all panels and one y range, the linear y from zero:
	// a time or a ratio of times read against a cut axis overstates every
	// gap.
	xr, yr := span(ps, func(p *plot.Plot) *plot.Axis { return &p.X }), span(ps, func(p *plot.Plot) *plot.Axis { return &p.Y })
	if !c.LogY {
		yr[0], yr[1] = min(yr[0], 0), max(yr[1], 0)
	}
	all := ps
	if diff != nil {
		all = append(append([]*plot.Plot(nil), ps...), diff)
	}
	for _, p := range all {
		p.X.Min, p.X.Max = xr[0], xr[1]
		c.xAxis(&p.X)
	}
	for _, p := range ps {
		p.Y.Min, p.Y.Max = yr[0], yr[1]
		c.yAxis(&p.Y, c.LogY)
	}
	if diff != nil {
		diff.Y.Min, diff.Y.Max = min(diff.Y.Min, 0), max(diff.Y.Max, 0)
		c.yAxis(&diff.Y, false)
		diff.Y.Tick.Marker = niceTicks{steps: 4}
		// Room below a negative difference too, as above the largest.
		diff.Y.Min -= edgeRoom * (diff.Y.Max - diff.Y.Min)
	}
	return ps, diff, nil
}

// span is the union of the plots' ranges on an axis.
func span(ps []*plot.Plot, axis func(*plot.Plot) *plot.Axis) [2]float64 {
	r := [2]float64{math.Inf(1), math.Inf(-1)}
	for _, p := range ps {
		a := axis(p)
		r[0], r[1] = min(r[0], a.Min), max(r[1], a.Max)
	}
	return r
}

func (c Chart) xAxis(a *plot.Axis) {
	if c.LogX {
		logAxis(a)
	} else {
		a.Tick.Marker = niceTicks{}
	}
	if ticks := c.xTicks(); len(ticks) > 0 {
		ts := make(plot.ConstantTicks, len(ticks))
		for i, v := range ticks {
			ts[i] = plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)}
		}
		a.Tick.Marker = ts
	}
	// Room past the largest x, so that a marker on the last point is
	// drawn whole inside the plot rather than cut by its edge.
	widen(a, c.LogX)
}

func (c Chart) yAxis(a *plot.Axis, log bool) {
	if log {
		logAxis(a)
	} else {
		a.Tick.Marker = niceTicks{}
	}
	widen(a, log)
}

// plotters are what series i draws, in colour ci: under the measurements
// (a companion's pale band), over them, and its legend thumbnails.
func (c Chart) plotters(i, ci int) (under, over []plot.Plotter, thumbs []plot.Thumbnailer, err error) {
	s := c.Series[i]
	fail := func(err error) error { return fmt.Errorf("series %d (%q): %w", i, s.Name, err) }
	line, err := plotter.NewLine(s.joined())
	if err != nil {
		return nil, nil, nil, fail(err)
	}
	col, shape := style(max(ci, 0))
	line.Color = col
	if s.Dashed {
		line.Dashes = dashes
	}
	switch {
	case s.Reference:
		line.Color, line.Dashes = color.Gray{Y: 0x50}, dashes
		return nil, []plot.Plotter{line}, []plot.Thumbnailer{line}, nil
	case s.Companion:
		// Model lines go under the measurements, wide and pale: where a
		// model fits well its line would otherwise lie hidden exactly
		// under the measured one; a pale band behind a thin line with
		// points keeps both in sight.
		line.Color = pale(col)
		line.Width = companionWidth
		line.Dashes = companionDashes
		return []plot.Plotter{line}, nil, []plot.Thumbnailer{line}, nil
	}
	pts, err := plotter.NewScatter(s)
	if err != nil {
		return nil, nil, nil, fail(err)
	}
	pts.GlyphStyle = draw.GlyphStyle{Color: col, Radius: glyphRadius, Shape: seriesGlyphs[shape]}
	if s.SameAs != "" {
		// It lies on another series: hollow, larger glyphs around the
		// other's and a dashed line over it, so both show.
		pts.GlyphStyle = draw.GlyphStyle{Color: col, Radius: sameRadius, Shape: hollowGlyphs[shape]}
		line.Dashes = sameDashes
	}
	// Marked points replace the series glyph rather than overlaying it,
	// so a saturated point reads as a different kind of point.
	mark := draw.GlyphStyle{Color: col, Radius: markRadius, Shape: markGlyph}
	pts.GlyphStyleFunc = func(j int) draw.GlyphStyle {
		if s.marked(j) {
			return mark
		}
		return pts.GlyphStyle
	}
	over = []plot.Plotter{line, pts}
	if len(s.YErr) > 0 {
		bars, err := plotter.NewYErrorBars(yErrs{s, !c.LogY && !hasNegative(s.Y)})
		if err != nil {
			return nil, nil, nil, fail(err)
		}
		bars.Color = col
		over = append(over, bars)
	}
	return nil, over, []plot.Thumbnailer{line, pts}, nil
}

func hasNegative(v []float64) bool {
	for _, x := range v {
		if x < 0 {
			return true
		}
	}
	return false
}

// diffPlot is the difference panel: Diff.Of's relative difference from
// Diff.Base in percent, at each x both have (Base not 0), in Of's colour,
// over a line at 0.
func (c Chart) diffPlot(cis []int) (*plot.Plot, error) {
	d := c.Diff
	var of, base = -1, -1
	for i, s := range c.Series {
		if s.Name == d.Of && of < 0 {
			of = i
		}
		if s.Name == d.Base && base < 0 {
			base = i
		}
	}
	o, b := c.Series[of], c.Series[base]
	var xy plotter.XYs
	for i, x := range o.X {
		for j, bx := range b.X {
			if bx == x && b.Y[j] != 0 {
				xy = append(xy, plotter.XY{X: x, Y: 100 * (o.Y[i] - b.Y[j]) / b.Y[j]})
				break
			}
		}
	}
	p := plot.New()
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = d.Label
	if p.Y.Label.Text == "" {
		p.Y.Label.Text = fmt.Sprintf("%s - %s (%% of %s)", d.Of, d.Base, d.Base)
	}
	p.Add(plotter.NewGrid())
	if len(xy) == 0 {
		return p, nil
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: xy[0].X, Y: 0}, {X: xy[len(xy)-1].X, Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Color = color.Gray{Y: 0x50}
	line, pts, err := plotter.NewLinePoints(xy)
	if err != nil {
		return nil, err
	}
	col, shape := style(max(cis[of], 0))
	line.Color = col
	pts.GlyphStyle = draw.GlyphStyle{Color: col, Radius: glyphRadius, Shape: seriesGlyphs[shape]}
	p.Add(zero, line, pts)
	return p, nil
}
