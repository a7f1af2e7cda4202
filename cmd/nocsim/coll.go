package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"nocsim/coll"
	"nocsim/logp/collgen"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

func collCommand() *cli.Command {
	flags := []cli.Flag{
		configFlag,
		&cli.StringFlag{Name: "op", Usage: "operation: " + strings.Join(collgen.Ops, ", "), Value: "bcast"},
		&cli.StringFlag{Name: "algs", Usage: "algorithms, comma-separated (auto = the one the [mpi] keys choose for the size)", Value: "auto"},
		&cli.StringFlag{Name: "procs", Usage: "rank counts, comma-separated (default: every tile)"},
		&cli.StringFlag{Name: "sizes", Usage: "bytes per rank, comma-separated (see docs/commands/coll.md for each operation)", Value: "8,1024,65536"},
		&cli.IntFlag{Name: "root", Usage: "root rank of rooted operations", Value: 0},
		&cli.BoolFlag{Name: "json", Usage: "print a JSON array, one object per run"},
		&cli.StringFlag{Name: "plot", Usage: "draw completion time per algorithm to `FILE` (.png, .svg, .pdf)"},
		&cli.StringFlag{Name: "energy-plot", Usage: "draw each run's energy (nJ) per algorithm to `FILE` (.png, .svg, .pdf), and its energy-delay product to FILE with -edp before its extension; with --params, the energy model's beside them, dashed"},
		&cli.StringFlag{Name: "x", Usage: "plot against size or procs (default: whichever varies more)"},
		&cli.IntFlag{Name: "workers", Usage: "runs simulated in parallel (0 = one per core); results do not depend on it"},
		&cli.StringFlag{Name: "params", Usage: "LogGP parameters (nocsim calibrate --out): add the model's prediction and error to every run (and, when they hold an energy model, its energy prediction), and let auto pick the model's fastest algorithm"},
		objectiveCLIFlag,
		&cli.StringFlag{Name: "link-map", Usage: "draw one run's chip traffic over the call (--map-row) on the router grid to `FILE` (.png, .svg or .pdf; mesh, torus, cmesh or ring): link utilisation and router buffer occupancy, and the routers' stalls to FILE with -stalls before its extension"},
		&cli.StringFlag{Name: "comm-matrix", Usage: "draw one run's bytes sent per source and destination rank (--map-row) as a heatmap to `FILE` (.png, .svg or .pdf)"},
		&cli.IntFlag{Name: "map-row", Usage: "the run --link-map and --comm-matrix draw: `K`, counted from 1 in the table's order (0 = the last)"},
		&cli.StringFlag{Name: "goal-out", Usage: "record each run's communication as a GOAL schedule to `FILE`; with several runs, one file per run, ALG-PN-SIZEB inserted before the extension (b.goal -> b-binomial-P16-1024B.goal)"},
		traceFlag,
		quietFlag,
	}
	flags = append(flags, tierFlags()...)
	return command{
		name:      "coll",
		usage:     "time MPI collectives per algorithm, rank count and size, each checked against a serial result",
		usageText: "nocsim coll --mesh 8x8 --op bcast --algs flat,binomial,pull --procs 4,16,64 --sizes 8,1024,65536\nnocsim coll --tier loggops --params params.toml --op bcast --algs binomial,flat --procs 16,1024,1048576 --sizes 8",
		flags:     append(flags, keyFlags(pricedSections, "procs")...),
		build:     buildColl,
	}.cli()
}

func parseInts(flag, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("--%s = %q: allowed a comma-separated list of integers", flag, s)
		}
		out = append(out, n)
	}
	return out, nil
}

