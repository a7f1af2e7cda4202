package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"nocsim/scenarios"
	"nocsim/scenarios/study"
)

// version is written into every result directory (meta.json) and printed
// by nocsim --version.
const version = "0.6.0-dev"

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run one scenario file: its [workload] on the machine it describes; results, configuration and charts go to [output] dir",
		UsageText: "nocsim run scenarios/examples/cg-mpi-vs-native.toml",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "workers", Usage: "runs simulated in parallel (0 = one per core); results do not depend on it"},
			traceFlag,
			reportFlag,
			quietFlag,
		},
		Action: func(c *cli.Context) error {
			if err := checkWorkers(c, "workers"); err != nil {
				return err
			}
			sc, src, err := loadScenarioArg(c)
			if err != nil {
				return err
			}
			if err := checkRunDir(&sc); err != nil {
				return err
			}
			// run would ignore the axes and give one point silently, which
			// reads as the sweep's result.
			if len(sc.Sweep.Axis) > 0 || sc.Sweep.Reps > 1 {
				return usageErr("run %s: the file has a [sweep] (%d axes, reps %d); allowed: run it with `nocsim sweep %s`, or remove [sweep] to run its own settings once",
					c.Args().First(), len(sc.Sweep.Axis), max(sc.Sweep.Reps, 1), c.Args().First())
			}
			if c.String("trace") != "" {
				if err := study.CheckTrace(&sc); err != nil {
					return usageErr("--trace = %q: %v", c.String("trace"), err)
				}
				if err := checkOutputFlags(c, []string{"trace"}, nil); err != nil {
					return err
				}
			}
			if validateOnly {
				return nil
			}
			job := startJob(c, fmt.Sprintf("run %s (%s)", sc.Name, sc.Workload.Kind))
			defer job.stop()
			opt := scenarios.RunOptions{Workers: c.Int("workers"), Progress: job.bar.Update, Speed: &job.speed, Report: c.Bool("report")}
			traces := traceSet(c, &opt)
			sum, err := study.Run(&sc, src, provenance(c), opt)
			job.stop()
			if err != nil {
				return runErr(err)
			}
			if err := writeTraceFile(c, traces); err != nil {
				return err
			}
			if sum.Speed != nil {
				job.report(*sum.Speed)
			}
			printSummary(c.App.Writer, fmt.Sprintf("scenario %q: %s", sc.Name, sc.Workload.Kind), "results in", sum)
			return nil
		},
		OnUsageError: onUsageError("run", false),
	}
}

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check a scenario file (types, ranges, P against the mesh, the workload) and print the effective configuration, defaults marked",
		UsageText: "nocsim validate FILE",
		Action: func(c *cli.Context) error {
			sc, src, err := loadScenarioArg(c)
			if err != nil {
				return err
			}
			if err := checkRunDir(&sc); err != nil {
				return err
			}
			eff, err := sc.EffectiveTOML(src)
			if err != nil {
				return runErr(err)
			}
			fmt.Fprint(c.App.Writer, eff)
			return nil
		},
		OnUsageError: onUsageError("validate", false),
	}
}

// loadScenarioArg reads and checks the scenario file named by the one
// argument.
func loadScenarioArg(c *cli.Context) (scenarios.Scenario, scenarios.Source, error) {
	if c.NArg() != 1 {
		return scenarios.Scenario{}, nil, usageErr("%s needs one scenario file, got %d arguments", c.Command.Name, c.NArg())
	}
	sc, src, err := scenarios.LoadFile(c.Args().First())
	if err != nil {
		return sc, nil, usageErr("%v", err)
	}
	if err := study.Check(&sc, src); err != nil {
		return sc, nil, usageErr("%v", err)
	}
	return sc, src, nil
}

// quiet honours --quiet given to the command or before it.
func quiet(c *cli.Context) bool {
	for _, ctx := range c.Lineage() {
		if ctx.Bool("quiet") {
			return true
		}
	}
	return false
}

// defaultDir is where the main job writes.
const defaultDir = "nocsim-results"

// runDefault is the main job: the embedded default study, written into
// ./nocsim-results.
func runDefault(c *cli.Context) error {
	if err := checkOutputDir("the main job's output directory", defaultDir); err != nil {
		return err
	}
	if err := scenarios.CheckReplaceable(defaultDir); err != nil {
		return usageErr("the main job's output directory: %v", err)
	}
	logf := func(s string) {
		if !quiet(c) {
			fmt.Fprintln(c.App.ErrWriter, "nocsim: "+s)
		}
	}
	if validateOnly {
		return nil
	}
	meter := scenarios.StartSpeed()
	sum, err := study.DefaultStudy(provenance(c), defaultDir, scenarios.RunOptions{Speed: &meter}, logf)
	if err != nil {
		return runErr(err)
	}
	if sum.Speed != nil {
		logf(sum.Speed.String())
	}
	printSummary(c.App.Writer, "nocsim default study (embedded scenario; see docs/commands/nocsim.md):", "results and charts in", sum)
	return nil
}

// printSummary prints what a scenario's run found and wrote.
func printSummary(out io.Writer, head, filesIn string, sum study.Summary) {
	fmt.Fprintln(out, head)
	for _, l := range sum.Lines {
		fmt.Fprintln(out, "  "+l)
	}
	fmt.Fprintf(out, "%s %s:\n", filesIn, sum.Dir)
	for _, f := range sum.Files {
		fmt.Fprintln(out, "  "+f)
	}
}
