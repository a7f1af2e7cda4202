package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/thesis"
)

func thesisCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "machine TOML file (default: the embedded thesis machine, scenarios/thesis/scmp-thesis.toml); flags override its keys"},
		&cli.StringFlag{Name: "table", Usage: "the thesis table to reproduce: 5.1 (CG) or 5.2 (QR)"},
		&cli.StringFlag{Name: "procs", Usage: "only the rows with these processor counts, comma-separated (default: every row)"},
		&cli.StringFlag{Name: "sizes", Usage: "only the rows with these sizes (5.1: nonzeros; 5.2: matrix order), comma-separated (default: every row)"},
		&cli.BoolFlag{Name: "json", Usage: "print a JSON array, one object per row"},
		&cli.StringFlag{Name: "distribute", Usage: "table 5.1, MPI version: DistributeP as written (bcast: a loop of packed broadcasts) or as one Alltoallw (alltoall, the thesis's section 6.1 future work)", Value: "bcast"},
		&cli.StringFlag{Name: "plot-dir", Usage: "draw the table's figures (thesis and nocsim side by side) as PNG files into `DIR`"},
		&cli.IntFlag{Name: "workers", Usage: "runs simulated in parallel (0 = one per core); results do not depend on it"},
		quietFlag,
	}
	cmd := command{
		name:      "thesis",
		usage:     "reproduce the SCMP thesis's Table 5.1 (CG) or 5.2 (QR): its times beside nocsim's, native and MPI, and nocsim's energy of each",
		usageText: "nocsim thesis --table 5.1\nnocsim thesis --table 5.2 --procs 4,16 --sizes 128,256 --plot-dir figs",
		flags:     append(flags, keyFlags(pricedSections, "procs", "mesh")...),
		build:     buildThesis,
	}.cli()
	cmd.Subcommands = []*cli.Command{thesisFitCommand()}
	cmd.CustomHelpTemplate = subcommandsHelpTemplate
	return cmd
}

func buildThesis(c *cli.Context) (*workload, error) {
	table := c.String("table")
	if table != "5.1" && table != "5.2" {
		return nil, usageErr("--table = %q: allowed 5.1 (CG), 5.2 (QR)", table)
	}
	var procs, sizes []int
	var err error
	if c.IsSet("procs") {
		if procs, err = intList(c, "procs"); err != nil {
			return nil, err
		}
	}
	if c.IsSet("sizes") {
		if sizes, err = intList(c, "sizes"); err != nil {
			return nil, err
		}
	}
	rows, err := thesis.Rows(table, procs, sizes)
	if err != nil {
		return nil, usageErr("--procs/--sizes: %v", err)
	}
	switch d := c.String("distribute"); {
	case d != "bcast" && d != "alltoall":
		return nil, usageErr("--distribute = %q: allowed bcast, alltoall", d)
	case d == "alltoall" && table != "5.1":
		return nil, usageErr("--distribute = alltoall: allowed with --table 5.1 (CG) only")
	case d == "alltoall":
		for i := range rows {
			rows[i].Distribute = d
		}
	}
	sc, src, err := thesisScenarioFrom(c)
	if err != nil {
		return nil, err
	}
	if err := thesis.Check(&sc, src, rows); err != nil {
		return nil, usageErr("%v", err)
	}
	if err := checkWorkers(c, "workers"); err != nil {
		return nil, err
	}
	var res []report.ThesisResult
	return &workload{
		label: "thesis " + table, dirs: []string{"plot-dir"},
		run: func(opt scenarios.RunOptions, _ *job) error {
			res, err = thesis.Run(&sc, rows, opt)
			return err
		},
		print: func(w io.Writer, asJSON bool) error {
			if !asJSON {
				return report.WriteThesisTable(w, res)
			}
			recs := make([]report.ThesisRecord, len(res))
			for i, r := range res {
				recs[i] = r.Record()
			}
			return report.WriteJSON(w, recs)
		},
		after: func() error { return thesisCharts(c, &sc, res) },
		verify: wrongAnswers(&res, func(r report.ThesisResult) bool { return r.Correct }, func(r report.ThesisResult) error {
			return fmt.Errorf("table %s, size %d, P=%d: wrong answer (%s)", r.Row.Table, r.Row.Size(), r.Row.Procs, r.Detail)
		}),
	}, nil
}

