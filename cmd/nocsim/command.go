package main

import (
	"bytes"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"nocsim/mpi/chrome"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

// The workload commands (noc, pingpong, pairs, coll, app, thesis) share
// one run skeleton: a command is its flags plus a function that checks
// them and builds a workload; runWorkload does the rest, in the same order
// for every command: check the outputs, start the progress display, run,
// write the GOAL schedules and the trace, print the table or JSON, write
// the files and charts, refuse wrong answers, report the speed.

// command describes one workload command.
type command struct {
	name      string // as typed after nocsim: "thesis fit"
	usage     string
	usageText string
	flags     []cli.Flag
	build     func(c *cli.Context) (*workload, error)
	// fileArg: the command takes a schedule file, read by build (goalFile).
	fileArg bool
}

// cli is the urfave/cli command that runs cmd through the skeleton.
func (cmd command) cli() *cli.Command {
	name := cmd.name[strings.LastIndex(cmd.name, " ")+1:]
	return &cli.Command{
		Name:         name,
		Usage:        cmd.usage,
		UsageText:    cmd.usageText,
		Flags:        cmd.flags,
		Action:       func(c *cli.Context) error { return runWorkload(c, cmd) },
		OnUsageError: onUsageError(cmd.name, true),
	}
}

// onUsageError prefixes urfave/cli's own complaints with the command's
// name (and, when seeHelp, where its flags are listed).
func onUsageError(name string, seeHelp bool) cli.OnUsageErrorFunc {
	return func(_ *cli.Context, err error, _ bool) error {
		if seeHelp {
			return usageErr("%s: %v (see nocsim %s --help)", name, err, name)
		}
		return usageErr("%s: %v", name, err)
	}
}

// workload is what a command's build function checked and set up: how to
// run it and what it writes.
type workload struct {
	label   string   // the progress display's; "": no display, no speed figures
	outputs []string // output file flags, checked in this order
	dirs    []string // output directory flags
	charts  []chart
	files   []file
	// traceRuns: --trace collects every MPI run's Chrome trace (traceFlag).
	traceRuns bool
	// convertsGoal: --goal-out is the command's own conversion (one of
	// files), not a recording of its MPI runs.
	convertsGoal bool
	run          func(opt scenarios.RunOptions, j *job) error // its error: exit 1
	print        func(w io.Writer, asJSON bool) error
	// after writes what follows the table (statistics, a directory of
	// charts); verify refuses wrong answers once everything is written.
	after, verify func() error
	flitHops      func() uint64 // for the speed figures; nil: not counted
}

// chart is one chart file: drawn when its flag is given, to path (the
// flag's value unless the command derives several files from it).
type chart struct {
	flag, path string
	w, h       float64 // inches; 0: plots' default
	draw       func() (plots.Chart, error)
}

// file is an output written whole from the results when its flag is given.
type file struct {
	flag  string
	write func(b *bytes.Buffer) error
	// suffix, when set, writes to the flag's path with suffix before its
	// extension: a second file of the same flag (suffixPath).
	suffix string
}

// noArgs refuses arguments to a command that takes none.
func noArgs(c *cli.Context, name string) error {
	if c.NArg() > 0 {
		return usageErr("%s takes no arguments, got %q", name, c.Args().Slice())
	}
	return nil
}

// runWorkload is the skeleton every workload command runs.
func runWorkload(c *cli.Context, cmd command) error {
	if !cmd.fileArg {
		if err := noArgs(c, cmd.name); err != nil {
			return err
		}
	}
	w, err := cmd.build(c)
	if err != nil || w == nil { // nil: the build did all (--print-config)
		return err
	}
	if err := checkWorkloadOutputs(c, w); err != nil {
		return err
	}
	if validateOnly {
		return nil
	}
	job := startJob(c, w.label)
	defer job.stop()
	opt := scenarios.RunOptions{Workers: c.Int("workers"), Progress: job.bar.Update}
	var rec *study.GoalRecording
	if !w.convertsGoal {
		rec = goalRecording(c, &opt)
	}
	var traces *chrome.TraceSet
	if w.traceRuns {
		traces = traceSet(c, &opt)
	}
	if err := w.run(opt, job); err != nil {
		return runErr(err) // every input was checked: the simulation failed
	}
	if err := writeGoalFiles(c, rec, c.String("goal-out")); err != nil {
		return err
	}
	if err := writeTraceFile(c, traces); err != nil {
		return err
	}
	if err := w.print(c.App.Writer, c.Bool("json")); err != nil {
		return runErr(err)
	}
	if err := writeWorkloadOutputs(c, w); err != nil {
		return err
	}
	if w.verify != nil {
		if err := w.verify(); err != nil {
			return runErr(err)
		}
	}
	var hops uint64
	if w.flitHops != nil {
		hops = w.flitHops()
	}
	job.end(hops)
	return nil
}

// checkWorkloadOutputs checks, before anything runs, every output a
// workload may write: the charts' formats and every path.
func checkWorkloadOutputs(c *cli.Context, w *workload) error {
	for _, ch := range w.charts {
		if p := c.String(ch.flag); p != "" {
			if err := plots.CheckExt(p); err != nil {
				return usageErr("--%s: %v", ch.flag, err)
			}
		}
	}
	if err := checkOutputFlags(c, w.outputs, w.dirs); err != nil {
		return err
	}
	for _, ch := range w.charts { // the files a flag's value stands for
		if ch.path != c.String(ch.flag) {
			if err := checkOutputFile("--"+ch.flag, ch.path); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeWorkloadOutputs writes the files and charts asked for.
func writeWorkloadOutputs(c *cli.Context, w *workload) error {
	if w.after != nil {
		if err := w.after(); err != nil {
			return err
		}
	}
	for _, f := range w.files {
		if path := c.String(f.flag); path != "" {
			if f.suffix != "" {
				path = suffixPath(path, f.suffix)
			}
			if err := scenarios.WriteFile(path, f.write); err != nil {
				return runErr(err)
			}
		}
	}
	for _, ch := range w.charts {
		if ch.path == "" {
			continue
		}
		chart, err := ch.draw()
		if err != nil {
			return err
		}
		if err := chart.Save(ch.path, ch.w, ch.h); err != nil {
			return runErr(err)
		}
	}
	return nil
}

// plotFlag is the chart of a flag drawn to the flag's own path.
func plotFlag(c *cli.Context, flag string, draw func() plots.Chart) chart {
	return chart{flag: flag, path: c.String(flag), draw: func() (plots.Chart, error) { return draw(), nil }}
}

// printRows prints rows as JSON or with the command's table writer.
func printRows[R any](rows *[]R, table func(io.Writer, []R) error) func(io.Writer, bool) error {
	return func(w io.Writer, asJSON bool) error {
		if asJSON {
			return report.WriteJSON(w, *rows)
		}
		return table(w, *rows)
	}
}

// printResult prints v as JSON with --json, else as table writes it; a
// failure to write is exit 1.
func printResult(c *cli.Context, v any, table func(io.Writer) error) error {
	var err error
	if c.Bool("json") {
		err = report.WriteJSON(c.App.Writer, v)
	} else {
		err = table(c.App.Writer)
	}
	if err != nil {
		return runErr(err)
	}
	return nil
}

// intList reads a flag's comma-separated integers.
func intList(c *cli.Context, flag string) ([]int, error) {
	v, err := parseInts(flag, c.String(flag))
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return v, nil
}

// wordList reads a flag's comma-separated words, spaces trimmed.
func wordList(c *cli.Context, flag string) []string {
	var out []string
	for _, s := range strings.Split(c.String(flag), ",") {
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

// wrongAnswers refuses, once everything is written, the first row whose
// answer is wrong (ok false), as wrong describes it.
func wrongAnswers[R any](rows *[]R, ok func(R) bool, wrong func(R) error) func() error {
	return func() error {
		for _, r := range *rows {
			if !ok(r) {
				return wrong(r)
			}
		}
		return nil
	}
}
