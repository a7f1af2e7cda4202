// Command nocsim simulates the SCMP single-chip message-passing
// multiprocessor's network. Run without arguments it simulates the embedded
// default scenario; `nocsim help` lists the commands.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

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
	app.Metadata = map[string]any{provenanceKey: scenarios.BuildProvenance(version, args), argsKey: args}
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
	app := &cli.App{
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
		Commands:       []*cli.Command{nocCommand(), pingpongCommand(), pairsCommand(), collCommand(), calibrateCommand(), predictCommand(), appCommand(), thesisCommand(), runCommand(), validateCommand(), sweepCommand(), goalCommand(), traceCommand(), reportCommand()},
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   func(_ *cli.Context, err error, _ bool) error { return usageErr("%v (see nocsim help)", err) },
	}
	checkArgsFirst("nocsim", app.Commands)
	return app
}

// positionalArgs names the arguments of the commands that take some and
// leave trailing flags unparsed. urfave/cli stops parsing flags at the
// first argument, so "run FILE -q" would hand "-q" over as a second file.
var positionalArgs = map[string]string{"run": "FILE", "validate": "FILE", "sweep": "FILE", "sweep merge": "SHARD_DIR...", "report": "DIR"}

// ownArgs are the commands that take a FILE and parse the flags after it
// themselves (goalFile): no check of theirs here.
var ownArgs = []string{"goal run", "goal compare"}

// checkArgsFirst wraps the action of every command (and subcommand) with
// a check of its arguments that runs before the command's own: a flag
// after a positional argument is refused with the command line that works,
// and, for a command without arguments, an argument right after a
// boolean flag (its value given with a space: --preempt-threads false) is
// explained.
func checkArgsFirst(prefix string, cs []*cli.Command) {
	for _, cmd := range cs {
		path := strings.TrimPrefix(prefix+" "+cmd.Name, "nocsim ")
		checkArgsFirst(prefix+" "+cmd.Name, cmd.Subcommands)
		if cmd.Action == nil || slices.Contains(ownArgs, path) {
			continue
		}
		action, argName := cmd.Action, positionalArgs[path]
		cmd.Action = func(c *cli.Context) error {
			if err := argsInOrder(c, path, argName); err != nil {
				return err
			}
			return action(c)
		}
	}
}

// argsInOrder is checkArgsFirst's check for one command line.
func argsInOrder(c *cli.Context, path, argName string) error {
	args := c.Args().Slice()
	if argName == "" {
		if len(args) > 0 {
			return boolValueAfterSpace(c, path, args)
		}
		return nil
	}
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, shellWord(a))
			continue
		}
		name, _, withValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := commandFlag(c.Command, name)
		if f == nil {
			return usageErr("%s after %s: nocsim %s has no such flag (see nocsim %s --help)", a, argName, path, path)
		}
		flags = append(flags, shellWord(a))
		if tv, ok := f.(cli.DocGenerationFlag); ok && tv.TakesValue() && !withValue && i+1 < len(args) {
			i++
			flags = append(flags, shellWord(args[i]))
		}
	}
	if len(flags) == 0 {
		return nil
	}
	return usageErr("flags go before %s: nocsim %s %s %s", argName, path, strings.Join(flags, " "), strings.Join(pos, " "))
}

// boolValueAfterSpace explains a command's first argument when a boolean
// flag precedes it on the command line: "--preempt-threads false" set the
// flag to true and left "false" as an argument. Otherwise the command's
// own check of its arguments speaks.
func boolValueAfterSpace(c *cli.Context, path string, args []string) error {
	raw, _ := c.App.Metadata[argsKey].([]string)
	i := len(raw) - len(args) - 1
	if i < 0 || !slices.Equal(raw[i+1:], args) || !strings.HasPrefix(raw[i], "-") || strings.Contains(raw[i], "=") {
		return nil
	}
	f := commandFlag(c.Command, strings.TrimLeft(raw[i], "-"))
	if tv, ok := f.(cli.DocGenerationFlag); !ok || tv.TakesValue() {
		return nil
	}
	return usageErr("%s %s: a boolean flag takes its value after =: allowed %s (true), %s=true or %s=false (nocsim %s takes no arguments)",
		raw[i], args[0], raw[i], raw[i], raw[i], path)
}

// commandFlag is the command's flag of that name or alias, nil if none.
func commandFlag(cmd *cli.Command, name string) cli.Flag {
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// shellWord quotes an argument that the shell would split or expand.
func shellWord(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n'\"$`\\*?[]{}()<>|&;#~") {
		return strconv.Quote(s)
	}
	return s
}

var versionFlag = &cli.BoolFlag{Name: "version", Usage: "print the nocsim version, the VCS revision it was built from and the Go version"}

// argsKey holds, in the app's metadata, the command line as given, so that
// an argument can be told apart by what precedes it (argsInOrder).
const argsKey = "args"

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
