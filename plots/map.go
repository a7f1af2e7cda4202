package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	gpalette "gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Map is a heat map on a grid: cells coloured by a value, and directed
// segments between points of the grid (arrows) coloured by a value of
// their own, each on its own scale with its colour bar under the map.
// It shows what a line chart cannot, where on a chip something happens;
// what the cells and segments stand for is the caller's. Both scales run
// from 0 to their largest value, as a chart's linear y axis starts at 0.
type Map struct {
	Title          string
	XLabel, YLabel string // axis labels with their units, as a Chart's
	// Cols and Rows are the grid's size: cell (c, r) is centred at x = c,
	// y = r, row 0 at the top.
	Cols, Rows int
	Cells      []MapCell
	CellLabel  string // the cells' colour bar label, with its unit: "router power (mW)"
	// Segments are drawn over the cells, each with its arrowhead at its
	// end, in grid coordinates (a segment may reach past the outer cells'
	// centres, up to half a cell).
	Segments     []MapSegment
	SegmentLabel string // the segments' colour bar label, with its unit
	// CellMax and SegmentMax, when above 0, are the colour bars' tops
	// (at least the largest value): maps drawn to be compared, such as
	// one per time window, share them.
	CellMax, SegmentMax float64
}

// MapCell is one coloured cell.
type MapCell struct {
	Col, Row int
	Value    float64
}

// MapSegment is one arrow from (X0, Y0) to (X1, Y1), in grid coordinates.
type MapSegment struct {
	X0, Y0, X1, Y1 float64
	Value          float64
}

// MapCellSide is a cell's side in grid units (the pitch is 1): the gap
// between neighbours leaves room for the segments between them, which a
// caller places from cell edge to cell edge.
const MapCellSide = 0.6

// edgePad is the room, in grid units, between the grid's edge and the
// axes.
const edgePad = 0.08

const (
	// The grid's pitch: as large as fits the map's side, within bounds.
	mapSideIn              = 4.5
	maxPitchIn, minPitchIn = 1.0, 0.18
	// minSideIn is the least a side of the data area is: a grid of one
	// row (or one cell) would leave no room for its axis's label; the
	// range is widened around the grid instead, so cells stay square.
	minSideIn   = 2.6
	mapWidthIn  = 6 // the image's width, at least
	barHeightIn = 0.85
)

var (
	// cellColours and segmentColours run from the largest value (dark)
	// to 0 (light), in rising luminance as moreland.NewLuminance wants;
	// they are reversed so that 0 is light. Two hues, so that the cells'
	// scale is not read for the segments'.
	cellColours = []color.Color{color.RGBA{0x80, 0x00, 0x26, 0xff}, color.RGBA{0xe3, 0x1a, 0x1c, 0xff},
		color.RGBA{0xfd, 0x8d, 0x3c, 0xff}, color.RGBA{0xfe, 0xd9, 0x76, 0xff}, color.RGBA{0xff, 0xff, 0xcc, 0xff}}
	segmentColours = []color.Color{color.RGBA{0x08, 0x1d, 0x58, 0xff}, color.RGBA{0x22, 0x5e, 0xa8, 0xff},
		color.RGBA{0x41, 0xb6, 0xc4, 0xff}, color.RGBA{0xc7, 0xe9, 0xb4, 0xff}}
	cellEdge     = color.Gray{Y: 0x60}
	segmentWidth = vg.Points(2.2)
)

// Validate reports a map that cannot be drawn: an empty grid, no cells, a
// cell off the grid or twice on it, a value that is not a finite
// non-negative number, a segment off the grid (beyond half a cell) or of
// no length.
func (m Map) Validate() error {
	if m.Cols < 1 || m.Rows < 1 {
		return fmt.Errorf("plots: map of %dx%d cells: want at least 1x1", m.Cols, m.Rows)
	}
	if len(m.Cells) == 0 {
		return errors.New("plots: map has no cells")
	}
	seen := map[[2]int]bool{}
	for i, c := range m.Cells {
		if c.Col < 0 || c.Col >= m.Cols || c.Row < 0 || c.Row >= m.Rows {
			return fmt.Errorf("plots: cell %d at (%d,%d) is off the %dx%d grid", i, c.Col, c.Row, m.Cols, m.Rows)
		}
		if seen[[2]int{c.Col, c.Row}] {
			return fmt.Errorf("plots: cell %d at (%d,%d): a second cell there", i, c.Col, c.Row)
		}
		seen[[2]int{c.Col, c.Row}] = true
		if err := checkMapValue(c.Value); err != nil {
			return fmt.Errorf("plots: cell %d at (%d,%d): value %w", i, c.Col, c.Row, err)
		}
	}
	for i, s := range m.Segments {
		for _, v := range []float64{s.X0, s.Y0, s.X1, s.Y1} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("plots: segment %d: coordinate %v", i, v)
			}
		}
		if s.X0 < -0.5 || s.X1 < -0.5 || s.Y0 < -0.5 || s.Y1 < -0.5 ||
			s.X0 > float64(m.Cols)-0.5 || s.X1 > float64(m.Cols)-0.5 || s.Y0 > float64(m.Rows)-0.5 || s.Y1 > float64(m.Rows)-0.5 {
			return fmt.Errorf("plots: segment %d from (%g,%g) to (%g,%g) is off the %dx%d grid", i, s.X0, s.Y0, s.X1, s.Y1, m.Cols, m.Rows)
		}
		if s.X0 == s.X1 && s.Y0 == s.Y1 {
			return fmt.Errorf("plots: segment %d at (%g,%g) has no length", i, s.X0, s.Y0)
		}
		if err := checkMapValue(s.Value); err != nil {
			return fmt.Errorf("plots: segment %d: value %w", i, err)
		}
	}
	return nil
}

