package report

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"nocsim/plots"
)

// TierRow is one (algorithm, procs, size) point on the LogGOPS tier.
type TierRow struct {
	Tier      string  `json:"tier"`
	Op        string  `json:"op"`
	Algorithm string  `json:"algorithm"`
	Procs     int     `json:"procs"`
	SizeBytes int     `json:"size_bytes"`
	Root      int     `json:"root"`
	Cycles    float64 `json:"cycles"` // the last rank's finish
	Ops       int     `json:"schedule_ops"`
	// PredictedEnergyPJ is the fitted energy model's energy of the
	// schedule (static power over Cycles, every message), when the
	// parameters hold one (pJ).
	PredictedEnergyPJ float64 `json:"predicted_energy_pj,omitempty"`
}

func WriteTierTable(out io.Writer, rows []TierRow) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	energy := slices.ContainsFunc(rows, func(r TierRow) bool { return r.PredictedEnergyPJ > 0 })
	head, units := "", ""
	if energy {
		head, units = "energy\t", "(nJ, model)\t"
	}
	fmt.Fprintln(tw, "tier\top\talgorithm\tprocs\tsize\tcycles\tschedule\t"+head)
	fmt.Fprintln(tw, "\t\t\t\t(bytes)\t(last rank)\t(ops)\t"+units)
	for _, r := range rows {
		e := ""
		if energy {
			e = fmt.Sprintf("%.6g\t", r.PredictedEnergyPJ/1e3)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.6g\t%d\t%s\n", r.Tier, r.Op, r.Algorithm, r.Procs, r.SizeBytes, r.Cycles, r.Ops, e)
	}
	return tw.Flush()
}

// CollTierChart draws completion time against P on a log axis ticked at the
// rank counts run, one line per algorithm and size, legend outside.
func CollTierChart(rows []TierRow, params string) plots.Chart {
	c := plots.Chart{
		Title:  fmt.Sprintf("%s on the LogGOPS tier (%s)", rows[0].Op, params),
		XLabel: "ranks (P, log scale)", YLabel: "completion time (cycles, last rank)",
		LogX: true, LogY: true,
	}
	idx := map[string]int{}
	for _, r := range rows {
		if !slices.Contains(c.XTicks, float64(r.Procs)) {
			c.XTicks = append(c.XTicks, float64(r.Procs))
		}
		if r.Cycles <= 0 {
			continue // nothing to place on a log axis (P = 1)
		}
		key := fmt.Sprintf("%s %dB", r.Algorithm, r.SizeBytes)
		i, ok := idx[key]
		if !ok {
			i = len(c.Series)
			idx[key] = i
			c.Series = append(c.Series, plots.Series{Name: key})
		}
		c.Series[i].X = append(c.Series[i].X, float64(r.Procs))
		c.Series[i].Y = append(c.Series[i].Y, r.Cycles)
	}
	slices.Sort(c.XTicks)
	return c
}
