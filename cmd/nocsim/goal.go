package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"

	"nocsim/logp"
	"nocsim/logp/goal"
	"nocsim/logp/loggops"
	"nocsim/mpi/trace"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/progress"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

// goalCommand is the parent of the commands that work with GOAL schedules
// (LogGOPSim's text format).
func goalCommand() *cli.Command {
	return parentCommand("goal", "GOAL schedules (LogGOPSim's format): run one on the LogGOPS tier or the flit-level chip, compare the two, or generate a collective's",
		"run, compare or gen", goalRunCommand(), goalCompareCommand(), goalGenCommand())
}

// parentCommand is a command that only holds subcommands (named in
// names, for its error): given none, or one it does not know, it refuses
// in one line.
func parentCommand(name, usage, names string, subs ...*cli.Command) *cli.Command {
	return &cli.Command{
		Name:               name,
		Usage:              usage,
		Subcommands:        subs,
		CustomHelpTemplate: subcommandsHelpTemplate,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErr("%s: unknown subcommand %q (see nocsim %s --help)", name, c.Args().First(), name)
			}
			return usageErr("%s needs a subcommand: %s (see nocsim %s --help)", name, names, name)
		},
		OnUsageError: onUsageError(name, true),
	}
}

func goalRunCommand() *cli.Command {
	flags := append(logGOPSFlags(), []cli.Flag{
		&cli.StringFlag{Name: "params", Usage: "LogGOPS tier with fitted parameters (nocsim calibrate --out): the fitted segments, ranks in order on the fitted mesh (hop-aware latency), S from the fitted protocol"},
		&cli.StringFlag{Name: "config", Usage: "flit level: scenario TOML file for the machine; flags override its keys"},
		&cli.StringFlag{Name: "goal-out", Usage: "flit level: record the run's own communication as a GOAL schedule to `FILE`"},
		&cli.BoolFlag{Name: "json", Usage: `print a JSON object: {"tier", "max_finish", "rank_finish", ...} (cycles; energy in pJ)`},
		quietFlag,
	}...)
	return command{
		name:    "goal run",
		fileArg: true,
		usage:   "run a GOAL schedule: on the LogGOPS tier (--params FILE or --L --o --g --G --O --S) or on the flit-level chip (--mesh WxH, rank r on tile r); prints each rank's finish time",
		usageText: "nocsim goal run FILE --L 6 --o 2 --g 4\n" +
			"nocsim goal run FILE --params params.toml\n" +
			"nocsim goal run FILE --mesh 4x4 [machine flags]",
		flags: append(flags, keyFlags(pricedSections, "procs")...),
		build: buildGoalRun,
	}.cli()
}

// goalFile returns a goal subcommand's schedule file. Flags may follow it
// (as in "goal run FILE --mesh 4x4"): urfave/cli stops parsing flags at the
// first argument, so the rest are parsed here with the command's own flags.
func goalFile(c *cli.Context) (string, error) {
	name := "goal " + c.Command.Name
	if c.NArg() == 0 {
		return "", usageErr("%s needs a GOAL schedule file (nocsim %s FILE ...)", name, name)
	}
	if rest := c.Args().Tail(); len(rest) > 0 {
		set := flag.NewFlagSet(name, flag.ContinueOnError)
		set.SetOutput(io.Discard)
		for _, f := range c.Command.Flags {
			if err := f.Apply(set); err != nil {
				return "", usageErr("%s: %v", name, err)
			}
		}
		if err := set.Parse(rest); err != nil {
			return "", usageErr("%s: %v (see nocsim %s --help)", name, err, name)
		}
		if set.NArg() > 0 {
			return "", usageErr("%s takes one schedule file, got also %q", name, set.Args())
		}
		var err error
		set.Visit(func(f *flag.Flag) {
			if err == nil {
				if e := c.Set(f.Name, f.Value.String()); e != nil {
					err = usageErr("%s: --%s: %v", name, f.Name, e)
				}
			}
		})
		if err != nil {
			return "", err
		}
	}
	return c.Args().First(), nil
}

func buildGoalRun(c *cli.Context) (*workload, error) {
	path, err := goalFile(c)
	if err != nil {
		return nil, err
	}
	given := givenFlags(c)
	flit, err := goalRunTier(given, "goal run")
	if err != nil {
		return nil, err
	}
	return scheduleRun(c, given, flit, func() (*goal.Schedule, error) { return readGoalFile("goal run", path) })
}

// readGoalFile reads a GOAL schedule whole: a syntax error is bad input,
// named by line and column.
func readGoalFile(name, path string) (*goal.Schedule, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageErr("%s: %v", name, err)
	}
	s, err := goal.Read(f) // streamed: memory holds the schedule, not the text
	f.Close()
	var perr *fs.PathError
	if errors.As(err, &perr) {
		return nil, usageErr("%s: %v", name, perr)
	}
	if err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	return s, nil
}

