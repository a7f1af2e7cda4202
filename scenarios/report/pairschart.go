package report

import (
	"fmt"
	"math"
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
	series, ticks, big, placement := pairsAtLargest(rows, func(r PairsRow) string { return r.Version }, func(r PairsRow) float64 { return r.AggregateMBps })
	for i := range series {
		series[i].Name = versionText(series[i].Name)
	}
	markSame(series)
	c := plots.Chart{Title: fmt.Sprintf("aggregate bandwidth at %d bytes, %s placement (%s)", big, placement, machine),
		XLabel: "concurrent pairs (log scale)", YLabel: "aggregate bandwidth (MB/s, all pairs)", LogX: true,
		Series: series, XTicks: ticks}
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

// PairsTopologyChart draws Radke's contrast for one version: the mean
// bandwidth per pair at the largest size run against the pair count, one
// series per topology. A shared medium's series falls as 1/pairs; one
// whose pairs use disjoint links stays flat. machine names what the
// topologies share (Scenario.TilesText).
func PairsTopologyChart(rows []PairsRow, version, machine string) plots.Chart {
	var mine []PairsRow
	for _, r := range rows {
		if r.Version == version {
			mine = append(mine, r)
		}
	}
	series, ticks, big, placement := pairsAtLargest(mine, func(r PairsRow) string { return r.Topology }, func(r PairsRow) float64 { return r.MeanPairMBps })
	c := plots.Chart{Title: fmt.Sprintf("bandwidth per pair at %d bytes by network, %s, %s placement (%s)", big, versionText(version), placement, machine),
		XLabel: "concurrent pairs (log scale)", YLabel: "bandwidth per pair (MB/s, mean over pairs)", LogX: true,
		Series: series, XTicks: ticks}
	for i := range series {
		series[i].Name = topologyText(series[i].Name)
	}
	markSame(series)
	return c
}

// markSame sets SameAs on each series that lies on an earlier one (the
// legend says "X (same as Y)" and the chart draws it hollow and dashed):
// networks whose pairs use disjoint links, or MPI and DMA on a saturated
// bus, give the same curve, and one line would hide under the other. Lying
// on is within 1% of the largest value drawn, about a line's width.
func markSame(series []plots.Series) {
	top := 0.0
	for _, s := range series {
		for _, y := range s.Y {
			top = max(top, math.Abs(y))
		}
	}
	for i := range series {
		for _, prev := range series[:i] {
			if sameCurve(prev, series[i], 0.01*top) {
				series[i].SameAs = prev.Name
				break
			}
		}
	}
}

// pairsAtLargest groups the rows at the largest size run by key, in the
// order the keys first appear: one series per key, named by it, of y
// against the pair count; the pair counts, sorted, are the ticks.
func pairsAtLargest(rows []PairsRow, key func(PairsRow) string, y func(PairsRow) float64) (series []plots.Series, ticks []float64, big int, placement string) {
	for _, r := range rows {
		big, placement = max(big, r.SizeBytes), r.Placement
	}
	at := map[string]int{}
	for _, r := range rows {
		if r.SizeBytes != big {
			continue
		}
		k := key(r)
		i, ok := at[k]
		if !ok {
			i, at[k] = len(series), len(series)
			series = append(series, plots.Series{Name: k})
		}
		s := &series[i]
		s.X, s.Y = append(s.X, float64(r.Pairs)), append(s.Y, y(r))
		if !slices.Contains(ticks, float64(r.Pairs)) {
			ticks = append(ticks, float64(r.Pairs))
		}
	}
	slices.Sort(ticks)
	return series, ticks, big, placement
}

// sameCurve is whether b lies on a, within tol at every point.
func sameCurve(a, b plots.Series, tol float64) bool {
	if len(a.X) != len(b.X) || len(a.X) == 0 {
		return false
	}
	for i := range a.X {
		if a.X[i] != b.X[i] || math.Abs(a.Y[i]-b.Y[i]) > tol {
			return false
		}
	}
	return true
}

// topologyText names a [network] topology value (scenarios.TopologyNames)
// in a title.
func topologyText(t string) string {
	switch t {
	case "ring":
		return "bidirectional ring"
	case "ring_uni":
		return "unidirectional ring"
	}
	return t
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
