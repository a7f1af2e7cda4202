package plots

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot/vg"
)

// CheckLabels reports an axis label that does not name its unit: every
// label must hold a non-empty parenthesised part, "(cycles)", "(bytes,
// log scale)", or "(ratio)" for a unitless ratio. Chart tests call it so
// that a chart cannot ship with a bare axis.
func (c Chart) CheckLabels() error {
	for _, a := range []struct{ axis, label string }{{"x", c.XLabel}, {"y", c.YLabel}} {
		if unitOf(a.label) == "" {
			return fmt.Errorf("plots: %s axis label %q names no unit (want e.g. \"time (cycles)\" or \"... (ratio)\")", a.axis, a.label)
		}
	}
	return nil
}

// unitOf is the first non-empty parenthesised part of a label, "" if none.
func unitOf(label string) string {
	for rest := label; ; {
		i := strings.IndexByte(rest, '(')
		if i < 0 {
			return ""
		}
		j := strings.IndexByte(rest[i:], ')')
		if j < 0 {
			return ""
		}
		if u := strings.TrimSpace(rest[i+1 : i+j]); u != "" {
			return u
		}
		rest = rest[i+j+1:]
	}
}

// XTickValues are the values the x axis is ticked and labelled at when
// the chart is drawn: XTicks, or the distinct x values run when there are
// few enough; nil when the axis chooses its own ticks. Tests compare them
// with the values a run used.
func (c Chart) XTickValues() []float64 { return c.xTicks() }

// Check reports a layout a reader could not use: a legend outside the
// image or over a data area, a data area outside the image or over
// another, or a panel of more than maxPerPanel measured series.
func (l Layout) Check() error {
	if !inside(l.Legend, l.Image) || l.Legend.Size().X <= 0 || l.Legend.Size().Y <= 0 {
		return fmt.Errorf("plots: legend %v not inside the image %v", l.Legend, l.Image)
	}
	for i, d := range l.Data {
		if overlap(l.Legend, d) {
			return fmt.Errorf("plots: legend %v over data area %d %v", l.Legend, i, d)
		}
		if !inside(d, l.Image) {
			return fmt.Errorf("plots: data area %d %v outside the image %v", i, d, l.Image)
		}
		for j, e := range l.Data[:i] {
			if overlap(d, e) {
				return fmt.Errorf("plots: data areas %d %v and %d %v overlap", j, e, i, d)
			}
		}
	}
	for i, m := range l.Measured {
		if m > maxPerPanel {
			return fmt.Errorf("plots: panel %d (%q) holds %d measured series, more than %d", i, l.Titles[i], m, maxPerPanel)
		}
	}
	return nil
}

func inside(r, in vg.Rectangle) bool {
	return r.Min.X >= in.Min.X && r.Min.Y >= in.Min.Y && r.Max.X <= in.Max.X && r.Max.Y <= in.Max.Y
}

func overlap(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}
