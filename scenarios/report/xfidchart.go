package report

import (
	"fmt"
	"strings"

	"nocsim/plots"
)

// AppTierChart draws, for the MPI runs with a tier prediction, the simulated
// time against P per size (and method), each with the LogGOPS tier's
// prediction of its recorded schedule dashed beside it. Empty (no series)
// when no run has a prediction.
func AppTierChart(rows []AppRow, machine, params string) plots.Chart {
	c := plots.Chart{Title: fmt.Sprintf("%s: simulated and LogGOPS tier (%s, params %s)", appName(rows), machine, params),
		XLabel: "ranks (P, log scale)", YLabel: "time (cycles, log scale)", LogX: true, LogY: true}
	type key struct {
		variant string
		size    int
	}
	var order []key
	by := map[key][]AppRow{}
	for _, r := range rows {
		if r.TierColumns == nil {
			continue
		}
		k := key{r.Variant, r.Size}
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], r)
	}
	for _, k := range order {
		name := fmt.Sprintf("size %d", k.size)
		if k.variant != "" {
			name = k.variant + ", " + name
		}
		sim := plots.Series{Name: name + ", simulated"}
		tier := plots.Series{Name: name + ", tier", Dashed: true, Companion: true}
		for _, r := range by[k] {
			sim.X, sim.Y = append(sim.X, float64(r.Procs)), append(sim.Y, float64(r.Cycles))
			tier.X, tier.Y = append(tier.X, float64(r.Procs)), append(tier.Y, r.TierCycles)
		}
		c.Series = append(c.Series, sim, tier)
	}
	return c
}

// TierHeadline is the main job's summary of the tier's predictions: the
// error per (P, size) with the contention and handshakes the model lacks.
func TierHeadline(rows []AppRow) string {
	var parts []string
	for _, r := range rows {
		if t := r.TierColumns; t != nil && r.Procs > 1 {
			parts = append(parts, fmt.Sprintf("P=%d N=%d %+.1f%% (%d stalled flit-cycles, %d rendezvous)", r.Procs, r.Size, t.TierErrPct, t.StallFlitCycles, t.Rendezvous))
		}
	}
	return fmt.Sprintf("%s: LogGOPS tier (fitted parameters, recorded schedules) against simulated: %s", appName(rows), strings.Join(parts, ", "))
}