func buildColl(c *cli.Context) (*workload, error) {
	if tier, err := collTier(c); err != nil || tier == scenarios.TierLogGOPS {
		if err != nil {
			return nil, err
		}
		if c.IsSet("trace") {
			return nil, usageErr("--trace = %q: not with --tier %s, which runs no chip to trace; allowed with --tier chip", c.String("trace"), tier)
		}
		if c.IsSet("energy-plot") {
			return nil, usageErr("--energy-plot = %q: not with --tier %s, which runs no chip to price; allowed with --tier chip", c.String("energy-plot"), tier)
		}
		for _, f := range []string{"link-map", "comm-matrix", "map-row"} {
			if c.IsSet(f) {
				return nil, usageErr("--%s = %q: not with --tier %s, which runs no chip to draw; allowed with --tier chip", f, c.String(f), tier)
			}
		}
		return buildCollTier(c)
	}
	sc, src, err := scenarioFrom(c, "procs") // --procs is the sweep's list here
	if err != nil {
		return nil, err
	}
	sw := &study.CollSweep{Op: c.String("op"), Root: c.Int("root"), Algs: wordList(c, "algs")}
	if sw.Sizes, err = intList(c, "sizes"); err != nil {
		return nil, err
	}
	if c.IsSet("procs") {
		if sw.Procs, err = intList(c, "procs"); err != nil {
			return nil, err
		}
	} else if m, err := scenarios.ParseMesh(sc.Network.Mesh); err == nil {
		sw.Procs = []int{m.Nodes()}
	}
	if c.String("params") != "" {
		if sw.Params, err = paramsForRun(c, &sc); err != nil {
			return nil, err
		}
	}
	if sw.Objective, err = objectiveFlag(c, sw.Params); err != nil {
		return nil, err
	}
	if err := sw.Check(&sc, src); err != nil {
		return nil, flagError(err, nil, "op", "algs", "procs", "sizes", "root")
	}
	if err := checkWorkers(c, "workers"); err != nil {
		return nil, err
	}
	xAxis := c.String("x")
	if xAxis == "" {
		xAxis = "size"
		if len(sw.Procs) > len(sw.Sizes) {
			xAxis = "procs"
		}
	}
	if xAxis != "size" && xAxis != "procs" {
		return nil, usageErr("--x = %q: allowed size, procs", xAxis)
	}
	if c.String("goal-out") != "" {
		// A native algorithm moves data with remote stores and getBlocks, which
		// are not MPI messages: its schedule would be empty.
		for _, a := range sw.Algs {
			if coll.IsNative(sw.Op, a) {
				return nil, usageErr("--goal-out: not with --algs %s (%s): its remote stores and getBlocks are not recorded as GOAL messages; allowed algorithms of %s built on MPI messages", a, sw.Op, sw.Op)
			}
		}
	}
	if c.String("energy-plot") != "" {
		if err := checkEnergyChart(c, &sc, "energy-plot"); err != nil {
			return nil, err
		}
		if err := checkSecondFile(c, "energy-plot", "-edp", []string{"plot", "goal-out", "trace"}); err != nil {
			return nil, err
		}
	}
	if err := collMapFlags(c, &sc, sw); err != nil {
		return nil, err
	}
	var rows []report.CollRow
	params := filepath.Base(c.String("params"))
	return &workload{
		label: "coll", outputs: []string{"plot", "energy-plot", "goal-out", "trace", "link-map", "comm-matrix"}, traceRuns: true,
		files: []file{
			{flag: "link-map", write: func(b *bytes.Buffer) error {
				return drawMap(b, func() (plots.Map, error) { return report.NocLinkMap(*sw.MapLoad) }, c.String("link-map"))
			}},
			{flag: "link-map", suffix: "-stalls", write: func(b *bytes.Buffer) error {
				return drawMap(b, func() (plots.Map, error) { return report.NocStallMap(*sw.MapLoad) }, stallsPath(c.String("link-map")))
			}},
			{flag: "comm-matrix", write: func(b *bytes.Buffer) error {
				return drawMap(b, func() (plots.Map, error) { return report.CommMatrix(sw.Matrix, sw.MapLoad.Title) }, c.String("comm-matrix"))
			}},
		},
		run: func(opt scenarios.RunOptions, _ *job) error {
			rows, err = sw.Run(&sc, opt)
			return err
		},
		print: func(w io.Writer, asJSON bool) error {
			if sw.Params != nil {
				if err := study.PredictRows(*sw.Params, rows); err != nil {
					return err
				}
				if err := study.PredictEnergyRows(&sc, *sw.Params, rows); err != nil {
					return err
				}
			}
			if asJSON {
				return report.WriteJSON(w, rows)
			}
			err := report.WriteCollTable(w, rows)
			if err == nil && sw.Params != nil {
				err = report.WriteModelReport(w, rows)
			}
			return err
		},
		charts: append([]chart{plotFlag(c, "plot", func() plots.Chart {
			return report.CollChart(rows, xAxis, sc.MachineText(), params)
		})}, collEnergyCharts(c, &rows, xAxis, sc.MachineText(), params)...),
		verify: wrongAnswers(&rows, func(r report.CollRow) bool { return r.Correct }, func(r report.CollRow) error {
			return fmt.Errorf("%s %s, P=%d, %d bytes gave a wrong result: %s", r.Op, r.Algorithm, r.Procs, r.SizeBytes, r.Error)
		}),
	}, nil
}

// collMapFlags checks --link-map, --comm-matrix and --map-row before
// anything runs, and sets the row the sweep keeps the chip's traffic of.
func collMapFlags(c *cli.Context, sc *scenarios.Scenario, sw *study.CollSweep) error {
	lm, cm := c.String("link-map"), c.String("comm-matrix")
	n := len(sw.Algs) * len(sw.Procs) * len(sw.Sizes)
	k := c.Int("map-row")
	switch {
	case c.IsSet("map-row") && lm == "" && cm == "":
		return usageErr("--map-row = %d without --link-map or --comm-matrix: allowed only with a map to draw", k)
	case k < 0 || k > n:
		return usageErr("--map-row = %d: allowed 1 to %d, the runs in the table's order (or 0, the last)", k, n)
	case lm == "" && cm == "":
		return nil
	}
	if lm != "" {
		if err := checkLinkMapTopology(sc); err != nil {
			return err
		}
		if err := plots.CheckExt(lm); err != nil {
			return usageErr("--link-map: %v", err)
		}
		if err := checkSecondFile(c, "link-map", "-stalls", []string{"plot", "energy-plot", "goal-out", "trace", "comm-matrix"}); err != nil {
			return err
		}
	}
	if cm != "" {
		if err := plots.CheckExt(cm); err != nil {
			return usageErr("--comm-matrix: %v", err)
		}
		for _, a := range sw.Algs {
			if coll.IsNative(sw.Op, a) {
				return usageErr("--comm-matrix: not with --algs %s (%s): its remote stores and getBlocks are not MPI messages; allowed algorithms of %s built on MPI messages", a, sw.Op, sw.Op)
			}
		}
	}
	sw.MapRow = cmp.Or(k, n)
	return nil
}