func checkMapValue(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("%v is not a finite non-negative number", v)
	}
	return nil
}

// CheckLabels reports a label that names no unit, as Chart.CheckLabels
// does; the segments' label only when there are segments.
func (m Map) CheckLabels() error {
	labels := []struct{ what, label string }{{"x axis", m.XLabel}, {"y axis", m.YLabel}, {"cells' colour bar", m.CellLabel}}
	if len(m.Segments) > 0 {
		labels = append(labels, struct{ what, label string }{"segments' colour bar", m.SegmentLabel})
	}
	for _, l := range labels {
		if unitOf(l.label) == "" {
			return fmt.Errorf("plots: map's %s label %q names no unit", l.what, l.label)
		}
	}
	return nil
}

// MapLayout is where a drawn map's parts lie, in points from the image's
// bottom left corner: the grid's data area and each colour bar's box
// (its bar, ticks and label).
type MapLayout struct {
	Image, Data vg.Rectangle
	Bars        []vg.Rectangle
}

// Check reports a layout a reader could not use: a part outside the image
// or over another.
func (l MapLayout) Check() error {
	parts := append([]vg.Rectangle{l.Data}, l.Bars...)
	for i, r := range parts {
		if !inside(r, l.Image) {
			return fmt.Errorf("plots: map part %d %v outside the image %v", i, r, l.Image)
		}
		for j, q := range parts[:i] {
			if overlap(r, q) {
				return fmt.Errorf("plots: map parts %d %v and %d %v overlap", j, q, i, r)
			}
		}
	}
	return nil
}

// mapLayout is a map measured for drawing.
type mapLayout struct {
	m           Map
	grid        *plot.Plot
	bars        []*plot.Plot
	cells, segs gpalette.ColorMap
	gridSize    vg.Point   // the grid plot's canvas
	xr, yr      [2]float64 // the axes' ranges, in grid units
	pitch       vg.Length
	title       string
	titleH      vg.Length
	size        vg.Point
}

// Layout draws the map as Save would (into memory) and reports where its
// parts went.
func (m Map) Layout() (MapLayout, error) {
	if err := m.Validate(); err != nil {
		return MapLayout{}, err
	}
	l, err := m.layout()
	if err != nil {
		return MapLayout{}, err
	}
	return l.draw(vgimg.New(l.size.X, l.size.Y))
}

// Encode draws the map in the format path's extension names (.png, .svg,
// .pdf), for a caller that writes the bytes itself.
func (m Map) Encode(path string) (io.WriterTo, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := CheckExt(path); err != nil {
		return nil, err
	}
	l, err := m.layout()
	if err != nil {
		return nil, fmt.Errorf("plots: %s: %w", path, err)
	}
	cv := formats[strings.ToLower(filepath.Ext(path))](l.size.X, l.size.Y)
	if _, err := l.draw(cv); err != nil {
		return nil, fmt.Errorf("plots: %s: %w", path, err)
	}
	return cv, nil
}

// Save writes the map to path, whole or not at all (WriteFileAtomic),
// in the format its extension names; Validate is called first.
func (m Map) Save(path string) error {
	w, err := m.Encode(path)
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, w)
}

// colourMap is a reversed luminance map over controls (light at 0),
// from 0 to max (1 when every value is 0: a scale needs a range).
func colourMap(controls []color.Color, max float64) (gpalette.ColorMap, error) {
	cm, err := moreland.NewLuminance(controls)
	if err != nil {
		return nil, err
	}
	if !(max > 0) {
		max = 1
	}
	cm.SetMin(0)
	cm.SetMax(max)
	return gpalette.Reverse(cm), nil
}

