package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"nocsim/calibrate"
	"nocsim/logp"
	"nocsim/scenarios"
	"nocsim/scenarios/study"
)

func calibrateCommand() *cli.Command {
	flags := []cli.Flag{
		configFlag,
		&cli.StringFlag{Name: "csv", Usage: "fit these measurements (a real machine's; columns in docs/logp.md) instead of simulating"},
		&cli.StringFlag{Name: "sizes", Usage: "message sizes in bytes for the microbenchmarks", Value: "8,13,16,32,64,127,128,256,512,1024,1027,4096,4099,16384,65536"},
		&cli.IntFlag{Name: "reps", Usage: "repetitions per microbenchmark (the median is kept)", Value: 1},
		&cli.StringFlag{Name: "out", Usage: "write the fitted parameters to `FILE` (.toml or .json)"},
		&cli.StringFlag{Name: "save-csv", Usage: "write the measurements to `FILE` (the CSV format --csv reads)"},
		&cli.StringFlag{Name: "plots", Usage: "write charts (one-way time, simulated and fitted) into `DIR`"},
		&cli.BoolFlag{Name: "json", Usage: "print the fit report as JSON"},
		quietFlag,
	}
	return &cli.Command{
		Name:         "calibrate",
		Usage:        "fit LogGOPS (L, o_s, o_r, g, G, O, per-hop L) to microbenchmarks on the simulated machine or to a CSV",
		UsageText:    "nocsim calibrate --mesh 4x4 --protocol scmp --out params.toml --plots DIR\n   nocsim calibrate --csv measured.csv --out params.toml",
		Flags:        append(flags, keyFlags(pricedSections)...),
		Action:       runCalibrate,
		OnUsageError: onUsageError("calibrate", false),
	}
}

func runCalibrate(c *cli.Context) error {
	sc, src, err := machineFrom(c)
	if err != nil {
		return err
	}
	sizes, err := parseInts("sizes", c.String("sizes"))
	if err != nil {
		return usageErr("%v", err)
	}
	if c.String("csv") == "" {
		// Measuring the simulated machine: the microbenchmarks' own limits.
		if err := study.CheckCalibration(&sc, sizes, c.Int("reps")); err != nil {
			return flagError(err, src, "sizes", "reps")
		}
	}
	out := c.String("out")
	if out != "" && !strings.HasSuffix(out, ".toml") && !strings.HasSuffix(out, ".json") {
		return usageErr("--out = %q: allowed a .toml or .json file", out)
	}
	// --csv is calibrate's input; its outputs are these.
	if err := checkOutputFlags(c, []string{"out", "save-csv"}, []string{"plots"}); err != nil {
		return err
	}
	if validateOnly {
		return nil
	}
	var cal study.Calibration
	machine := sc.MachineText()
	if path := c.String("csv"); path != "" {
		t, err := readMeasurementsTable(path)
		if err != nil {
			return err
		}
		if len(t.Absent) > 0 {
			warn(c, "--csv %s: lacks the machine column(s) %s: fitted with %s (docs/logp.md)", path, strings.Join(t.Absent, ", "), t.Fallbacks())
		}
		if cal, err = study.FitMeasured(&sc, t, path); err != nil {
			return usageErr("--csv %s: %v", path, err)
		}
		machine = "measured in " + filepath.Base(path)
	} else {
		job := startJob(c, "calibrate: microbenchmarks")
		defer job.stop()
		if cal, err = study.Calibrate(&sc, sizes, c.Int("reps")); err != nil {
			return runErr(err)
		}
		defer job.end(0) // once the report is written
	}
	rep := cal.Report
	if err := printResult(c, rep, rep.WriteText); err != nil {
		return err
	}
	if err := cal.WriteFiles(out, c.String("save-csv"), c.String("plots"), machine); err != nil {
		return runErr(err)
	}
	return nil
}

// readParams loads --params, written by calibrate; unknown keys and
// non-physical values are bad input, named by the flag.
func readParams(c *cli.Context) (logp.Params, error) {
	p, err := logp.ReadParams(c.String("params"))
	if err != nil {
		return p, usageErr("--params: %v", err)
	}
	return p, nil
}

// warn prints a warning on stderr: something the user should know about
// a run that goes on.
func warn(c *cli.Context, format string, a ...any) {
	fmt.Fprintf(c.App.ErrWriter, "nocsim: warning: "+format+"\n", a...)
}

// paramsForRun reads --params and checks them against the run's machine
// (see scenarios.ParamsAgainstRun): a protocol mismatch is refused, a mesh
// mismatch and unknown provenance are warned about.
func paramsForRun(c *cli.Context, sc *scenarios.Scenario) (*logp.Params, error) {
	path := c.String("params")
	p, err := readParams(c)
	if err != nil {
		return nil, err
	}
	ws, err := sc.ParamsAgainstRun(&p)
	if err != nil {
		return nil, usageErr("--params %s: %v", path, err)
	}
	for _, w := range ws {
		warn(c, "--params %s: %s", path, w)
	}
	return &p, nil
}

// readMeasurementsCSV reads --csv (calibrate --save-csv's format, or a real
// machine's measurements); any failure is bad input, named by the flag.
func readMeasurementsCSV(path string) ([]calibrate.Measurement, error) {
	t, err := readMeasurementsTable(path)
	return t.Measurements, err
}

// readMeasurementsTable reads --csv with the machine columns.
func readMeasurementsTable(path string) (calibrate.Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return calibrate.Table{}, usageErr("--csv: %v", err)
	}
	defer f.Close()
	t, err := calibrate.ReadTable(f)
	if err != nil {
		return calibrate.Table{}, usageErr("--csv %s: %v", path, err)
	}
	return t, nil
}
