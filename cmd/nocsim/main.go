// Command nocsim simulates the SCMP single-chip message-passing
// multiprocessor's network. Run without arguments it simulates the embedded
// default scenario; `nocsim help` lists the commands.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"nocsim/scenarios"
)

// Exit statuses: 2 for bad input (nothing was simulated), 1 for a run that
// could not finish (a deadlock) or an output that could not be written.
const (
	exitRun   = 1
	exitUsage = 2
)

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	app.Metadata = map[string]any{provenanceKey: scenarios.BuildProvenance(version, args)}
	err := app.Run(args)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "nocsim:", err)
	var ec cli.ExitCoder
	if errors.As(err, &ec) && (ec.ExitCode() == exitRun || ec.ExitCode() == exitUsage) {
		return ec.ExitCode()
	}
	// Errors urfave/cli returns itself are about the command line (its
	// help command exits 3 for an unknown topic).
	return exitUsage
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:      "nocsim",
		Usage:     "simulate message passing on the SCMP network-on-chip",
		UsageText: "nocsim [--quiet]                 run the embedded default scenario (the main job)\nnocsim COMMAND [flags] [args]    one of the commands below; nocsim help COMMAND lists its flags\n\nEvery command and flag: docs/commands/README.md",
		Writer:    stdout,
		ErrWriter: stderr,
		Flags:     []cli.Flag{quietFlag, versionFlag},
		Before: func(c *cli.Context) error {
			if c.Bool("version") && c.NArg() > 0 {
				return usageErr("--version prints the version and takes no command, got %q", c.Args().First())
			}
			return nil
		},
		Action: func(c *cli.Context) error {
			if c.Bool("version") {
				p := provenance(c)
				fmt.Fprintf(c.App.Writer, "nocsim %s\nrevision %s (modified: %s)\n%s\n", p.Version, p.Revision, p.Modified, p.GoVersion)
				return nil
			}
			if c.NArg() > 0 {
				return usageErr("unknown command %q (see nocsim help)", c.Args().First())
			}
			return runDefault(c)
		},
		Commands:       []*cli.Command{nocCommand(), pingpongCommand(), pairsCommand(), collCommand(), calibrateCommand(), predictCommand(), appCommand(), thesisCommand(), runCommand(), validateCommand(), sweepCommand(), goalCommand()},
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   func(_ *cli.Context, err error, _ bool) error { return usageErr("%v (see nocsim help)", err) },
	}
}

var versionFlag = &cli.BoolFlag{Name: "version", Usage: "print the nocsim version, the VCS revision it was built from and the Go version"}

// provenanceKey holds, in the app's metadata, what meta.json records about
// this build and command line.
const provenanceKey = "provenance"

func provenance(c *cli.Context) scenarios.Provenance {
	p, ok := c.App.Metadata[provenanceKey].(scenarios.Provenance)
	if !ok {
		return scenarios.BuildProvenance(version, nil)
	}
	return p
}

// validateOnly stops every command right after its input is validated,
// before anything is simulated or written. Tests set it, so that fuzzing
// the flags costs microseconds an input.
var validateOnly bool

var quietFlag = &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "nothing on stderr: no progress, no speed figures"}

func usageErr(format string, a ...any) error {
	return cli.Exit(fmt.Sprintf(format, a...), exitUsage)
}

func runErr(err error) error { return cli.Exit(err.Error(), exitRun) }
