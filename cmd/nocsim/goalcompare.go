package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"nocsim/logp"
	"nocsim/logp/goal"
	"nocsim/mpi/trace"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

func goalCompareCommand() *cli.Command {
	flags := []cli.Flag{
		configFlag,
		&cli.StringFlag{Name: "params", Usage: "fitted LogGP parameters (nocsim calibrate --out) for the LogGOPS tier"},
		&cli.BoolFlag{Name: "json", Usage: "print the comparison as a JSON object"},
		&cli.StringFlag{Name: "plot", Usage: "draw each rank's finish on both tiers to `FILE` (.png, .svg, .pdf)"},
		quietFlag,
	}
	return command{
		name:      "goal compare",
		fileArg:   true,
		usage:     "run a GOAL schedule on the flit-level chip and on the LogGOPS tier with fitted parameters: predicted against simulated, per rank (and energy, where priced)",
		usageText: "nocsim goal compare bcast.goal --mesh 4x4 --params params.toml --plot compare.png",
		flags:     append(flags, keyFlags(pricedSections)...),
		build:     buildGoalCompare,
	}.cli()
}

func buildGoalCompare(c *cli.Context) (*workload, error) {
	path, err := goalFile(c)
	if err != nil {
		return nil, err
	}
	if c.String("params") == "" {
		return nil, usageErr("goal compare needs --params FILE (fitted parameters for the LogGOPS tier: nocsim calibrate --out)")
	}
	return scheduleCompare(c, "goal compare", path, func() (*goal.Schedule, error) { return readGoalFile("goal compare", path) }, nil)
}

// chipCompare runs a schedule's comparison on a checked machine (nil:
// study.CompareSchedule); check, when set, refuses a machine that cannot
// run it, before anything runs.
type chipCompare struct {
	check func(sc *scenarios.Scenario) error
	run   func(sc *scenarios.Scenario, s *goal.Schedule, p logp.Params) (*report.ScheduleComparison, error)
}

// scheduleCompare is goal compare's workload (and trace compare's): the
// schedule load gives on both tiers; path names it in errors and charts.
func scheduleCompare(c *cli.Context, name, path string, load func() (*goal.Schedule, error), chip *chipCompare) (*workload, error) {
	sc, _, err := machineFrom(c)
	if err != nil {
		return nil, err
	}
	s, err := load()
	if err != nil {
		return nil, err
	}
	if s.NumRanks() > sc.Machine().Tiles() {
		return nil, usageErr("%s: %d ranks, --mesh %s has %d tiles: allowed at most one rank per tile", path, s.NumRanks(), sc.Network.Mesh, sc.Machine().Tiles())
	}
	if _, err := trace.FromGoal(s); err != nil {
		return nil, usageErr("%s: %v (the flit level cannot run it)", path, err)
	}
	sc.MPI.Procs = s.NumRanks()
	p, err := paramsForRun(c, &sc)
	if err != nil {
		return nil, err
	}
	compare := study.CompareSchedule
	if chip != nil {
		if err := chip.check(&sc); err != nil {
			return nil, usageErr("%v", err)
		}
		compare = chip.run
	}
	var cmp *report.ScheduleComparison
	return &workload{
		outputs: []string{"plot"},
		run: func(scenarios.RunOptions, *job) error {
			if !quiet(c) {
				fmt.Fprintf(c.App.ErrWriter, "%s: %d ranks on the flit level and the LogGOPS tier ...\n", name, s.NumRanks())
			}
			cmp, err = compare(&sc, s, *p)
			return err
		},
		print: func(w io.Writer, asJSON bool) error {
			if asJSON {
				return report.WriteJSON(w, cmp)
			}
			return cmp.WriteTable(w)
		},
		charts: []chart{{flag: "plot", path: c.String("plot"), w: 8, h: 4, draw: func() (plots.Chart, error) {
			ch := cmp.Chart(filepath.Base(path), filepath.Base(c.String("params")))
			// The finish times' axis starts at 0; the few percent between the
			// tiers are read in a panel of their own under it.
			sim, pred := ch.Series[0].Name, ch.Series[1].Name
			ch.Diff = &plots.Diff{Of: pred, Base: sim, Label: "predicted - simulated (% of simulated)"}
			return ch, nil
		}}},
	}, nil
}
