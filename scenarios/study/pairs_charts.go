package study

import (
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// PairsOnTopology is the part of a pairs run on one topology, with the
// scenario on that topology (for its chart titles).
type PairsOnTopology struct {
	Topology string
	Scenario scenarios.Scenario
	Rows     []report.PairsRow
}

// ByTopology splits a run's rows by the topologies p ran on, in order.
func (p *Pairs) ByTopology(sc *scenarios.Scenario, rows []report.PairsRow) []PairsOnTopology {
	var out []PairsOnTopology
	for _, tsc := range p.topoScenarios(sc) {
		part := PairsOnTopology{Topology: tsc.Network.TopologyName(), Scenario: tsc}
		for _, r := range rows {
			if r.Topology == part.Topology {
				part.Rows = append(part.Rows, r)
			}
		}
		out = append(out, part)
	}
	return out
}

// pairsCharts are a pairs run's charts: pairs-VERSION.png and
// pairs-aggregate.png, with "-TOPOLOGY" after "pairs" when the run covers
// several topologies, and then pairs-compare-VERSION.png, one line per
// topology.
func pairsCharts(sc *scenarios.Scenario, rows []report.PairsRow) []Chart {
	pb := pairsBench(sc)
	parts := pb.ByTopology(sc, rows)
	var cs []Chart
	for _, part := range parts {
		prefix := "pairs-"
		if len(parts) > 1 {
			prefix += part.Topology + "-"
		}
		machine := part.Scenario.MachineText()
		for _, v := range pb.Versions {
			cs = append(cs, Chart{File: prefix + v + ".png", Draw: func() plots.Chart { return report.PairsChart(part.Rows, v, machine) }})
		}
		cs = append(cs, Chart{File: prefix + "aggregate.png", Draw: func() plots.Chart { return report.PairsAggregateChart(part.Rows, machine) }})
	}
	if len(parts) < 2 {
		return cs
	}
	for _, v := range pb.Versions {
		cs = append(cs, Chart{File: "pairs-compare-" + v + ".png", Draw: func() plots.Chart { return report.PairsTopologyChart(rows, v, sc.TilesText()) }})
	}
	return cs
}
