package report

import (
	"fmt"
	"slices"

	"nocsim/plots"
)

// EnergyText names the energy model rows were priced with, for a chart's
// title: "dsent model, 45nm, 32-bit flits"; "" when no row has energy.
func EnergyText(rows []NocRow) string {
	for _, r := range rows {
		if e := r.Energy; e != nil {
			return ModelText(e.Model, e.Tech, e.FlitBits)
		}
	}
	return ""
}

// ModelText names an energy model, its technology node and flit width.
// Noxim's breakdown says "unstated" for the node it does not name: the
// title says what is unstated.
func ModelText(model, tech string, flitBits int) string {
	if tech == "unstated" {
		tech = "node unstated"
	}
	return fmt.Sprintf("%s model, %s, %d-bit flits", model, tech, flitBits)
}

// StaticMW is the power of a point's clock and leakage: what the routers
// draw whatever they carry.
func (e *Energy) StaticMW() float64 {
	s := 0.0
	for _, c := range e.Components {
		if c.Kind == "clock" || c.Kind == "leakage" {
			s += c.PowerMW
		}
	}
	return s
}

// energyTitle is an energy chart's title: what ran and how it was priced.
func energyTitle(what string, rows []NocRow, machine string) string {
	return fmt.Sprintf("%s: %s; %s", what, machine, EnergyText(rows))
}

// byTraffic groups rows by pattern, in the order the patterns first
// appear.
func byTraffic(rows []NocRow) (order []string, by map[string][]NocRow) {
	by = map[string][]NocRow{}
	for _, r := range rows {
		if _, ok := by[r.Traffic]; !ok {
			order = append(order, r.Traffic)
		}
		by[r.Traffic] = append(by[r.Traffic], r)
	}
	return order, by
}

// NocPowerChart draws each point's average power over its measurement
// window against offered load, one line per traffic pattern, with the
// part its clock and leakage draw (the static power) dashed in the
// pattern's colour: the gap between the two is what the traffic costs.
// The static power is the routers' whatever they carry, so the patterns'
// dashed lines coincide when they ran the same loads: then it is drawn
// once, grey, for every pattern, rather than one line hidden under
// another. Saturated points are marked but kept on the line: their power
// is measured like any other's. Rows without energy are left out.
func NocPowerChart(rows []NocRow, machine string) plots.Chart {
	c := plots.Chart{Title: energyTitle("power", rows, machine), XLabel: "offered load (flits/node/cycle)",
		YLabel: "average power (mW)", MarkLegend: "saturated"}
	order, by := byTraffic(rows)
	var totals, statics []plots.Series
	for _, t := range order {
		s := plots.Series{Name: t + " total", JoinMarked: true}
		z := plots.Series{Name: t + " leakage + clock", Dashed: true, Companion: true}
		for _, r := range by[t] {
			if r.Energy == nil {
				continue
			}
			s.X, s.Y, s.Marks = append(s.X, r.OfferedRate), append(s.Y, r.Energy.PowerMW), append(s.Marks, r.Saturated)
			z.X, z.Y = append(z.X, r.OfferedRate), append(z.Y, r.Energy.StaticMW())
		}
		if len(s.X) > 0 {
			totals, statics = append(totals, s), append(statics, z)
		}
	}
	same := len(statics) > 1
	for _, z := range statics[min(1, len(statics)):] {
		same = same && slices.Equal(z.X, statics[0].X) && slices.Equal(z.Y, statics[0].Y)
	}
	for i, s := range totals {
		c.Series = append(c.Series, s)
		if !same {
			c.Series = append(c.Series, statics[i])
		}
	}
	if same {
		z := statics[0]
		z.Name, z.Companion, z.Reference = "leakage + clock (every pattern)", false, true
		c.Series = append(c.Series, z)
	}
	return c
}

// NocPerFlitChart draws each point's energy per flit delivered in its
// window against offered load, one line per traffic pattern, with the
// clock and leakage share of it dashed: at light load a flit pays mostly
// for the time the network waits. Points that delivered nothing have no
// energy per flit and are left out.
func NocPerFlitChart(rows []NocRow, machine string) plots.Chart {
	c := plots.Chart{Title: energyTitle("energy per delivered flit", rows, machine), XLabel: "offered load (flits/node/cycle)",
		YLabel: "energy per delivered flit (pJ)", MarkLegend: "saturated"}
	order, by := byTraffic(rows)
	for _, t := range order {
		s := plots.Series{Name: t + " total", JoinMarked: true}
		z := plots.Series{Name: t + " leakage + clock", Dashed: true, Companion: true}
		for _, r := range by[t] {
			e := r.Energy
			if e == nil || !(e.PerFlitPJ > 0) || !(e.TotalPJ > 0) {
				continue
			}
			s.X, s.Y, s.Marks = append(s.X, r.OfferedRate), append(s.Y, e.PerFlitPJ), append(s.Marks, r.Saturated)
			z.X, z.Y = append(z.X, r.OfferedRate), append(z.Y, e.PerFlitPJ*(e.ClockPJ+e.LeakagePJ)/e.TotalPJ)
		}
		if len(s.X) > 0 {
			c.Series = append(c.Series, s, z)
		}
	}
	return c
}
