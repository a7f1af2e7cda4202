package main

import (
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

func appCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "scenario TOML file; flags override its keys"},
		&cli.StringFlag{Name: "app", Usage: "cg, qr, matmul, globalsum or halo", Value: "cg"},
		&cli.StringFlag{Name: "variant", Usage: "cg: thesis (section 5.1 as written: 3 Reduces and 4+P Bcasts an iteration; default: 3 Allreduces); qr: 1d, 2d or thesis (section 5.2.1 on an X x Y grid); matmul: 1d or 2d; globalsum: serial, hypercube, breakeven (both, with the P where the hypercube starts to win), onesided (Puts into rank 0's window), accumulate (Accumulates onto it) or rma (all four methods); halo: compare (all three), twosided (Sendrecv), fence (Puts and MPI_Win_fence) or pscw (Puts between post-start and complete-wait)"},
		&cli.StringFlag{Name: "nonzeros", Usage: "cg: nonzero counts, comma-separated, instead of --sizes (thesis table 5.1); each run has nonzeros/5 unknowns"},
		&cli.StringFlag{Name: "distribute", Usage: "cg --variant thesis, MPI version: DistributeP as bcast (a loop of packed broadcasts, as written), alltoall (one Alltoallw with a vector datatype, section 6.1), or both comma-separated", Value: "bcast"},
		&cli.StringFlag{Name: "grid", Usage: "qr --variant thesis: the processor grid `XxY` (X*Y = every P; default from P: 4 2x2, 16 4x4, 32 8x4, 64 8x8)"},
		&cli.StringFlag{Name: "procs", Usage: "rank counts, comma-separated (the smallest is the speedup baseline)", Value: "1,4,16"},
		&cli.StringFlag{Name: "sizes", Usage: "problem sizes: CG unknowns, QR and matrix-multiply order, vector length", Value: "64,256"},
		&cli.StringFlag{Name: "versions", Usage: "mpi, native or both", Value: "mpi,native"},
		&cli.IntFlag{Name: "app-seed", Usage: "seed of the generated problem", Value: 1},
		&cli.BoolFlag{Name: "json", Usage: "print a JSON array, one object per run"},
		&cli.StringFlag{Name: "plot", Usage: "draw speedup against P to `FILE` (.png, .svg, .pdf)"},
		&cli.StringFlag{Name: "time-plot", Usage: "draw time against P, per version and size (and method), to `FILE`"},
		&cli.StringFlag{Name: "breakeven-plot", Usage: "globalsum --variant breakeven: draw serial/hypercube time against P to `FILE`"},
		&cli.StringFlag{Name: "ratio-plot", Usage: "draw the MPI/native time ratio against size, per P, to `FILE`"},
		&cli.StringFlag{Name: "params", Usage: "LogGP parameters (nocsim calibrate --out): add to every MPI run the LogGOPS tier's prediction of its recorded schedule (and to matrix multiply the slides' Hockney prediction and scalability conditions)"},
		&cli.StringFlag{Name: "tier-plot", Usage: "with --params: draw simulated and LogGOPS-tier time against P, per size, to `FILE`"},
		&cli.IntFlag{Name: "workers", Usage: "runs simulated in parallel (0 = one per core); results do not depend on it"},
		&cli.StringFlag{Name: "goal-out", Usage: "record each MPI-version run's communication as a GOAL schedule to `FILE`; with several runs, one file per run, PN-NSIZE inserted before the extension (cg.goal -> cg-P4-N64.goal)"},
		traceFlag,
		quietFlag,
	}
	all := append(flags, keyFlags(machineSections, "procs")...)
	return &cli.Command{
		Name:         "app",
		Usage:        "run an application (CG, QR, matrix multiply, global sum, halo exchange) in MPI and native SCMP versions over P and size",
		UsageText:    "nocsim app --mesh 4x4 --app cg --procs 1,4,16 --sizes 64,256 --plot cg.png",
		Flags:        all,
		Action:       runApp,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageErr("app: %v (see nocsim app --help)", err) },
	}
}

