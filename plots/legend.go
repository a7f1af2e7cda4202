package plots

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The legend goes under the plot, in as many columns as fit its width,
// row after row: inside the image and over no data at any series count
// (a column beside the plot ran off the bottom of the image past about
// twenty entries, and an entry wider than the plot made the image twice
// as wide as its data).

// legendEntry is one line of the legend: its text (wrapped to the
// column) and the series drawn as its thumbnail, -1 for the marked-point
// entry.
type legendEntry struct {
	text   string
	series int
}

// legendGrid is the legend laid out: entries row after row in cols
// columns of colW each.
type legendGrid struct {
	entries []legendEntry
	cols    int
	colW    vg.Length
	rowH    []vg.Length
	height  vg.Length
}

var (
	thumbW    = vg.Points(22)
	thumbGap  = vg.Points(4)  // thumbnail to text
	columnGap = vg.Points(14) // between columns
	rowGap    = vg.Points(2)
)

func legendStyle() text.Style {
	sty := plot.NewLegend().TextStyle
	sty.Font.Size = vg.Points(11)
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
	return sty
}

// legendEntries are the legend's lines: one per series label, in the
// order they first appear (a name drawn in several panels once), and the
// marked points' when any point is marked.
func (c Chart) legendEntries() []legendEntry {
	var out []legendEntry
	seen := map[string]bool{}
	marked := false
	for i, s := range c.Series {
		for j := range s.X {
			marked = marked || s.marked(j)
		}
		if lb := s.label(); !seen[lb] {
			seen[lb] = true
			out = append(out, legendEntry{lb, i})
		}
	}
	if c.MarkLegend != "" && marked {
		out = append(out, legendEntry{c.MarkLegend, -1})
	}
	return out
}

// layoutLegend fits the entries into width: as many columns as the
// widest entry allows, one when even that one is wider, its entries then
// wrapped at spaces.
func layoutLegend(c Chart, es []legendEntry, width vg.Length) legendGrid {
	sty := legendStyle()
	var textW vg.Length
	for _, e := range es {
		textW = max(textW, sty.Width(e.text))
	}
	g := legendGrid{entries: es}
	if len(es) == 0 {
		return g
	}
	entryW := thumbW + thumbGap + textW
	g.cols = max(1, min(len(es), int((width+columnGap)/(entryW+columnGap))))
	if g.cols > 2 && g.cols%2 == 1 && pairs(c, es) {
		// An even count keeps each model line's entry beside its
		// measurement's, row after row.
		g.cols--
	}
	g.colW = min(entryW, (width+columnGap)/vg.Length(g.cols)-columnGap)
	for i := range g.entries {
		g.entries[i].text = wrap(sty, g.entries[i].text, g.colW-thumbW-thumbGap)
	}
	for r := 0; r*g.cols < len(es); r++ {
		var h vg.Length
		for _, e := range g.entries[r*g.cols : min(len(es), (r+1)*g.cols)] {
			h = max(h, sty.Height(e.text))
		}
		g.rowH = append(g.rowH, h)
		g.height += h + rowGap
	}
	return g
}

// pairs is whether the entries come in pairs, a measurement and then its
// model line, up to the guides and the marked points' entry at the end.
func pairs(c Chart, es []legendEntry) bool {
	k := 0
	for _, e := range es {
		if e.series < 0 || c.Series[e.series].Reference {
			continue
		}
		if c.Series[e.series].Companion != (k%2 == 1) {
			return false
		}
		k++
	}
	return k >= 2 && k%2 == 0
}

// draw draws the legend centred under the plot, its first row's top at
// top, and returns the box its thumbnails and text fill.
func (g legendGrid) draw(dc draw.Canvas, c Chart, top vg.Length) (vg.Rectangle, error) {
	if len(g.entries) == 0 {
		return vg.Rectangle{}, nil
	}
	sty := legendStyle()
	cis := c.colourIndices()
	used := vg.Length(g.cols)*(g.colW+columnGap) - columnGap
	left := dc.Min.X + (dc.Size().X-used)/2
	box := vg.Rectangle{Min: vg.Point{X: dc.Max.X, Y: dc.Max.Y}, Max: vg.Point{X: dc.Min.X, Y: dc.Min.Y}}
	lineH := sty.FontExtents().Height
	y := top
	for k, e := range g.entries {
		r, col := k/g.cols, k%g.cols
		if col == 0 && r > 0 {
			y -= g.rowH[r-1] + rowGap
		}
		x := left + vg.Length(col)*(g.colW+columnGap)
		icon := &draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: y - lineH}, Max: vg.Point{X: x + thumbW, Y: y}}}
		if e.series < 0 {
			glyphThumb{Color: color.Black, Radius: markRadius, Shape: markGlyph}.Thumbnail(icon)
		} else {
			_, _, thumbs, err := c.plotters(e.series, cis[e.series])
			if err != nil {
				return box, err
			}
			for _, t := range thumbs {
				t.Thumbnail(icon)
			}
		}
		dc.FillText(sty, vg.Point{X: x + thumbW + thumbGap, Y: y}, e.text)
		box.Min.X, box.Max.X = min(box.Min.X, x), max(box.Max.X, x+thumbW+thumbGap+sty.Width(e.text))
		box.Min.Y, box.Max.Y = min(box.Min.Y, y-max(lineH, sty.Height(e.text))), max(box.Max.Y, y)
	}
	return box, nil
}
