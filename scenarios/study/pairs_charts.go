package study

import (
	"path/filepath"
	"strings"

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

// pairsPlotPaths is where a plot option draws each of names (versions or
// topologies): the path itself for one, else "-name" inserted before the
// extension.
func pairsPlotPaths(path string, names []string) []string {
	if len(names) == 1 {
		return []string{path}
	}
	ext := filepath.Ext(path)
	var out []string
	for _, v := range names {
		out = append(out, strings.TrimSuffix(path, ext)+"-"+v+ext)
	}
	return out
}

// PlotFiles are the chart files `nocsim pairs` is asked for, File a path:
// plot per topology (when several) and per version (when several),
// aggregate per topology and compare per version; an empty path asks for
// none. They are listed before the run, so that their paths are checked
// first, and drawn from *rows after it.
func (p *Pairs) PlotFiles(sc *scenarios.Scenario, rows *[]report.PairsRow, plot, aggregate, compare string) (perVersion, aggregates, compares []Chart) {
	parts := p.ByTopology(sc, nil)
	var topos []string
	for _, part := range parts {
		topos = append(topos, part.Topology)
	}
	rowsOn := func(i int) []report.PairsRow { return p.ByTopology(sc, *rows)[i].Rows }
	if plot != "" {
		for ti, tpath := range pairsPlotPaths(plot, topos) {
			machine := parts[ti].Scenario.MachineText()
			for vi, vpath := range pairsPlotPaths(tpath, p.Versions) {
				v := p.Versions[vi]
				perVersion = append(perVersion, Chart{File: vpath, Draw: func() plots.Chart { return report.PairsChart(rowsOn(ti), v, machine) }})
			}
		}
	}
	if aggregate != "" {
		for ti, tpath := range pairsPlotPaths(aggregate, topos) {
			machine := parts[ti].Scenario.MachineText()
			aggregates = append(aggregates, Chart{File: tpath, Draw: func() plots.Chart { return report.PairsAggregateChart(rowsOn(ti), machine) }})
		}
	}
	if compare != "" {
		for vi, vpath := range pairsPlotPaths(compare, p.Versions) {
			v := p.Versions[vi]
			compares = append(compares, Chart{File: vpath, Draw: func() plots.Chart { return report.PairsTopologyChart(*rows, v, sc.TilesText()) }})
		}
	}
	return perVersion, aggregates, compares
}
