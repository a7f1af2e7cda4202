package sweep

import (
	"fmt"
	"math"
	"nocsim/plots"
	"nocsim/scenarios"
	"slices"
	"strconv"
	"strings"
)

// axisUnit is the unit of a sweep axis, "section.key", as the key
// registries give it; "value" for a key they do not list.
func axisUnit(axis string) string {
	section, key, _ := strings.Cut(axis, ".")
	keys := scenarios.WorkloadKeys
	for _, s := range scenarios.Sections() {
		if s.Name == section {
			keys = s.Keys
		}
	}
	for _, k := range keys {
		if k.Name == key && k.Unit != "" {
			return k.Unit
		}
	}
	return "value"
}

// Chart draws the metric's mean against the first numeric axis, one
// line per setting of the other axes and result row, with the 95%
// interval as error bars and saturated settings marked. ok is false when
// no axis is numeric. base, the sweep's scenario (nil if unknown), gives
// the title the machine's parts that no axis varies.
func Chart(pts []Point, name string, base *scenarios.Scenario) (c plots.Chart, ok bool) {
	axes, metric := sweepAxes(pts), sweepMetric(pts)
	x := ""
	for _, a := range axes {
		numeric := true
		for _, p := range pts {
			if _, err := strconv.ParseFloat(p.Settings[a], 64); err != nil {
				numeric = false
			}
		}
		if numeric {
			x = a
			break
		}
	}
	if x == "" {
		return c, false
	}
	title := fmt.Sprintf("sweep %s: %s (mean, 95%% interval)", name, metric)
	if m := base.FixedMachineText(axes); m != "" {
		title += "; " + m
	}
	unit := axisUnit(x)
	c = plots.Chart{Title: title, XLabel: fmt.Sprintf("%s (%s)", x, unit), YLabel: metricUnit(metric),
		MarkLegend: "saturated"}
	// Rank counts and sizes, the values of doubling sweeps, go on a log
	// axis (ticked at the values run), as on every other chart.
	if unit == "ranks" || strings.HasPrefix(unit, "bytes") {
		c.LogX = !slices.ContainsFunc(pts, func(p Point) bool { v, _ := strconv.ParseFloat(p.Settings[x], 64); return v <= 0 })
		if c.LogX {
			c.XLabel = fmt.Sprintf("%s (%s, log scale)", x, unit)
		}
	}
	idx := map[string]int{}
	for _, st := range summarise(pts) {
		if st.row < 0 || st.status == "failed" || math.IsNaN(st.mean) {
			continue
		}
		var parts []string
		for _, a := range axes {
			if a != x {
				parts = append(parts, a+"="+st.settings[a])
			}
		}
		if st.label != "" {
			parts = append(parts, st.label)
		}
		key := strings.Join(parts, " ")
		if key == "" {
			key = metric
		}
		i, seen := idx[key]
		if !seen {
			i = len(c.Series)
			idx[key] = i
			c.Series = append(c.Series, plots.Series{Name: key})
		}
		xv, _ := strconv.ParseFloat(st.settings[x], 64)
		s := &c.Series[i]
		s.X = append(s.X, xv)
		s.Y = append(s.Y, st.mean)
		s.YErr = append(s.YErr, st.ci95)
		s.Marks = append(s.Marks, st.status == "saturated")
	}
	return c, len(c.Series) > 0
}

// metricUnit labels the metric's axis with its unit.
func metricUnit(metric string) string {
	switch metric {
	case "avg_packet_latency_cycles":
		return "average packet latency (cycles)"
	case "one_way_cycles":
		return "one-way time (cycles)"
	case "cycles":
		return "time (cycles)" // not "cycles (cycles)"
	}
	return metric + " (cycles)"
}
