package scenarios

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

// PairsTopologyChart draws Radke's contrast for one version: the mean
// bandwidth per pair at the largest size run against the pair count, one
// series per topology. A shared medium's series falls as 1/pairs; one
// whose pairs use disjoint links stays flat. machine names what the
// topologies share (Scenario.TilesText).
func PairsTopologyChart(rows []PairsRow, version, machine string) plots.Chart {
	big, placement := 0, ""
	var topos []string
	for _, r := range rows {
		if r.Version != version {
			continue
		}
		big, placement = max(big, r.SizeBytes), r.Placement
		if !slices.Contains(topos, r.Topology) {
			topos = append(topos, r.Topology)
		}
	}
	c := plots.Chart{Title: fmt.Sprintf("bandwidth per pair at %d bytes by network, %s, %s placement (%s)", big, versionText(version), placement, machine),
		XLabel: "concurrent pairs (log scale)", YLabel: "bandwidth per pair (MB/s, mean over pairs)", LogX: true}
	for _, t := range topos {
		s := plots.Series{Name: topologyText(t)}
		for _, r := range rows {
			if r.Version == version && r.Topology == t && r.SizeBytes == big {
				s.X = append(s.X, float64(r.Pairs))
				s.Y = append(s.Y, r.MeanPairMBps)
				if !slices.Contains(c.XTicks, float64(r.Pairs)) {
					c.XTicks = append(c.XTicks, float64(r.Pairs))
				}
			}
		}
		// Networks whose pairs use disjoint links give the same curve,
		// which would hide one line under another: the legend says so.
		for _, prev := range c.Series {
			if sameCurve(prev, s) {
				s.Name += " (same as " + prev.Name + ")"
				break
			}
		}
		c.Series = append(c.Series, s)
	}
	slices.Sort(c.XTicks)
	return c
}

// sameCurve is whether b lies on a, within 0.5% at every point.
func sameCurve(a, b plots.Series) bool {
	if len(a.X) != len(b.X) || len(a.X) == 0 {
		return false
	}
	for i := range a.X {
		if a.X[i] != b.X[i] || math.Abs(a.Y[i]-b.Y[i]) > 0.005*math.Abs(a.Y[i]) {
			return false
		}
	}
	return true
}

func topologyText(t string) string {
	switch t {
	case TopoRing:
		return "bidirectional ring"
	case TopoRingUni:
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

// pairsCharts draws a pairs run's charts into out: pairs-VERSION.png and
// pairs-aggregate.png, with "-TOPOLOGY" after "pairs" when the run covers
// several topologies, and then pairs-compare-VERSION.png, one line per
// topology.
func (sc *Scenario) pairsCharts(rows []PairsRow, out *stagedDir) error {
	pb := sc.pairsBench()
	topos := pb.Topologies
	if len(topos) == 0 {
		topos = []string{sc.Network.TopologyName()}
	}
	for _, t := range topos {
		tsc := *sc
		tsc.Network.Topo = t
		var trows []PairsRow
		for _, r := range rows {
			if r.Topology == t {
				trows = append(trows, r)
			}
		}
		prefix := "pairs-"
		if len(topos) > 1 {
			prefix += t + "-"
		}
		for _, v := range pb.Versions {
			if err := out.save(prefix+v+".png", func(p string) error { return PairsChart(trows, v, tsc.MachineText()).Save(p, 0, 0) }); err != nil {
				return err
			}
		}
		if err := out.save(prefix+"aggregate.png", func(p string) error { return PairsAggregateChart(trows, tsc.MachineText()).Save(p, 0, 0) }); err != nil {
			return err
		}
	}
	if len(topos) < 2 {
		return nil
	}
	for _, v := range pb.Versions {
		if err := out.save("pairs-compare-"+v+".png", func(p string) error { return PairsTopologyChart(rows, v, sc.TilesText()).Save(p, 0, 0) }); err != nil {
			return err
		}
	}
	return nil
}
