package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"nocsim/logp/goal"
	"nocsim/mpi/trace"
	"nocsim/plots"
	"nocsim/scenarios/study"
)

func goalCompareCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "scenario TOML file; flags override its keys"},
		&cli.StringFlag{Name: "params", Usage: "fitted LogGP parameters (nocsim calibrate --out) for the LogGOPS tier"},
		&cli.BoolFlag{Name: "json", Usage: "print the comparison as a JSON object"},
		&cli.StringFlag{Name: "plot", Usage: "draw each rank's finish on both tiers to `FILE` (.png, .svg, .pdf)"},
		quietFlag,
	}
	return &cli.Command{
		Name:         "compare",
		Usage:        "run a GOAL schedule on the flit-level chip and on the LogGOPS tier with fitted parameters: predicted against simulated, per rank",
		UsageText:    "nocsim goal compare bcast.goal --mesh 4x4 --params params.toml --plot compare.png",
		Flags:        append(flags, keyFlags(machineSections)...),
		Action:       runGoalCompare,
		OnUsageError: onUsageError("goal compare", true),
	}
}

func runGoalCompare(c *cli.Context) error {
	path, err := goalFile(c)
	if err != nil {
		return err
	}
	if c.String("params") == "" {
		return usageErr("goal compare needs --params FILE (fitted parameters for the LogGOPS tier: nocsim calibrate --out)")
	}
	sc, _, err := machineFrom(c)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return usageErr("goal compare: %v", err)
	}
	s, err := goal.Read(f)
	f.Close()
	if err != nil {
		return usageErr("%s: %v", path, err)
	}
	if len(s.Ranks) > sc.Machine().Tiles() {
		return usageErr("%s: %d ranks, --mesh %s has %d tiles: allowed at most one rank per tile", path, len(s.Ranks), sc.Network.Mesh, sc.Machine().Tiles())
	}
	if _, err := trace.FromGoal(s); err != nil {
		return usageErr("%s: %v (the flit level cannot run it)", path, err)
	}
	sc.MPI.Procs = len(s.Ranks)
	p, err := paramsForRun(c, &sc)
	if err != nil {
		return err
	}
	if pl := c.String("plot"); pl != "" {
		if err := plots.CheckExt(pl); err != nil {
			return usageErr("--plot: %v", err)
		}
	}
	if validateOnly {
		return nil
	}
	if err := checkOutputFlags(c, []string{"plot"}, nil); err != nil {
		return err
	}
	if !quiet(c) {
		fmt.Fprintf(c.App.ErrWriter, "goal compare: %d ranks on the flit level and the LogGOPS tier ...\n", len(s.Ranks))
	}
	cmp, err := study.CompareSchedule(&sc, s, *p)
	if err != nil {
		return runErr(err)
	}
	if err := printResult(c, cmp, cmp.WriteTable); err != nil {
		return err
	}
	if pl := c.String("plot"); pl != "" {
		ch := cmp.Chart(filepath.Base(path), filepath.Base(c.String("params")))
		// The finish times' axis starts at 0; the few percent between the
		// tiers are read in a panel of their own under it.
		sim, pred := ch.Series[0].Name, ch.Series[1].Name
		ch.Diff = &plots.Diff{Of: pred, Base: sim, Label: "predicted - simulated (% of simulated)"}
		if err := ch.Save(pl, 8, 4); err != nil {
			return runErr(err)
		}
	}
	return nil
}
