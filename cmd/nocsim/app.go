package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

func appCommand() *cli.Command {
	flags := []cli.Flag{
		configFlag,
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
	return command{
		name:      "app",
		usage:     "run an application (CG, QR, matrix multiply, global sum, halo exchange) in MPI and native SCMP versions over P and size",
		usageText: "nocsim app --mesh 4x4 --app cg --procs 1,4,16 --sizes 64,256 --plot cg.png",
		flags:     append(flags, keyFlags(pricedSections, "procs")...),
		build:     buildApp,
	}.cli()
}

// appSweep reads the flags that say which runs to make.
func appSweep(c *cli.Context) (*study.AppSweep, error) {
	if c.Int("app-seed") < 0 {
		return nil, usageErr("--app-seed = %d: allowed >= 0", c.Int("app-seed"))
	}
	sw := &study.AppSweep{App: c.String("app"), Variant: c.String("variant"), Seed: uint64(c.Int("app-seed")), Grid: c.String("grid")}
	if v := study.Apps[sw.App]; !c.IsSet("variant") && len(v) > 0 {
		sw.Variant = v[0]
	}
	var err error
	if sw.Procs, err = intList(c, "procs"); err != nil {
		return nil, err
	}
	if sw.Sizes, err = intList(c, "sizes"); err != nil {
		return nil, err
	}
	if c.IsSet("nonzeros") {
		if c.IsSet("sizes") {
			return nil, usageErr("--nonzeros and --sizes: allowed one of them (--nonzeros sizes a CG run)")
		}
		if sw.Sizes, err = intList(c, "nonzeros"); err != nil {
			return nil, err
		}
		sw.Nonzeros = true
	}
	if c.IsSet("distribute") {
		sw.Distribute = wordList(c, "distribute")
	}
	sw.Versions = wordList(c, "versions")
	if !c.IsSet("versions") && sw.MPIOnly() {
		sw.Versions = []string{"mpi"} // one-sided MPI has no native version
	}
	return sw, nil
}

// checkAppOutputs refuses outputs the runs asked for cannot give.
func checkAppOutputs(c *cli.Context, sw *study.AppSweep) error {
	mpiRuns := slices.Contains(sw.Versions, "mpi")
	if err := needMPIRuns(c, sw.Versions, "trace", "goal-out"); err != nil {
		return err
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
	if c.IsSet("tier-plot") && (!c.IsSet("params") || !mpiRuns) {
		return usageErr("--tier-plot = %q: needs --params (the tier's parameters) and MPI runs (--versions with mpi)", c.String("tier-plot"))
	}
	return nil
}

// needMPIRuns refuses a flag that records MPI runs when --versions has
// none (app, pairs).
func needMPIRuns(c *cli.Context, versions []string, flags ...string) error {
	for _, f := range flags {
		if c.String(f) != "" && !slices.Contains(versions, "mpi") {
			return usageErr("--%s records the MPI version's runs: --versions = %s has no mpi", f, c.String("versions"))
		}
	}
	return nil
}

func buildApp(c *cli.Context) (*workload, error) {
	sc, src, err := scenarioFrom(c, "procs")
	if err != nil {
		return nil, err
	}
	sw, err := appSweep(c)
	if err != nil {
		return nil, err
	}
	if err := sw.Check(&sc, src); err != nil {
		return nil, flagError(err, nil, "app", "variant", "procs", "sizes", "versions", "nonzeros", "distribute", "grid")
	}
	if err := checkWorkers(c, "workers"); err != nil {
		return nil, err
	}
	if err := checkAppOutputs(c, sw); err != nil {
		return nil, err
	}
	if c.String("params") != "" {
		if sw.Params, err = paramsForRun(c, &sc); err != nil {
			return nil, err
		}
	}
	var rows []report.AppRow
	var be []report.BreakEven
	machine, params := sc.MachineText(), filepath.Base(c.String("params"))
	return &workload{
		label: "app", outputs: []string{"plot", "time-plot", "ratio-plot", "breakeven-plot", "goal-out", "tier-plot", "trace"}, traceRuns: true,
		run: func(opt scenarios.RunOptions, _ *job) error {
			rows, err = sw.Run(&sc, opt)
			if err != nil {
				return err
			}
			if sw.BreakEven() {
				be = report.GlobalSumBreakEven(rows)
			}
			return nil
		},
		print: func(w io.Writer, asJSON bool) error {
			switch {
			case asJSON && be != nil:
				return report.WriteJSON(w, report.BreakEvenResult{Runs: rows, BreakEven: be})
			case asJSON:
				return report.WriteJSON(w, rows)
			}
			err := report.WriteAppTable(w, rows)
			if err == nil && sw.App == "matmul" && sw.Params != nil {
				fmt.Fprintln(w)
				err = report.WriteMatMulScaling(w, rows)
			}
			if err == nil && be != nil {
				fmt.Fprintln(w)
				err = report.WriteBreakEvenTable(w, be)
			}
			return err
		},
		charts: []chart{
			plotFlag(c, "plot", func() plots.Chart { return report.SpeedupChart(rows, machine, params) }),
			plotFlag(c, "time-plot", func() plots.Chart { return report.TimeChart(rows, sc.Node.ClockHz, machine) }),
			{flag: "tier-plot", path: c.String("tier-plot"), w: 8, h: 4, draw: func() (plots.Chart, error) { return report.AppTierChart(rows, machine, params), nil }},
			plotFlag(c, "breakeven-plot", func() plots.Chart { return report.BreakEvenChart(be, machine) }),
			{flag: "ratio-plot", path: c.String("ratio-plot"), draw: func() (plots.Chart, error) {
				ch := report.RatioChart(rows, machine)
				if len(ch.Series) == 0 {
					return ch, usageErr("--ratio-plot needs both versions (--versions mpi,native)")
				}
				return ch, nil
			}},
		},
		verify: wrongAnswers(&rows, func(r report.AppRow) bool { return r.Correct }, func(r report.AppRow) error {
			return fmt.Errorf("%s %s, P=%d, size %d: wrong answer (%s)", r.App, r.Version, r.Procs, r.Size, r.Detail)
		}),
	}, nil
}
