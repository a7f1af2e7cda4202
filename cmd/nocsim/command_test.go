package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"nocsim/plots"
	"nocsim/scenarios"
)

// runToy runs a workload command built from w through the skeleton and
// returns the exit status (0, or the ExitCoder's), the message, stdout and
// the steps taken in order.
func runToy(t *testing.T, w func(steps *[]string) *workload, args ...string) (int, string, string, []string) {
	t.Helper()
	var steps []string
	cmd := command{name: "toy", flags: []cli.Flag{
		&cli.StringFlag{Name: "plot"}, &cli.StringFlag{Name: "csv"}, &cli.BoolFlag{Name: "json"}, quietFlag,
	}, build: func(*cli.Context) (*workload, error) { return w(&steps), nil }}
	var stdout bytes.Buffer
	app := &cli.App{Writer: &stdout, ErrWriter: io.Discard, Commands: []*cli.Command{cmd.cli()}, ExitErrHandler: func(*cli.Context, error) {}}
	err := app.Run(append([]string{"nocsim", "toy", "-q"}, args...))
	code, msg := 0, ""
	if err != nil {
		var ec cli.ExitCoder
		if !errors.As(err, &ec) {
			t.Fatalf("%v: not an exit error", err)
		}
		code, msg = ec.ExitCode(), err.Error()
	}
	return code, msg, stdout.String(), steps
}

// toy is a workload that records each step the skeleton asks of it;
// runFails and wrong make its run fail or its answer wrong. Its chart has
// no path: it checks --plot but never draws.
func toy(runFails, wrong bool) func(steps *[]string) *workload {
	return func(steps *[]string) *workload {
		step := func(s string) { *steps = append(*steps, s) }
		return &workload{
			label: "toy", outputs: []string{"plot", "csv"},
			run: func(scenarios.RunOptions, *job) error {
				step("run")
				if runFails {
					return errors.New("deadlock")
				}
				return nil
			},
			print: func(w io.Writer, asJSON bool) error {
				step("print")
				if asJSON {
					_, err := io.WriteString(w, "[]\n")
					return err
				}
				_, err := io.WriteString(w, "table\n")
				return err
			},
			files: []file{{flag: "csv", write: func(b *bytes.Buffer) error { step("csv"); _, err := b.WriteString("a,b\n"); return err }}},
			charts: []chart{{flag: "plot", draw: func() (plots.Chart, error) {
				step("plot")
				return plots.Chart{}, errors.New("no chart")
			}}},
			verify: func() error {
				step("verify")
				if wrong {
					return errors.New("wrong answer")
				}
				return nil
			},
		}
	}
}

// The skeleton's contract, which every workload command relies on: bad
// input is refused with exit 2 before the workload runs; a failed run is
// exit 1 with nothing printed; the table (or JSON) comes before the files,
// and a wrong answer is refused (exit 1) only once every output is written.
func TestWorkloadSkeletonOrder(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "t.csv")

	code, msg, out, steps := runToy(t, toy(false, false), "extra")
	if code != exitUsage || msg != `toy takes no arguments, got ["extra"]` || len(steps) != 0 {
		t.Errorf("argument: exit %d %q, steps %v; want exit 2, nothing run", code, msg, steps)
	}
	code, msg, _, steps = runToy(t, toy(false, false), "--plot", filepath.Join(dir, "p.gif"))
	if code != exitUsage || !strings.HasPrefix(msg, "--plot: ") || len(steps) != 0 {
		t.Errorf("chart format: exit %d %q, steps %v; want exit 2 naming --plot, nothing run", code, msg, steps)
	}
	same := filepath.Join(dir, "t.png")
	code, msg, _, steps = runToy(t, toy(false, false), "--plot", same, "--csv", same)
	if code != exitUsage || !strings.Contains(msg, "name one file") || len(steps) != 0 {
		t.Errorf("one file twice: exit %d %q, steps %v; want exit 2, nothing run", code, msg, steps)
	}
	code, msg, out, steps = runToy(t, toy(true, false), "--csv", csv)
	if code != exitRun || msg != "deadlock" || out != "" || strings.Join(steps, " ") != "run" {
		t.Errorf("failed run: exit %d %q, stdout %q, steps %v; want exit 1, nothing printed", code, msg, out, steps)
	}
	code, msg, out, steps = runToy(t, toy(false, true), "--csv", csv, "--json")
	if code != exitRun || msg != "wrong answer" || out != "[]\n" || strings.Join(steps, " ") != "run print csv verify" {
		t.Errorf("wrong answer: exit %d %q, stdout %q, steps %v; want exit 1 after JSON and the CSV", code, msg, out, steps)
	}
	if b, err := os.ReadFile(csv); err != nil || string(b) != "a,b\n" {
		t.Errorf("--csv wrote %q (%v); want the workload's file whole", b, err)
	}
	code, _, out, steps = runToy(t, toy(false, false))
	if code != 0 || out != "table\n" || strings.Join(steps, " ") != "run print verify" {
		t.Errorf("plain run: exit %d, stdout %q, steps %v; want the table, no files", code, out, steps)
	}
}
