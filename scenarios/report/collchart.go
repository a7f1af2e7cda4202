package report

import (
	"fmt"
	"slices"

	"nocsim/plots"
)

// collMetric is what a collective's chart draws of each run: its
// simulated value and the model's prediction (0: none), on an axis named
// label; model names the prediction in the legend.
// what, when set, names the quantity in the title ("energy per call"),
// which then names the energy model the runs were priced with too.
type collMetric struct {
	label, model, what string
	sim, pred          func(CollRow) float64
}

// CollChart draws completion time against size (log-log) or against P,
// one line per algorithm, in a panel per P or size (the other dimension)
// when the rows hold several: an algorithm keeps its colour across the
// panels. The title names the machine (MachineText) and, when the
// model's predictions are drawn, params (the parameters file's name).
func CollChart(rows []CollRow, x, machine, params string) plots.Chart {
	return collChart(rows, x, machine, params, collMetric{label: "completion time (cycles, last rank)", model: "LogGP",
		sim: func(r CollRow) float64 { return float64(r.Cycles) }, pred: func(r CollRow) float64 { return r.Predicted }})
}

// CollEnergyChart draws each run's energy (the whole chip over the call,
// nJ) as CollChart draws its time, with the fitted energy model's
// prediction dashed beside it when the rows hold one.
func CollEnergyChart(rows []CollRow, x, machine, params string) plots.Chart {
	return collChart(rows, x, machine, params, collMetric{label: "energy per call (nJ, whole chip)", model: "energy model", what: "energy per call",
		sim: func(r CollRow) float64 { return energyPJ(r) / 1e3 }, pred: func(r CollRow) float64 { return r.PredictedEnergyPJ / 1e3 }})
}

// CollEDPChart draws each run's energy-delay product (nJ x cycles), the
// model's (its energy x its time) dashed beside it.
func CollEDPChart(rows []CollRow, x, machine, params string) plots.Chart {
	return collChart(rows, x, machine, params, collMetric{label: "energy-delay product (nJ x cycles)", model: "fitted models", what: "energy-delay product",
		sim: func(r CollRow) float64 { return r.EDP / 1e3 }, pred: func(r CollRow) float64 { return r.PredictedEDP / 1e3 }})
}

func energyPJ(r CollRow) float64 {
	if r.Energy == nil {
		return 0
	}
	return r.Energy.TotalPJ
}

func collChart(rows []CollRow, x, machine, params string, mt collMetric) plots.Chart {
	c := plots.Chart{Title: fmt.Sprintf("%s: %s", rows[0].Op, machine), YLabel: mt.label, LogY: true}
	if mt.what != "" {
		c.Title = fmt.Sprintf("%s %s: %s", rows[0].Op, mt.what, machine)
	}
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
	if mt.what != "" {
		c.Title += "; " + collEnergyText(rows)
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
		if xv <= 0 || mt.sim(r) <= 0 {
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
		c.Series[i].Y = append(c.Series[i].Y, mt.sim(r))
	}
	// With a model, each simulated line gets its prediction beside it.
	if slices.ContainsFunc(rows, func(r CollRow) bool { return mt.pred(r) > 0 }) {
		var out []plots.Series
		for _, s := range c.Series {
			m := plots.Series{Name: s.Name + " (" + mt.model + ")", Dashed: true, Companion: true, Panel: s.Panel}
			for _, r := range rows {
				xv := xOf(r)
				if r.Algorithm == s.Name && (s.Panel == "" || other(r) == s.Panel) && slices.Contains(s.X, xv) && mt.pred(r) > 0 {
					m.X = append(m.X, xv)
					m.Y = append(m.Y, mt.pred(r))
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

// collEnergyText names the energy model the rows were priced with, as
// EnergyText does noc rows', for an energy chart's title.
func collEnergyText(rows []CollRow) string {
	for _, r := range rows {
		if e := r.Energy; e != nil {
			return ModelText(e.Model, e.Tech, e.FlitBits)
		}
	}
	return ""
}
