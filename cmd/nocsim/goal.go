package main

import "github.com/urfave/cli/v2"

// goalCommand groups the commands on GOAL schedules.
func goalCommand() *cli.Command {
	return &cli.Command{
		Name:        "goal",
		Usage:       "GOAL schedules (LogGOPSim's text format): generate them",
		Subcommands: []*cli.Command{goalGenCommand()},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageErr("goal: %v (see nocsim goal --help)", err)
		},
	}
}