// layout sizes the map: the grid at a pitch that fits mapSideIn, the
// colour bars under it, the title over it.
func (m Map) layout() (mapLayout, error) {
	l := mapLayout{m: m}
	cmax, smax := m.CellMax, m.SegmentMax
	for _, c := range m.Cells {
		cmax = math.Max(cmax, c.Value)
	}
	for _, s := range m.Segments {
		smax = math.Max(smax, s.Value)
	}
	var err error
	if l.cells, err = colourMap(cellColours, cmax); err != nil {
		return l, err
	}
	if l.segs, err = colourMap(segmentColours, smax); err != nil {
		return l, err
	}
	n := max(m.Cols, m.Rows)
	l.pitch = vg.Length(min(maxPitchIn, max(mapSideIn/float64(n), minPitchIn))) * vg.Inch

	g := plot.New()
	g.X.Label.Text, g.Y.Label.Text = m.XLabel, m.YLabel
	// A little room past the outer cells' half-pitch, so that a segment
	// reaching the grid's edge stops short of the axis.
	l.xr, l.yr = l.span(m.Cols), l.span(m.Rows)
	g.X.Min, g.X.Max = l.xr[0], l.xr[1]
	g.Y.Min, g.Y.Max = l.yr[0], l.yr[1]
	g.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}}
	g.X.Tick.Marker, g.Y.Tick.Marker = indexTicks(m.Cols), indexTicks(m.Rows)
	// The axes sit on the grid's edge: no padding between them and the
	// outer cells' half-pitch.
	g.X.Padding, g.Y.Padding = 0, 0
	g.Add(&mapPlotter{l: &l})
	l.grid = g
	// The data area is the grid at its pitch: the axes' room, measured on
	// a trial canvas, added around it.
	trial := draw.New(vgimg.New(20*vg.Inch, 20*vg.Inch))
	dc := g.DataCanvas(trial)
	padX := dc.Min.X - trial.Min.X + trial.Max.X - dc.Max.X
	padY := dc.Min.Y - trial.Min.Y + trial.Max.Y - dc.Max.Y
	l.gridSize = vg.Point{X: vg.Length(l.xr[1]-l.xr[0])*l.pitch + padX + margin, Y: vg.Length(l.yr[1]-l.yr[0])*l.pitch + padY}

	width := max(l.gridSize.X, mapWidthIn*vg.Inch)
	bar := func(cm gpalette.ColorMap, label string) *plot.Plot {
		p := plot.New()
		p.HideY()
		p.X.Label.Text = label
		p.X.Tick.Marker = niceTicks{steps: 6}
		p.X.Padding = 0
		p.Add(&plotter.ColorBar{ColorMap: cm})
		return p
	}
	l.bars = []*plot.Plot{bar(l.cells, m.CellLabel)}
	if len(m.Segments) > 0 {
		l.bars = append(l.bars, bar(l.segs, m.SegmentLabel))
	}
	sty := titleStyle()
	if m.Title != "" {
		l.title = wrap(sty, m.Title, width-2*margin)
		l.titleH = sty.Height(l.title) + titlePad
	}
	l.size = vg.Point{X: width, Y: l.titleH + l.gridSize.Y + legendGap + vg.Length(len(l.bars))*barHeightIn*vg.Inch + margin}
	return l, nil
}

// indexTicks label a grid's indices: every one on a small grid, every
// second, fifth or tenth on a larger one.
func indexTicks(n int) plot.ConstantTicks {
	step := 1
	for _, s := range []int{2, 5, 10, 20, 50} {
		if n <= 16*step {
			break
		}
		step = s
	}
	var ts plot.ConstantTicks
	for i := 0; i < n; i += step {
		ts = append(ts, plot.Tick{Value: float64(i), Label: strconv.Itoa(i)})
	}
	return ts
}

// draw turns gonum/plot panics into errors, as Chart's does.
func (l mapLayout) draw(cv vg.CanvasSizer) (lay MapLayout, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing map: %v", r)
		}
	}()
	dc := draw.New(cv)
	lay.Image = dc.Rectangle
	top := dc.Max.Y
	if l.title != "" {
		dc.FillText(titleStyle(), vg.Point{X: dc.Center().X, Y: top - titlePad/2}, l.title)
		top -= l.titleH
	}
	x0 := dc.Min.X + (dc.Size().X-l.gridSize.X)/2
	gc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x0, Y: top - l.gridSize.Y}, Max: vg.Point{X: x0 + l.gridSize.X - margin, Y: top}}}
	lay.Data = l.grid.DataCanvas(gc).Rectangle
	l.grid.Draw(gc)
	top -= l.gridSize.Y + legendGap
	// The bars are as wide as the grid's data area and under it, so that
	// they read as its scales; a small grid's would be shorter than its
	// label: those are 70% of the image, centred.
	bw, bx := lay.Data.Size().X, lay.Data.Min.X
	if bw < dc.Size().X*0.7 {
		bw = dc.Size().X * 0.7
		bx = dc.Min.X + (dc.Size().X-bw)/2
	}
	for _, b := range l.bars {
		bc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: bx, Y: top - barHeightIn*vg.Inch}, Max: vg.Point{X: bx + bw, Y: top - vg.Points(4)}}}
		b.Draw(bc)
		lay.Bars = append(lay.Bars, bc.Rectangle)
		top -= barHeightIn * vg.Inch
	}
	return lay, nil
}

