package main

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"nocsim/config"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

func pairsCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "scenario TOML file; flags override its keys"},
		&cli.StringFlag{Name: "pairs", Usage: "concurrent pair counts, comma-separated, each 1..P/2 (default 1, 2, 4, ... below P/2, and P/2)"},
		&cli.StringFlag{Name: "sizes", Usage: "transfer sizes in bytes, comma-separated", Value: "16,64,256,1024,4096,16384,65536"},
		&cli.IntFlag{Name: "reps", Usage: "measured transfers per pair per size (MPI: after one warm-up)", Value: 3},
		&cli.StringFlag{Name: "versions", Usage: "mpi (Send/Recv stream), native (DMA block transfers) or both", Value: "mpi,native"},
		&cli.StringFlag{Name: "placement", Usage: "neighbor: pair j is ranks 2j -> 2j+1 (Radke's i -> i+1); across: j -> j+P/2", Value: "neighbor"},
		&cli.BoolFlag{Name: "json", Usage: "print a JSON array, one object per version, pair count and size"},
		&cli.StringFlag{Name: "csv", Usage: "also write the rows as CSV to `FILE`"},
		&cli.StringFlag{Name: "plot", Usage: "draw bandwidth per pair against size, one series per pair count, to `FILE` (.png, .svg, .pdf); with both versions one file each, -mpi and -native inserted before the extension"},
		&cli.StringFlag{Name: "aggregate-plot", Usage: "draw the aggregate bandwidth at the largest size against the pair count, per version, to `FILE`"},
		&cli.StringFlag{Name: "topologies", Usage: "run the study on each of these networks over the same tiles, comma-separated: mesh, ring, ring_uni, bus (default: the scenario's topology); --plot and --aggregate-plot then draw one file per topology, its name inserted before the extension"},
		&cli.StringFlag{Name: "compare-plot", Usage: "draw bandwidth per pair at the largest size against the pair count, one series per topology (Radke's bus-against-ring contrast), to `FILE`; with both versions one file each"},
		&cli.IntFlag{Name: "workers", Usage: "points simulated in parallel (0 = one per core); results do not depend on it"},
		traceFlag,
		quietFlag,
	}
	return &cli.Command{
		Name:      "pairs",
		Usage:     "Radke's bandwidth study: bandwidth per pair and aggregate against transfer size, for 1 to P/2 pairs transferring at once",
		UsageText: "nocsim pairs --mesh 4x4 --pairs 1,2,4,8 --sizes 16,256,4096,65536 --versions mpi,native --plot pairs.png",
		Flags:     append(flags, keyFlags(machineSections)...),
		Action:    runPairs,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageErr("pairs: %v (see nocsim pairs --help)", err)
		},
	}
}

// pairsPlotPaths is where a plot flag draws each of names (versions or
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

// pairsPlot is one chart file a pairs run draws.
type pairsPlot struct {
	path, flag string
	draw       func() plots.Chart
}

// pairsPlots lists the files --plot, --aggregate-plot and --compare-plot
// ask for: per topology (when several) and per version (when several).
// They are listed before the run, to check their paths, and drawn from
// *rows after it.
func pairsPlots(c *cli.Context, sc *scenarios.Scenario, p *scenarios.Pairs, rows *[]report.PairsRow) []pairsPlot {
	parts := p.ByTopology(sc, nil)
	var topos []string
	for _, part := range parts {
		topos = append(topos, part.Topology)
	}
	rowsOn := func(i int) []report.PairsRow { return p.ByTopology(sc, *rows)[i].Rows }
	var out []pairsPlot
	if path := c.String("plot"); path != "" {
		for ti, tpath := range pairsPlotPaths(path, topos) {
			machine := parts[ti].Scenario.MachineText()
			for vi, vpath := range pairsPlotPaths(tpath, p.Versions) {
				v := p.Versions[vi]
				out = append(out, pairsPlot{vpath, "--plot", func() plots.Chart { return report.PairsChart(rowsOn(ti), v, machine) }})
			}
		}
	}
	if path := c.String("aggregate-plot"); path != "" {
		for ti, tpath := range pairsPlotPaths(path, topos) {
			machine := parts[ti].Scenario.MachineText()
			out = append(out, pairsPlot{tpath, "--aggregate-plot", func() plots.Chart { return report.PairsAggregateChart(rowsOn(ti), machine) }})
		}
	}
	if path := c.String("compare-plot"); path != "" {
		for vi, vpath := range pairsPlotPaths(path, p.Versions) {
			v := p.Versions[vi]
			out = append(out, pairsPlot{vpath, "--compare-plot", func() plots.Chart { return report.PairsTopologyChart(*rows, v, sc.TilesText()) }})
		}
	}
	return out
}

