package main

import "github.com/urfave/cli/v2"

// goalCommand groups the commands on GOAL schedules (LogGOPSim's text
// format).
func goalCommand() *cli.Command {
	return &cli.Command{
		Name:        "goal",
		Usage:       "GOAL schedules (LogGOPSim's format) on the flit-level chip and the LogGOPS tier",
		Subcommands: []*cli.Command{goalCompareCommand()},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErr("goal: unknown command %q (allowed: compare)", c.Args().First())
			}
			return cli.ShowSubcommandHelp(c)
		},
	}
}

// goalArgs lets a goal subcommand take its file before its flags, as
// `nocsim goal compare FILE --mesh 4x4 --params P` (urfave/cli stops
// parsing flags at the first argument): a file right after the
// subcommand, followed by a flag, moves to the end of the line.
func goalArgs(args []string) []string {
	for i := 1; i+2 < len(args); i++ {
		if args[i] != "goal" {
			if len(args[i]) > 0 && args[i][0] == '-' {
				continue // a global flag such as --quiet
			}
			return args
		}
		file, next := args[i+2], ""
		if i+3 < len(args) {
			next = args[i+3]
		}
		if file == "" || file[0] == '-' || next == "" || next[0] != '-' {
			return args
		}
		out := append(append([]string{}, args[:i+2]...), args[i+3:]...)
		return append(out, file)
	}
	return args
}