// mapPlotter draws the cells and the segments into the grid's data area.
type mapPlotter struct{ l *mapLayout }

// Plot implements plot.Plotter.
func (mp *mapPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	l := mp.l
	tx, ty := p.Transforms(&c)
	half := vg.Length(MapCellSide/2) * l.pitch
	sty := cellTextStyle(l.pitch)
	for _, cell := range l.m.Cells {
		col := mustColour(l.cells, cell.Value)
		x, y := tx(float64(cell.Col)), ty(float64(cell.Row))
		r := vg.Rectangle{Min: vg.Point{X: x - half, Y: y - half}, Max: vg.Point{X: x + half, Y: y + half}}
		c.SetColor(col)
		c.Fill(r.Path())
		c.StrokeLines(draw.LineStyle{Color: cellEdge, Width: vg.Points(0.5)}, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min})
		// The value in the cell, where it fits: the colour says the
		// scale, the number what it is.
		if t := mapValueText(cell.Value); sty.Font.Size >= minValuePoints && sty.Width(t) <= 2*half*0.92 && sty.Height(t) <= 2*half*0.8 {
			ts := sty
			ts.Color = color.Black
			if luminance(col) < 0.45 {
				ts.Color = color.White
			}
			c.FillText(ts, vg.Point{X: x, Y: y}, t)
		}
	}
	for _, s := range l.m.Segments {
		arrow(c, mustColour(l.segs, s.Value), vg.Point{X: tx(s.X0), Y: ty(s.Y0)}, vg.Point{X: tx(s.X1), Y: ty(s.Y1)})
	}
}

// DataRange implements plot.DataRanger: the grid, whatever the values.
func (mp *mapPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	return mp.l.xr[0], mp.l.xr[1], mp.l.yr[0], mp.l.yr[1]
}

// span is an axis's range for n cells at the layout's pitch: the grid
// and edgePad each side, widened evenly to minSideIn.
func (l *mapLayout) span(n int) [2]float64 {
	w := float64(n) + 2*edgePad
	extra := max(0, minSideIn*float64(vg.Inch/l.pitch)-w) / 2
	return [2]float64{-0.5 - edgePad - extra, float64(n) - 0.5 + edgePad + extra}
}

// mustColour is v's colour on cm; Validate has checked v is within the
// scale (0 to the largest value), so an error is a bug and panics, which
// draw turns into an error.
func mustColour(cm gpalette.ColorMap, v float64) color.Color {
	col, err := cm.At(v)
	if err != nil {
		panic(err)
	}
	return col
}

// arrow draws a line from a to b with a filled head at b.
func arrow(c draw.Canvas, col color.Color, a, b vg.Point) {
	d := b.Sub(a)
	n := vg.Length(math.Hypot(float64(d.X), float64(d.Y)))
	if n == 0 {
		return
	}
	u := d.Scale(1 / n)
	head := min(vg.Points(6), n*0.45)
	w := vg.Points(3.2)
	if head < vg.Points(6) {
		w = head * 0.55
	}
	base := b.Sub(u.Scale(head))
	c.StrokeLines(draw.LineStyle{Color: col, Width: segmentWidth}, []vg.Point{a, b.Sub(u.Scale(head * 0.6))})
	perp := vg.Point{X: -u.Y, Y: u.X}
	var path vg.Path
	path.Move(b)
	path.Line(base.Add(perp.Scale(w)))
	path.Line(base.Sub(perp.Scale(w)))
	path.Close()
	c.SetColor(col)
	c.Fill(path)
}

// minValuePoints is the smallest font a cell's value is printed in:
// smaller cannot be read, and the colour alone tells the value.
const minValuePoints = vg.Length(6)

// cellTextStyle is the values' font: a size the pitch can hold.
func cellTextStyle(pitch vg.Length) draw.TextStyle {
	sty := legendStyle()
	sty.Font.Size = min(vg.Points(10), pitch*0.2)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	return sty
}

// mapValueText prints a cell's value with three significant digits at
// most and no exponent.
func mapValueText(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// luminance is col's relative luminance (0 black, 1 white), to pick the
// text colour that reads on it.
func luminance(col color.Color) float64 {
	r, g, b, _ := col.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}