func runPairs(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErr("pairs takes no arguments, got %q", c.Args().Slice())
	}
	sc, src, err := scenarioFrom(c)
	if err != nil {
		return err
	}
	p := &scenarios.Pairs{Reps: c.Int("reps"), Placement: c.String("placement")}
	if p.Sizes, err = parseInts("sizes", c.String("sizes")); err != nil {
		return usageErr("%v", err)
	}
	if c.IsSet("pairs") {
		if p.Pairs, err = parseInts("pairs", c.String("pairs")); err != nil {
			return usageErr("%v", err)
		}
	} else if m, err := scenarios.ParseMesh(sc.Network.Mesh); err == nil {
		procs := m.Nodes()
		if sc.MPI.Procs > 0 {
			procs = sc.MPI.Procs
		}
		p.Pairs = scenarios.DefaultPairCounts(procs)
	}
	for _, v := range strings.Split(c.String("versions"), ",") {
		p.Versions = append(p.Versions, strings.TrimSpace(v))
	}
	if c.IsSet("topologies") {
		for _, t := range strings.Split(c.String("topologies"), ",") {
			p.Topologies = append(p.Topologies, strings.TrimSpace(t))
		}
	}
	if err := p.Check(&sc, src); err != nil {
		var ke *config.KeyError
		if errors.As(err, &ke) && slices.Contains([]string{"pairs", "sizes", "reps", "versions", "placement", "topologies"}, ke.Key) {
			return usageErr("--%s = %s: allowed %s", ke.Key, ke.Value, ke.Allowed)
		}
		return usageErr("%v", err)
	}
	if err := checkWorkers(c, "workers"); err != nil {
		return err
	}
	for _, f := range []string{"plot", "aggregate-plot", "compare-plot"} {
		if path := c.String(f); path != "" {
			if err := plots.CheckExt(path); err != nil {
				return usageErr("--%s: %v", f, err)
			}
		}
	}
	if c.String("trace") != "" && !slices.Contains(p.Versions, "mpi") {
		return usageErr("--trace records the MPI version's runs: --versions = %s has no mpi", c.String("versions"))
	}
	if err := checkOutputFlags(c, []string{"plot", "aggregate-plot", "compare-plot", "csv", "trace"}, nil); err != nil {
		return err
	}
	var rows []report.PairsRow
	charts := pairsPlots(c, &sc, p, &rows)
	for _, ch := range charts {
		if err := checkOutputFile(ch.flag, ch.path); err != nil {
			return err
		}
	}
	if validateOnly {
		return nil
	}
	job := startJob(c, "pairs")
	defer job.stop()
	opt := scenarios.RunOptions{Workers: c.Int("workers"), Progress: job.bar.update}
	traces := traceSet(c, &opt)
	rows, err = p.Run(&sc, opt)
	if err != nil {
		return runErr(err)
	}
	if err := writeTraceFile(c, traces); err != nil {
		return err
	}
	if c.Bool("json") {
		err = report.WriteJSON(c.App.Writer, rows)
	} else {
		err = report.WritePairsTable(c.App.Writer, rows)
	}
	if err != nil {
		return runErr(err)
	}
	if path := c.String("csv"); path != "" {
		if err := scenarios.WriteFile(path, func(b *bytes.Buffer) error { return report.WritePairsCSV(b, rows) }); err != nil {
			return runErr(err)
		}
	}
	for _, ch := range charts {
		if err := ch.draw().Save(ch.path, 0, 0); err != nil {
			return runErr(err)
		}
	}
	for _, r := range rows {
		if !r.Correct {
			return runErr(fmt.Errorf("%s, %d pairs, %d bytes: wrong data at a receiver: %s", r.Version, r.Pairs, r.SizeBytes, r.Error))
		}
	}
	job.end(0)
	return nil
}
