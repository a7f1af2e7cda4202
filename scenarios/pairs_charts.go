package scenarios

import "nocsim/scenarios/report"

// PairsOnTopology is the part of a pairs run on one topology, with the
// scenario on that topology (for its chart titles).
type PairsOnTopology struct {
	Topology string
	Scenario Scenario
	Rows     []report.PairsRow
}

// ByTopology splits a run's rows by the topologies p ran on, in order.
func (p *Pairs) ByTopology(sc *Scenario, rows []report.PairsRow) []PairsOnTopology {
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

// pairsCharts draws a pairs run's charts into out: pairs-VERSION.png and
// pairs-aggregate.png, with "-TOPOLOGY" after "pairs" when the run covers
// several topologies, and then pairs-compare-VERSION.png, one line per
// topology.
func (sc *Scenario) pairsCharts(rows []report.PairsRow, out *stagedDir) error {
	pb := sc.pairsBench()
	parts := pb.ByTopology(sc, rows)
	for _, part := range parts {
		prefix := "pairs-"
		if len(parts) > 1 {
			prefix += part.Topology + "-"
		}
		machine := part.Scenario.MachineText()
		for _, v := range pb.Versions {
			if err := out.save(prefix+v+".png", func(p string) error { return report.PairsChart(part.Rows, v, machine).Save(p, 0, 0) }); err != nil {
				return err
			}
		}
		if err := out.save(prefix+"aggregate.png", func(p string) error { return report.PairsAggregateChart(part.Rows, machine).Save(p, 0, 0) }); err != nil {
			return err
		}
	}
	if len(parts) < 2 {
		return nil
	}
	for _, v := range pb.Versions {
		if err := out.save("pairs-compare-"+v+".png", func(p string) error { return report.PairsTopologyChart(rows, v, sc.TilesText()).Save(p, 0, 0) }); err != nil {
			return err
		}
	}
	return nil
}