func runApp(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErr("app takes no arguments, got %q", c.Args().Slice())
	}
	sc, src, err := scenarioFrom(c, "procs")
	if err != nil {
		return err
	}
	if c.Int("app-seed") < 0 {
		return usageErr("--app-seed = %d: allowed >= 0", c.Int("app-seed"))
	}
	sw := &scenarios.AppSweep{App: c.String("app"), Variant: c.String("variant"), Seed: uint64(c.Int("app-seed"))}
	if v := scenarios.Apps[sw.App]; !c.IsSet("variant") && len(v) > 0 {
		sw.Variant = v[0]
	}
	if sw.Procs, err = parseInts("procs", c.String("procs")); err != nil {
		return usageErr("%v", err)
	}
	if sw.Sizes, err = parseInts("sizes", c.String("sizes")); err != nil {
		return usageErr("%v", err)
	}
	if c.IsSet("nonzeros") {
		if c.IsSet("sizes") {
			return usageErr("--nonzeros and --sizes: allowed one of them (--nonzeros sizes a CG run)")
		}
		if sw.Sizes, err = parseInts("nonzeros", c.String("nonzeros")); err != nil {
			return usageErr("%v", err)
		}
		sw.Nonzeros = true
	}
	if c.IsSet("distribute") {
		for _, d := range strings.Split(c.String("distribute"), ",") {
			sw.Distribute = append(sw.Distribute, strings.TrimSpace(d))
		}
	}
	sw.Grid = c.String("grid")
	versions := c.String("versions")
	if !c.IsSet("versions") && sw.MPIOnly() {
		versions = "mpi" // one-sided MPI has no native version
	}
	for _, v := range strings.Split(versions, ",") {
		sw.Versions = append(sw.Versions, strings.TrimSpace(v))
	}
	if err := sw.Check(&sc, src); err != nil {
		var ke *config.KeyError
		if errors.As(err, &ke) && slices.Contains([]string{"app", "variant", "procs", "sizes", "versions", "nonzeros", "distribute", "grid"}, ke.Key) {
			return usageErr("--%s = %s: allowed %s", ke.Key, ke.Value, ke.Allowed)
		}
		return usageErr("%v", err)
	}
	if err := checkWorkers(c, "workers"); err != nil {
		return err
	}
	if c.String("trace") != "" && !slices.Contains(sw.Versions, "mpi") {
		return usageErr("--trace records the MPI version's runs: --versions = %s has no mpi", c.String("versions"))
	}
	if c.String("goal-out") != "" && !slices.Contains(sw.Versions, "mpi") {
		return usageErr("--goal-out records the MPI version's runs: --versions = %s has no mpi", c.String("versions"))
	}
	if c.String("goal-out") != "" && sw.MPIOnly() {
		return usageErr("--goal-out: not with --app %s --variant %s: one-sided operations are not recorded as GOAL schedules", sw.App, sw.Variant)
	}
	if c.String("params") != "" && sw.MPIOnly() {
		// sw.Check refuses this too, but runs before the file is read.
		return usageErr("--params = %s: not with --app %s --variant %s: allowed with two-sided variants only (the LogGOPS tier replays recorded messages; one-sided operations are not recorded)", c.String("params"), sw.App, sw.Variant)
	}
	if c.IsSet("breakeven-plot") && !sw.BreakEven() {
		return usageErr("--breakeven-plot needs --app globalsum --variant breakeven")
	}
	if c.IsSet("tier-plot") && (!c.IsSet("params") || !slices.Contains(sw.Versions, "mpi")) {
		return usageErr("--tier-plot = %q: needs --params (the tier's parameters) and MPI runs (--versions with mpi)", c.String("tier-plot"))
	}
	for _, f := range []string{"plot", "time-plot", "ratio-plot", "breakeven-plot", "tier-plot"} {
		if p := c.String(f); p != "" {
			if err := plots.CheckExt(p); err != nil {
				return usageErr("--%s: %v", f, err)
			}
		}
	}
	if c.String("params") != "" {
		if sw.Params, err = paramsForRun(c, &sc); err != nil {
			return err
		}
	}
	if err := checkOutputFlags(c, []string{"plot", "time-plot", "ratio-plot", "breakeven-plot", "goal-out", "tier-plot", "trace"}, nil); err != nil {
		return err
	}
	if validateOnly {
		return nil
	}
	job := startJob(c, "app")
	defer job.stop()
	opt := scenarios.RunOptions{Workers: c.Int("workers"), Progress: job.bar.update}
	rec := goalRecording(c, &opt)
	traces := traceSet(c, &opt)
	rows, err := sw.Run(&sc, opt)
	if err != nil {
		// Every configuration was checked above: what fails now failed in
		// the simulation.
		return runErr(err)
	}
	if err := writeGoalFiles(c, rec, c.String("goal-out")); err != nil {
		return err
	}
	if err := writeTraceFile(c, traces); err != nil {
		return err
	}
	if err := writeAppResults(c, sw, &sc, rows); err != nil {
		return err
	}
	for _, r := range rows {
		if !r.Correct {
			return runErr(fmt.Errorf("%s %s, P=%d, size %d: wrong answer (%s)", r.App, r.Version, r.Procs, r.Size, r.Detail))
		}
	}
	job.end(0)
	return nil
}