// thesisCharts draws the table's figures into --plot-dir.
func thesisCharts(c *cli.Context, sc *scenarios.Scenario, res []report.ThesisResult) error {
	dir := c.String("plot-dir")
	if dir == "" {
		return nil
	}
	name := "default machine"
	if p := c.String("config"); p != "" {
		name = filepath.Base(p)
	} else if !c.IsSet("config") {
		name = thesis.MachineName
	}
	if err := thesis.SaveCharts(dir, res, name, sc); err != nil {
		return runErr(err)
	}
	return nil
}

// thesisScenarioFrom is the thesis machine (or --config) with the key
// flags over it.
func thesisScenarioFrom(c *cli.Context) (scenarios.Scenario, scenarios.Source, error) {
	return scenarioOver(c, thesis.MachineName, thesis.Machine(), "procs", "mesh")
}

func thesisFitCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "machine TOML file to start from (default: the embedded thesis machine); flags override its keys"},
		&cli.StringFlag{Name: "out", Usage: "write the fitted machine file to `FILE` (the repository's is scenarios/thesis/scmp-thesis.toml)"},
		&cli.StringFlag{Name: "keys", Usage: "keys to fit, comma-separated, among " + thesis.FitKeyNames(), Value: strings.Join(thesis.DefaultFitKeys, ",")},
		&cli.IntFlag{Name: "steps", Usage: "most Levenberg-Marquardt steps (each runs the table once per key and once more)", Value: 8},
		&cli.IntFlag{Name: "workers", Usage: "runs simulated in parallel (0 = one per core); results do not depend on it"},
		quietFlag,
	}
	return &cli.Command{
		Name:         "fit",
		Usage:        "fit the processor's operation costs and the MPI library's software costs on Table 5.1 (never on 5.2) and write the machine file",
		UsageText:    "nocsim thesis fit --out scenarios/thesis/scmp-thesis.toml",
		Flags:        append(flags, keyFlags(machineSections, "procs", "mesh")...),
		Action:       runThesisFit,
		OnUsageError: onUsageError("thesis fit", true),
	}
}

func runThesisFit(c *cli.Context) error {
	if err := noArgs(c, "thesis fit"); err != nil {
		return err
	}
	if c.String("out") == "" {
		return usageErr("--out: required (the machine file to write)")
	}
	keys, bad := thesis.FitKeysNamed(c.String("keys"))
	if bad != "" {
		return usageErr("--keys: %q: allowed %s", bad, thesis.FitKeyNames())
	}
	if n := c.Int("steps"); n < 1 || n > 100 {
		return usageErr("--steps = %d: allowed 1..100", n)
	}
	sc, src, err := thesisScenarioFrom(c)
	if err != nil {
		return err
	}
	rows := thesis.Tables["5.1"]
	if err := thesis.Check(&sc, src, rows); err != nil {
		return usageErr("%v", err)
	}
	if err := checkWorkers(c, "workers"); err != nil {
		return err
	}
	if err := checkOutputFlags(c, []string{"out"}, nil); err != nil {
		return err
	}
	base := thesis.Machine()
	if p := c.String("config"); p != "" {
		if base, err = os.ReadFile(p); err != nil {
			return usageErr("--config: %v", err)
		}
	}
	if validateOnly {
		return nil
	}
	start := time.Now()
	progress := func(step int, rms float64) {
		if !quiet(c) {
			fmt.Fprintf(c.App.ErrWriter, "thesis fit: step %d, RMS log error %.4f, %.0fs\n", step, rms, time.Since(start).Seconds())
		}
	}
	fit, err := thesis.Fit(&sc, rows, keys, c.Int("steps"), scenarios.RunOptions{Workers: c.Int("workers")}, progress)
	if err != nil {
		return runErr(err)
	}
	// Keys given by flag go into the file too: it must be the machine the
	// fit ran on.
	set, err := thesis.SetApart(&sc, func(section, key string) bool { return strings.HasPrefix(src(section, key), "--") })
	if err != nil {
		return runErr(err)
	}
	var b bytes.Buffer
	if err := thesis.WriteMachine(&b, string(base), fit, set); err != nil {
		return runErr(err)
	}
	if err := plots.WriteFileAtomic(c.String("out"), &b); err != nil {
		return runErr(err)
	}
	return fit.WriteText(c.App.Writer)
}
