package scenarios

import (
	"fmt"
	"slices"

	"nocsim/plots"
)

// PairsChart draws Radke's Figure 4 for one version: the mean bandwidth
// per pair (MB/s at the configured clock) against the transfer size (log
// x), one series per pair count. Coinciding series are a network whose
// pairs do not share links; series that fall as pairs are added are a
// shared medium. machine is Scenario.MachineText.
func PairsChart(rows []PairsRow, version, machine string) plots.Chart {
	placement := ""
	var counts []int
	for _, r := range rows {
		if r.Version != version {
			continue
		}
		placement = r.Placement
		if !slices.Contains(counts, r.Pairs) {
			counts = append(counts, r.Pairs)
		}
	}
	c := plots.Chart{Title: fmt.Sprintf("bandwidth per pair, %s, %s placement (%s)", versionText(version), placement, machine),
		XLabel: "transfer size (bytes, log scale)", YLabel: "bandwidth per pair (MB/s, mean over pairs)", LogX: true}
	for _, k := range counts {
		s := plots.Series{Name: pairsText(k)}
		for _, r := range rows {
			if r.Version == version && r.Pairs == k {
				s.X = append(s.X, float64(r.SizeBytes))
				s.Y = append(s.Y, r.MeanPairMBps)
				if !slices.Contains(c.XTicks, float64(r.SizeBytes)) {
					c.XTicks = append(c.XTicks, float64(r.SizeBytes))
				}
			}
		}
		c.Series = append(c.Series, s)
	}
	slices.Sort(c.XTicks)
	return c
}

// PairsAggregateChart draws the aggregate bandwidth at the largest size
// run against the pair count, one series per version: it grows with the
// pairs where they use disjoint links and stays flat where they share one.
func PairsAggregateChart(rows []PairsRow, machine string) plots.Chart {
	big, placement := 0, ""
	var versions []string
	for _, r := range rows {
		big, placement = max(big, r.SizeBytes), r.Placement
		if !slices.Contains(versions, r.Version) {
			versions = append(versions, r.Version)
		}
	}
	c := plots.Chart{Title: fmt.Sprintf("aggregate bandwidth at %d bytes, %s placement (%s)", big, placement, machine),
		XLabel: "concurrent pairs (log scale)", YLabel: "aggregate bandwidth (MB/s, all pairs)", LogX: true}
	for _, v := range versions {
		s := plots.Series{Name: versionText(v)}
		for _, r := range rows {
			if r.Version == v && r.SizeBytes == big {
				s.X = append(s.X, float64(r.Pairs))
				s.Y = append(s.Y, r.AggregateMBps)
				if !slices.Contains(c.XTicks, float64(r.Pairs)) {
					c.XTicks = append(c.XTicks, float64(r.Pairs))
				}
			}
		}
		c.Series = append(c.Series, s)
	}
	slices.Sort(c.XTicks)
	// The guide: the fewest pairs' best aggregate scaled by the pair
	// count, what pairs on disjoint links would give. It also keeps the
	// y axis from zooming into a flat line's last digits.
	if len(c.XTicks) > 1 {
		k0, best := c.XTicks[0], 0.0
		for _, s := range c.Series {
			if len(s.X) > 0 && s.X[0] == k0 {
				best = max(best, s.Y[0])
			}
		}
		ref := plots.Series{Name: "no sharing (fewest pairs' x pairs)", Reference: true}
		for _, k := range c.XTicks {
			ref.X, ref.Y = append(ref.X, k), append(ref.Y, best*k/k0)
		}
		c.Series = append(c.Series, ref)
	}
	return c
}

func versionText(v string) string {
	if v == "native" {
		return "native DMA"
	}
	return "MPI Send/Recv"
}

func pairsText(k int) string {
	if k == 1 {
		return "1 pair"
	}
	return fmt.Sprintf("%d pairs", k)
}
