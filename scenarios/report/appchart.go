package report

import (
	"fmt"
	"slices"
	"strings"

	"nocsim/plots"
)

// The app charts' titles name the machine (Scenario.MachineText), as the
// collective charts do.

// SpeedupChart draws speedup against P per version and size, with the
// ideal line; the baseline is the smallest P of the sweep, scaled so that
// it counts as that many ranks' worth of speed.
// params names the parameters file the Hockney lines come from.
func SpeedupChart(rows []AppRow, machine, params string) plots.Chart {
	c := plots.Chart{Title: fmt.Sprintf("%s %s (baseline: P=%d, same version; %s)", appName(rows), rows[0].SpeedupName(), rows[0].BaselineProcs, machine),
		XLabel: "ranks (P, log scale)", YLabel: fmt.Sprintf("%s (%s, log scale)", rows[0].SpeedupName(), rows[0].SpeedupFormula()), LogX: true, LogY: true,
		Series: seriesByVersion(rows, func(r AppRow) float64 { return r.Speedup })}
	label := rowLabel(rows)
	var ideal plots.Series
	seen := map[int]bool{}
	for _, r := range rows {
		if !seen[r.Procs] {
			seen[r.Procs] = true
			ideal.X = append(ideal.X, float64(r.Procs))
			ideal.Y = append(ideal.Y, float64(r.Procs))
		}
	}
	slices.Sort(ideal.X)
	slices.Sort(ideal.Y)
	ideal.Name, ideal.Reference = "ideal", true
	// Where the Hockney model predicts the time, its speedup goes dashed
	// beside the simulated one.
	var out []plots.Series
	for _, sr := range c.Series {
		out = append(out, sr)
		m := plots.Series{Name: sr.Name + " (Hockney)", Dashed: true, Companion: true}
		for _, r := range rows {
			if label(r) != sr.Name || r.Hockney <= 0 {
				continue
			}
			for _, b := range rows {
				if b.Variant == r.Variant && b.Version == r.Version && b.Size == r.Size && b.Procs == r.BaselineProcs && b.Hockney > 0 {
					m.X = append(m.X, float64(r.Procs))
					m.Y = append(m.Y, float64(r.BaselineProcs)*b.Hockney/r.Hockney)
				}
			}
		}
		if len(m.X) > 0 {
			out = append(out, m)
		}
	}
	c.Series = append(out, ideal)
	if t := withParams("", out, params); t != "" {
		c.Title = strings.TrimSuffix(c.Title, ")") + t + ")"
	}
	return c
}

// EfficiencyChart draws parallel efficiency (speedup / P) against P per
// version and size; the baseline is the same as SpeedupChart's.
func EfficiencyChart(rows []AppRow, machine string) plots.Chart {
	return plots.Chart{Title: fmt.Sprintf("%s %s (baseline: P=%d, same version; %s)", appName(rows), rows[0].EfficiencyName(), rows[0].BaselineProcs, machine),
		XLabel: "ranks (P, log scale)", YLabel: fmt.Sprintf("%s (%s)", rows[0].EfficiencyName(), rows[0].EfficiencyFormula()), LogX: true,
		Series: seriesByVersion(rows, func(r AppRow) float64 { return r.Efficiency })}
}

// TimeChart draws simulated time against P per version and size (and
// method, when the sweep ran several), log-log: where the lines of the
// global sum's two methods cross is the break-even.
func TimeChart(rows []AppRow, clockHz float64, machine string) plots.Chart {
	return plots.Chart{Title: fmt.Sprintf("%s time (%s, clock %.0f MHz)", appName(rows), machine, clockHz/1e6),
		XLabel: "ranks (P, log scale)", YLabel: "time (cycles, log scale)", LogX: true, LogY: true,
		Series: seriesByVersion(rows, func(r AppRow) float64 { return float64(r.Cycles) })}
}

// rowLabel names a row's line: version and size, and the method first
// when the rows hold more than one.
func rowLabel(rows []AppRow) func(AppRow) string {
	multi := multiVariant(rows)
	return func(r AppRow) string {
		if multi {
			return fmt.Sprintf("%s %s, size %d", r.Variant, r.Version, r.Size)
		}
		return fmt.Sprintf("%s, size %d", r.Version, r.Size)
	}
}

// seriesByVersion is one line against P per version and size (and
// method), named by rowLabel as SpeedupChart's Hockney companions expect.
func seriesByVersion(rows []AppRow, y func(AppRow) float64) []plots.Series {
	var out []plots.Series
	idx := map[string]int{}
	label := rowLabel(rows)
	for _, r := range rows {
		key := label(r)
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, plots.Series{Name: key})
		}
		out[i].X = append(out[i].X, float64(r.Procs))
		out[i].Y = append(out[i].Y, y(r))
	}
	return out
}

// RatioChart draws the MPI version's time over the native one's against
// problem size, one line per P: the layout of thesis tables 5.1 and 5.2.
// It has no series when the sweep ran only one version.
func RatioChart(rows []AppRow, machine string) plots.Chart {
	c := plots.Chart{Title: appName(rows) + ": MPI time / native time (" + machine + ")", XLabel: appSizeLabel(rows[0].App) + ", log scale",
		YLabel: "MPI / native (time ratio)", LogX: true}
	idx := map[string]int{}
	multi := multiVariant(rows)
	for _, r := range rows {
		if r.MPIOverNative <= 0 {
			continue
		}
		name := fmt.Sprintf("P=%d", r.Procs)
		if multi {
			name = r.Variant + ", " + name
		}
		i, ok := idx[name]
		if !ok {
			i = len(c.Series)
			idx[name] = i
			c.Series = append(c.Series, plots.Series{Name: name})
		}
		c.Series[i].X = append(c.Series[i].X, float64(r.Size))
		c.Series[i].Y = append(c.Series[i].Y, r.MPIOverNative)
	}
	return c
}

// multiVariant tells whether the rows hold more than one method (the
// global sum's breakeven sweep).
func multiVariant(rows []AppRow) bool {
	for _, r := range rows {
		if r.Variant != rows[0].Variant {
			return true
		}
	}
	return false
}

// appSizeLabel says what an application's size counts, with its unit.
func appSizeLabel(app string) string {
	switch app {
	case "cg":
		return "unknowns N (rows of A)"
	case "qr", "matmul":
		return "matrix order N (N x N)"
	case "globalsum":
		return "vector length (elements)"
	}
	return "problem size"
}

func appName(rows []AppRow) string {
	if multiVariant(rows) {
		var vs []string
		for _, r := range rows {
			if !slices.Contains(vs, r.Variant) {
				vs = append(vs, r.Variant)
			}
		}
		return rows[0].App + " " + strings.Join(vs, " vs ")
	}
	if rows[0].Variant != "" {
		return rows[0].App + " " + rows[0].Variant
	}
	return rows[0].App
}
