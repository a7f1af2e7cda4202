package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"nocsim/config"
	"nocsim/mpi"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

func collCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "scenario TOML file; flags override its keys"},
		&cli.StringFlag{Name: "op", Usage: "operation: " + strings.Join(scenarios.CollOps, ", "), Value: "bcast"},
		&cli.StringFlag{Name: "algs", Usage: "algorithms, comma-separated (auto = the one the [mpi] keys choose for the size)", Value: "auto"},
		&cli.StringFlag{Name: "procs", Usage: "rank counts, comma-separated (default: every tile)"},
		&cli.StringFlag{Name: "sizes", Usage: "bytes per rank, comma-separated (see docs/commands/coll.md for each operation)", Value: "8,1024,65536"},
		&cli.IntFlag{Name: "root", Usage: "root rank of rooted operations", Value: 0},
		&cli.BoolFlag{Name: "json", Usage: "print a JSON array, one object per run"},
		&cli.StringFlag{Name: "plot", Usage: "draw completion time per algorithm to `FILE` (.png, .svg, .pdf)"},
		&cli.StringFlag{Name: "x", Usage: "plot against size or procs (default: whichever varies more)"},
		&cli.IntFlag{Name: "workers", Usage: "runs simulated in parallel (0 = one per core); results do not depend on it"},
		&cli.StringFlag{Name: "params", Usage: "LogGP parameters (nocsim calibrate --out): add the model's prediction and error to every run, and let auto pick the model's fastest algorithm"},
		&cli.StringFlag{Name: "goal-out", Usage: "record each run's communication as a GOAL schedule to `FILE`; with several runs, one file per run, ALG-PN-SIZEB inserted before the extension (b.goal -> b-binomial-P16-1024B.goal)"},
		traceFlag,
		quietFlag,
	}
	flags = append(flags, tierFlags()...)
	all := append(flags, keyFlags(machineSections, "procs")...)
	return &cli.Command{
		Name:      "coll",
		Usage:     "time MPI collectives per algorithm, rank count and size, each checked against a serial result",
		UsageText: "nocsim coll --mesh 8x8 --op bcast --algs flat,binomial,pull --procs 4,16,64 --sizes 8,1024,65536\nnocsim coll --tier loggops --params params.toml --op bcast --algs binomial,flat --procs 16,1024,1048576 --sizes 8",
		Flags:     all,
		Action:    runColl,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageErr("coll: %v (see nocsim coll --help)", err)
		},
	}
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

func runColl(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErr("coll takes no arguments, got %q", c.Args().Slice())
	}
	if tier, err := collTier(c); err != nil || tier == scenarios.TierLogGOPS {
		if err != nil {
			return err
		}
		if c.IsSet("trace") {
			return usageErr("--trace = %q: not with --tier %s, which runs no chip to trace; allowed with --tier chip", c.String("trace"), tier)
		}
		return runCollTier(c)
	}
	sc, src, err := scenarioFrom(c, "procs") // --procs is the sweep's list here
	if err != nil {
		return err
	}
	sw := &scenarios.CollSweep{Op: c.String("op"), Root: c.Int("root")}
	for _, a := range strings.Split(c.String("algs"), ",") {
		sw.Algs = append(sw.Algs, strings.TrimSpace(a))
	}
	if sw.Sizes, err = parseInts("sizes", c.String("sizes")); err != nil {
		return usageErr("%v", err)
	}
	if c.IsSet("procs") {
		if sw.Procs, err = parseInts("procs", c.String("procs")); err != nil {
			return usageErr("%v", err)
		}
	} else if m, err := scenarios.ParseMesh(sc.Network.Mesh); err == nil {
		sw.Procs = []int{m.Nodes()}
	}
	if c.String("params") != "" {
		if sw.Params, err = paramsForRun(c, &sc); err != nil {
			return err
		}
	}
	if err := sw.Check(&sc, src); err != nil {
		var ke *config.KeyError
		if errors.As(err, &ke) && slices.Contains([]string{"op", "algs", "procs", "sizes", "root"}, ke.Key) {
			return usageErr("--%s = %s: allowed %s", ke.Key, ke.Value, ke.Allowed)
		}
		return usageErr("%v", err)
	}
	if err := checkWorkers(c, "workers"); err != nil {
		return err
	}
	xAxis := c.String("x")
	if xAxis == "" {
		xAxis = "size"
		if len(sw.Procs) > len(sw.Sizes) {
			xAxis = "procs"
		}
	}
	if xAxis != "size" && xAxis != "procs" {
		return usageErr("--x = %q: allowed size, procs", xAxis)
	}
	if p := c.String("plot"); p != "" {
		if err := plots.CheckExt(p); err != nil {
			return usageErr("--plot: %v", err)
		}
	}
	if c.String("goal-out") != "" {
		// A native algorithm moves data with remote stores and getBlocks, which
		// are not MPI messages: its schedule would be empty.
		for _, a := range sw.Algs {
			if mpi.IsNative(sw.Op, a) {
				return usageErr("--goal-out: not with --algs %s (%s): its remote stores and getBlocks are not recorded as GOAL messages; allowed algorithms of %s built on MPI messages", a, sw.Op, sw.Op)
			}
		}
	}
	if err := checkOutputFlags(c, []string{"plot", "goal-out", "trace"}, nil); err != nil {
		return err
	}
	if validateOnly {
		return nil
	}
	job := startJob(c, "coll")
	defer job.stop()
	opt := scenarios.RunOptions{Workers: c.Int("workers"), Progress: job.bar.update}
	rec := goalRecording(c, &opt)
	traces := traceSet(c, &opt)
	rows, err := sw.Run(&sc, opt)
	if err != nil {
		return runErr(err)
	}
	if err := writeGoalFiles(c, rec, c.String("goal-out")); err != nil {
		return err
	}
	if err := writeTraceFile(c, traces); err != nil {
		return err
	}
	if sw.Params != nil {
		if err := scenarios.PredictRows(*sw.Params, rows); err != nil {
			return runErr(err)
		}
	}
	if c.Bool("json") {
		err = report.WriteJSON(c.App.Writer, rows)
	} else {
		err = report.WriteCollTable(c.App.Writer, rows)
		if err == nil && sw.Params != nil {
			err = report.WriteModelReport(c.App.Writer, rows)
		}
	}
	if err != nil {
		return runErr(err)
	}
	if p := c.String("plot"); p != "" {
		if err := report.CollChart(rows, xAxis, sc.MachineText(), filepath.Base(c.String("params"))).Save(p, 0, 0); err != nil {
			return runErr(err)
		}
	}
	for _, r := range rows {
		if !r.Correct {
			return runErr(fmt.Errorf("%s %s, P=%d, %d bytes gave a wrong result: %s", r.Op, r.Algorithm, r.Procs, r.SizeBytes, r.Error))
		}
	}
	job.end(0)
	return nil
}
