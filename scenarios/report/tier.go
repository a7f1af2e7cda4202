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
}

func WriteTierTable(out io.Writer, rows []TierRow) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tier\top\talgorithm\tprocs\tsize\tcycles\tschedule\t")
	fmt.Fprintln(tw, "\t\t\t\t(bytes)\t(last rank)\t(ops)\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.6g\t%d\t\n", r.Tier, r.Op, r.Algorithm, r.Procs, r.SizeBytes, r.Cycles, r.Ops)
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
