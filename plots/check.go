package plots

import (
	"fmt"
	"strings"
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