// scheduleRun is goal run's workload (and trace run's): the schedule
// load gives, on the tier the flags chose.
func scheduleRun(c *cli.Context, given map[string]bool, flit bool, load func() (*goal.Schedule, error)) (*workload, error) {
	var err error
	var p loggops.Params
	if !flit {
		if p, err = goalTierParams(c, given); err != nil {
			return nil, err
		}
	}
	var sc scenarios.Scenario
	var src scenarios.Source
	if flit {
		if sc, src, err = scenarioFrom(c, "procs"); err != nil {
			return nil, err
		}
	}
	// The schedule is read whole before anything runs.
	s, err := load()
	if err != nil {
		return nil, err
	}
	var fitted *logp.Params // the fitted parameters, which may price the schedule
	if !flit && given["params"] {
		f, err := readParams(c)
		if err != nil {
			return nil, err
		}
		fitted = &f
		// --S, when given, wins over the fitted protocol's threshold.
		if p, err = study.GoalTierParams(f, s.NumRanks(), p.S, given["S"]); err != nil {
			return nil, usageErr("--params: %v", err)
		}
	}
	if flit {
		if err := study.CheckGoalFlit(&sc, s, src); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	var res *report.GoalResult
	return &workload{
		outputs: []string{"goal-out"},
		run: func(opt scenarios.RunOptions, _ *job) error {
			if flit {
				var record func(*trace.Trace)
				if opt.Record != nil {
					record = func(t *trace.Trace) { opt.Record("replay", t) }
				}
				res, err = study.RunGoalFlit(&sc, s, record)
				return err
			}
			tp := progress.StartTier(c.App.ErrWriter, "goal run (loggops)", quiet(c))
			res, err = study.RunGoalTier(s, p, fitted, tp.Update)
			tp.Stop(res != nil)
			return err
		},
		print: func(w io.Writer, asJSON bool) error {
			if asJSON {
				return report.WriteJSON(w, res)
			}
			return report.WriteGoalTable(w, res)
		},
	}, nil
}

// goalRunTier says which tier goal run runs on, from the flags given:
// the flit-level chip (--mesh) or the LogGOPS tier, never both.
func goalRunTier(given map[string]bool, name string) (flit bool, err error) {
	var machine []string // machine flags given
	for _, f := range keyFlags(pricedSections, "procs") {
		if given[f.Names()[0]] {
			machine = append(machine, f.Names()[0])
		}
	}
	if given["config"] {
		machine = append(machine, "config")
	}
	var tier []string // LogGOPS flags given
	for _, n := range append([]string{"params", "S"}, logGOPSNames...) {
		if given[n] {
			tier = append(tier, n)
		}
	}
	flit = given["mesh"]
	switch {
	case flit && len(tier) > 0:
		return false, usageErr("--%s is a LogGOPS-tier parameter and --mesh runs the flit-level chip: give one tier", tier[0])
	case !flit && len(machine) > 0:
		return false, usageErr("--%s describes the flit-level chip: add --mesh WxH to run there (the LogGOPS tier takes --params or --L --o --g --G --O --S)", machine[0])
	case !flit && len(tier) == 0:
		return false, usageErr("%s needs a tier: --params FILE or --L --o --g --G --O --S (LogGOPS), or --mesh WxH (the flit-level chip)", name)
	case !flit && given["goal-out"] && name == "goal run":
		return false, usageErr("--goal-out records a flit-level run: add --mesh WxH")
	}
	return flit, nil
}

// goalTierParams reads goal run's LogGOPS flags (--params is read later,
// with the schedule): the two ways are exclusive.
func goalTierParams(c *cli.Context, given map[string]bool) (loggops.Params, error) {
	if given["params"] {
		for _, n := range logGOPSNames {
			if given[n] {
				return loggops.Params{}, usageErr("--%s and --params: give the parameters as flags or as a file, not both (--S may go with either)", n)
			}
		}
	}
	return logGOPSFromFlags(c, given)
}

// goalRecording sets up --goal-out for a command that runs several
// points: nil without the flag.
func goalRecording(c *cli.Context, opt *scenarios.RunOptions) *study.GoalRecording {
	if c.String("goal-out") == "" {
		return nil
	}
	rec := study.NewGoalRecording()
	opt.Record = rec.Record
	return rec
}

// writeGoalFiles writes the recorded schedules (see GoalRecording.Files);
// nothing when rec is nil.
func writeGoalFiles(c *cli.Context, rec *study.GoalRecording, path string) error {
	if rec == nil {
		return nil
	}
	files, err := rec.Files(path)
	if err != nil {
		return runErr(err)
	}
	if len(files) > 1 && !plots.ReplacesFile(path) {
		return runErr(fmt.Errorf("--goal-out = %q: %d runs were recorded, one schedule each into a file named after its run; allowed a file name, or a single run", path, len(files)))
	}
	for _, f := range files {
		if err := scenarios.WriteFile(f.Path, func(b *bytes.Buffer) error { _, err := b.Write(f.Text); return err }); err != nil {
			return runErr(err)
		}
		if !quiet(c) {
			fmt.Fprintf(c.App.ErrWriter, "goal-out: wrote %s\n", f.Path)
		}
	}
	return nil
}