// writeAppResults prints the rows (a table, or JSON with --json) and draws
// the charts the flags ask for.
func writeAppResults(c *cli.Context, sw *scenarios.AppSweep, sc *scenarios.Scenario, rows []report.AppRow) error {
	var err error
	var be []report.BreakEven
	if sw.BreakEven() {
		be = report.GlobalSumBreakEven(rows)
	}
	switch {
	case c.Bool("json") && be != nil:
		err = report.WriteJSON(c.App.Writer, report.BreakEvenResult{Runs: rows, BreakEven: be})
	case c.Bool("json"):
		err = report.WriteJSON(c.App.Writer, rows)
	default:
		err = report.WriteAppTable(c.App.Writer, rows)
		if err == nil && sw.App == "matmul" && sw.Params != nil {
			fmt.Fprintln(c.App.Writer)
			err = report.WriteMatMulScaling(c.App.Writer, rows)
		}
		if err == nil && be != nil {
			fmt.Fprintln(c.App.Writer)
			err = report.WriteBreakEvenTable(c.App.Writer, be)
		}
	}
	if err != nil {
		return runErr(err)
	}
	if p := c.String("plot"); p != "" {
		if err := report.SpeedupChart(rows, sc.MachineText(), filepath.Base(c.String("params"))).Save(p, 0, 0); err != nil {
			return runErr(err)
		}
	}
	if p := c.String("time-plot"); p != "" {
		if err := report.TimeChart(rows, sc.Node.ClockHz, sc.MachineText()).Save(p, 0, 0); err != nil {
			return runErr(err)
		}
	}
	if p := c.String("tier-plot"); p != "" {
		ch := report.AppTierChart(rows, sc.MachineText(), filepath.Base(c.String("params")))
		if err := ch.Save(p, 8, 4); err != nil {
			return runErr(err)
		}
	}
	if p := c.String("breakeven-plot"); p != "" {
		if err := report.BreakEvenChart(be, sc.MachineText()).Save(p, 0, 0); err != nil {
			return runErr(err)
		}
	}
	if p := c.String("ratio-plot"); p != "" {
		ch := report.RatioChart(rows, sc.MachineText())
		if len(ch.Series) == 0 {
			return usageErr("--ratio-plot needs both versions (--versions mpi,native)")
		}
		if err := ch.Save(p, 0, 0); err != nil {
			return runErr(err)
		}
	}
	return nil
}
