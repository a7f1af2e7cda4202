package main

import (
	"bytes"
	"fmt"

	"github.com/urfave/cli/v2"

	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

func pairsCommand() *cli.Command {
	flags := []cli.Flag{
		configFlag,
		&cli.StringFlag{Name: "pairs", Usage: "concurrent pair counts, comma-separated, each 1..P/2 (default 1, 2, 4, ... below P/2, and P/2)"},
		&cli.StringFlag{Name: "sizes", Usage: "transfer sizes in bytes, comma-separated", Value: "16,64,256,1024,4096,16384,65536"},
		&cli.IntFlag{Name: "reps", Usage: "measured transfers per pair per size (MPI: after one warm-up)", Value: 3},
		&cli.StringFlag{Name: "versions", Usage: "mpi (Send/Recv stream), native (DMA block transfers) or both", Value: "mpi,native"},
		&cli.StringFlag{Name: "placement", Usage: "neighbor: pair j is ranks 2j -> 2j+1 (Radke's i -> i+1); across: j -> j+P/2", Value: "neighbor"},
		&cli.BoolFlag{Name: "json", Usage: "print a JSON array, one object per version, pair count and size"},
		&cli.StringFlag{Name: "csv", Usage: "also write the rows as CSV to `FILE`"},
		&cli.StringFlag{Name: "plot", Usage: "draw bandwidth per pair against size, one series per pair count, to `FILE` (.png, .svg, .pdf); with both versions one file each, -mpi and -native inserted before the extension"},
		&cli.StringFlag{Name: "aggregate-plot", Usage: "draw the aggregate bandwidth at the largest size against the pair count, per version, to `FILE`"},
		&cli.StringFlag{Name: "topologies", Usage: "run the study on each of these networks over the same tiles, comma-separated: mesh, torus, cmesh, ring, ring_uni, bus (default: the scenario's topology); --plot and --aggregate-plot then draw one file per topology, its name inserted before the extension"},
		&cli.StringFlag{Name: "compare-plot", Usage: "draw bandwidth per pair at the largest size against the pair count, one series per topology (Radke's bus-against-ring contrast), to `FILE`; with both versions one file each"},
		&cli.IntFlag{Name: "workers", Usage: "points simulated in parallel (0 = one per core); results do not depend on it"},
		traceFlag,
		quietFlag,
	}
	return command{
		name:      "pairs",
		usage:     "Radke's bandwidth study: bandwidth per pair and aggregate against transfer size, for 1 to P/2 pairs transferring at once",
		usageText: "nocsim pairs --mesh 4x4 --pairs 1,2,4,8 --sizes 16,256,4096,65536 --versions mpi,native --plot pairs.png",
		flags:     append(flags, keyFlags(pricedSections)...),
		build:     buildPairs,
	}.cli()
}

// pairsPlots lists the files --plot, --aggregate-plot and --compare-plot
// ask for (Pairs.PlotFiles), each under its flag.
func pairsPlots(c *cli.Context, sc *scenarios.Scenario, p *study.Pairs, rows *[]report.PairsRow) []chart {
	var out []chart
	flags := []string{"plot", "aggregate-plot", "compare-plot"}
	perVersion, aggregates, compares := p.PlotFiles(sc, rows, c.String(flags[0]), c.String(flags[1]), c.String(flags[2]))
	for i, cs := range [][]study.Chart{perVersion, aggregates, compares} {
		for _, ch := range cs {
			out = append(out, chart{flag: flags[i], path: ch.File, draw: func() (plots.Chart, error) { return ch.Draw(), nil }})
		}
	}
	return out
}

func buildPairs(c *cli.Context) (*workload, error) {
	sc, src, err := scenarioFrom(c)
	if err != nil {
		return nil, err
	}
	p := &study.Pairs{Reps: c.Int("reps"), Placement: c.String("placement"), Versions: wordList(c, "versions")}
	if p.Sizes, err = intList(c, "sizes"); err != nil {
		return nil, err
	}
	if c.IsSet("pairs") {
		if p.Pairs, err = intList(c, "pairs"); err != nil {
			return nil, err
		}
	} else if n, ok := sc.Ranks(); ok {
		p.Pairs = study.DefaultPairCounts(n)
	}
	if c.IsSet("topologies") {
		p.Topologies = wordList(c, "topologies")
	}
	if err := p.Check(&sc, src); err != nil {
		return nil, flagError(err, nil, "pairs", "sizes", "reps", "versions", "placement", "topologies")
	}
	if err := checkWorkers(c, "workers"); err != nil {
		return nil, err
	}
	if err := needMPIRuns(c, p.Versions, "trace"); err != nil {
		return nil, err
	}
	var rows []report.PairsRow
	return &workload{
		label: "pairs", outputs: []string{"plot", "aggregate-plot", "compare-plot", "csv", "trace"}, traceRuns: true,
		run: func(opt scenarios.RunOptions, _ *job) error {
			rows, err = p.Run(&sc, opt)
			return err
		},
		print:  printRows(&rows, report.WritePairsTable),
		files:  []file{{flag: "csv", write: func(b *bytes.Buffer) error { return report.WritePairsCSV(b, rows) }}},
		charts: pairsPlots(c, &sc, p, &rows),
		verify: wrongAnswers(&rows, func(r report.PairsRow) bool { return r.Correct }, func(r report.PairsRow) error {
			return fmt.Errorf("%s, %d pairs, %d bytes: wrong data at a receiver: %s", r.Version, r.Pairs, r.SizeBytes, r.Error)
		}),
	}, nil
}
