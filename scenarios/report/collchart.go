package report

import (
	"fmt"
	"slices"

	"nocsim/plots"
)

// CollChart draws completion time against size (log-log) or against P,
// one line per algorithm, in a panel per P or size (the other dimension)
// when the rows hold several: an algorithm keeps its colour across the
// panels. The title names the machine (MachineText) and, when the
// model's predictions are drawn, params (the parameters file's name).
func CollChart(rows []CollRow, x, machine, params string) plots.Chart {
	c := plots.Chart{Title: fmt.Sprintf("%s: %s", rows[0].Op, machine), YLabel: "completion time (cycles, last rank)", LogY: true}
	if x == "size" {
		c.XLabel, c.LogX = "message size (bytes per rank)", true
	} else {
		c.XLabel, c.LogX = "ranks (P, log scale)", true
	}
	// other is the dimension not on the x axis, as a panel names it.
	other := func(r CollRow) string { return fmt.Sprintf("P=%d", r.Procs) }
	if x == "procs" {
		other = func(r CollRow) string { return fmt.Sprintf("%d-byte messages", r.SizeBytes) }
	}
	var panels []string
	for _, r := range rows {
		if !slices.Contains(panels, other(r)) {
			panels = append(panels, other(r))
		}
	}
	if len(panels) == 1 {
		c.Title += ", " + panels[0]
	}
	type key struct{ alg, panel string }
	xOf := func(r CollRow) float64 {
		if x == "procs" {
			return float64(r.Procs)
		}
		return float64(r.SizeBytes)
	}
	idx := map[key]int{}
	for _, r := range rows {
		xv := xOf(r)
		if xv <= 0 || r.Cycles <= 0 {
			continue // nothing to place on a log axis
		}
		k := key{r.Algorithm, other(r)}
		i, ok := idx[k]
		if !ok {
			i = len(c.Series)
			idx[k] = i
			s := plots.Series{Name: r.Algorithm}
			if len(panels) > 1 {
				s.Panel = k.panel
			}
			c.Series = append(c.Series, s)
		}
		c.Series[i].X = append(c.Series[i].X, xv)
		c.Series[i].Y = append(c.Series[i].Y, float64(r.Cycles))
	}
	// With a model, each simulated line gets its prediction beside it.
	if len(rows) > 0 && rows[0].Predicted > 0 {
		var out []plots.Series
		for _, s := range c.Series {
			m := plots.Series{Name: s.Name + " (LogGP)", Dashed: true, Companion: true, Panel: s.Panel}
			for _, r := range rows {
				xv := xOf(r)
				if r.Algorithm == s.Name && (s.Panel == "" || other(r) == s.Panel) && slices.Contains(s.X, xv) && r.Predicted > 0 {
					m.X = append(m.X, xv)
					m.Y = append(m.Y, r.Predicted)
				}
			}
			out = append(out, s)
			if len(m.X) > 0 {
				out = append(out, m)
			}
		}
		c.Series = out
		c.Title = withParams(c.Title, c.Series, params)
	}
	return c
}

// withParams adds the parameters' name to a title when series holds a
// model line drawn from them (a dashed companion).
func withParams(title string, series []plots.Series, params string) string {
	if params == "" || !slices.ContainsFunc(series, func(s plots.Series) bool { return s.Companion && s.Dashed }) {
		return title
	}
	return title + ", params " + params
}
