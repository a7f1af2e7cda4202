package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"nocsim/calibrate"
	"nocsim/logp"
	"nocsim/mesh"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

func calibrateCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "scenario TOML file; flags override its keys"},
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
		Flags:        append(flags, keyFlags(machineSections)...),
		Action:       runCalibrate,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageErr("calibrate: %v", err) },
	}
}

func runCalibrate(c *cli.Context) error {
	sc, src, err := scenarioFrom(c)
	if err != nil {
		return err
	}
	if err := sc.CheckMachine(src); err != nil {
		return usageErr("%v", err)
	}
	sizes, err := parseInts("sizes", c.String("sizes"))
	if err != nil {
		return usageErr("%v", err)
	}
	if c.String("csv") == "" {
		// Measuring the simulated machine: the microbenchmarks' own limits.
		if err := sc.CheckCalibration(sizes, c.Int("reps")); err != nil {
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
	var cal scenarios.Calibration
	machine := sc.MachineText()
	if path := c.String("csv"); path != "" {
		t, err := readMeasurementsTable(path)
		if err != nil {
			return err
		}
		if len(t.Absent) > 0 {
			warn(c, "--csv %s: lacks the machine column(s) %s: fitted with %s (docs/logp.md)", path, strings.Join(t.Absent, ", "), fallbacks(t.Absent))
		}
		if cal, err = sc.FitMeasured(t, path); err != nil {
			return usageErr("--csv %s: %v", path, err)
		}
		machine = "measured in " + filepath.Base(path)
	} else {
		job := startJob(c, "calibrate: microbenchmarks")
		defer job.stop()
		if cal, err = sc.Calibrate(sizes, c.Int("reps")); err != nil {
			return runErr(err)
		}
		defer job.end(0) // once the report is written
	}
	rep := cal.Report
	if c.Bool("json") {
		err = report.WriteJSON(c.App.Writer, rep)
	} else {
		err = rep.WriteText(c.App.Writer)
	}
	if err != nil {
		return runErr(err)
	}
	if out != "" {
		if err := rep.Params.Validate(); err != nil {
			return runErr(fmt.Errorf("the fitted parameters are not physical (%v); see the warnings above; not writing %s", err, out))
		}
		if err := scenarios.WriteFile(out, func(b *bytes.Buffer) error { return logp.EncodeParams(b, out, rep.Params) }); err != nil {
			return runErr(err)
		}
	}
	if path := c.String("save-csv"); path != "" {
		if err := scenarios.WriteFile(path, func(b *bytes.Buffer) error {
			return calibrate.WriteTable(b, calibrate.Table{Machine: cal.Machine, Measurements: cal.Measurements})
		}); err != nil {
			return runErr(err)
		}
	}
	if dir := c.String("plots"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return runErr(err)
		}
		saved := ""
		if out != "" {
			saved = filepath.Base(out)
		}
		if err := scenarios.CalibrationChart(cal, machine, saved).Save(filepath.Join(dir, "oneway.png"), 0, 0); err != nil {
			return runErr(err)
		}
	}
	return nil
}

// readParams loads parameters written by calibrate; unknown keys and
// non-physical values are errors.
func readParams(path string) (logp.Params, error) { return logp.ReadParams(path) }

func predictCommand() *cli.Command {
	return &cli.Command{
		Name:      "predict",
		Usage:     "LogGP prediction of a point-to-point message or a collective algorithm from fitted parameters",
		UsageText: "nocsim predict --params params.toml --op bcast --alg binomial --procs 64 --size 1024",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "params", Usage: "parameters `FILE` from nocsim calibrate --out (needed unless --optimal is given --L, --o and --g)"},
			&cli.StringFlag{Name: "model", Usage: "loggp, or hockney: fit the slides' t_s and t_e to a calibration (--csv measurements, else --params at its sizes) and predict p2p or pingpong", Value: "loggp"},
			&cli.StringFlag{Name: "csv", Usage: "--model hockney: fit these measurements (nocsim calibrate --save-csv; the round trips, at --hops when given)"},
			&cli.StringFlag{Name: "optimal", Usage: "print an optimal LogP schedule instead: bcast (Karp et al.'s time and tree for --procs), sum (most operands summed by --time) or gather (the flat gather to one root for --procs, its senders stalled by the capacity ceil(L/g))"},
			&cli.Float64Flag{Name: "L", Usage: "LogP latency for --optimal, cycles", DefaultText: "from --params at --size and --hops"},
			&cli.Float64Flag{Name: "o", Usage: "LogP overhead for --optimal, cycles", DefaultText: "from --params, (o_s+o_r)/2"},
			&cli.Float64Flag{Name: "g", Usage: "LogP gap for --optimal, cycles", DefaultText: "from --params"},
			&cli.Float64Flag{Name: "time", Usage: "cycles available to --optimal sum", Value: 100},
			&cli.StringFlag{Name: "op", Usage: "p2p, pingpong, or a collective: " + strings.Join(scenarios.CollOps, ", "), Value: "p2p"},
			&cli.StringFlag{Name: "alg", Usage: "collective algorithm (auto = the model's fastest)", Value: "auto"},
			&cli.IntFlag{Name: "procs", Usage: "ranks (needed for parameters fitted to a CSV)", DefaultText: "the parameters' P"},
			&cli.IntFlag{Name: "size", Usage: "bytes (per rank, as for nocsim coll)", Value: 8},
			&cli.Float64Flag{Name: "hops", Usage: "hops between two ranks for p2p and pingpong, and the average for collectives (needed for parameters fitted to a CSV)", DefaultText: "the parameters' average"},
			&cli.BoolFlag{Name: "json", Usage: "print predicted_cycles and the per-term breakdown as JSON"},
			&cli.StringFlag{Name: "select", Usage: "print the model's choice of algorithm for --op at each of these sizes (bytes, comma-separated) and each --select-procs, with the predicted crossover sizes"},
			&cli.StringFlag{Name: "select-procs", Usage: "rank counts for --select (default: the parameters' P)"},
		},
		Action:       runPredict,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageErr("predict: %v", err) },
	}
}

func runPredict(c *cli.Context) error {
	if err := checkPredictOp(c); err != nil {
		return err
	}
	switch m := c.String("model"); {
	case m == "hockney":
		if c.IsSet("optimal") {
			return usageErr("--model = hockney: not with --optimal (a LogP schedule)")
		}
		return runHockney(c)
	case m != "loggp":
		return usageErr("--model = %q: allowed loggp, hockney", m)
	case c.IsSet("csv"):
		return usageErr("--csv = %q: allowed with --model hockney only (calibrate --csv fits LogGP)", c.String("csv"))
	}
	if c.IsSet("optimal") {
		return runOptimal(c)
	}
	if !c.IsSet("params") {
		return usageErr("--params: needed (or --optimal with --L, --o and --g)")
	}
	p, err := readParams(c.String("params"))
	if err != nil {
		return usageErr("--params: %v", err)
	}
	if !p.HasProvenance() {
		warn(c, "--params %s: provenance unknown (source %q, no mesh or sizes: written by an older nocsim)", c.String("params"), p.Source)
	}
	op, alg, size := c.String("op"), c.String("alg"), c.Int("size")
	procs := c.Int("procs")
	if procs == 0 && !c.IsSet("procs") {
		procs = p.P
		if procs == 0 {
			return usageErr("--procs: needed, the parameters (%s) do not record P", p.Source)
		}
	}
	if size < 0 || size > 1<<30 {
		return usageErr("--size = %d: allowed 0..1073741824 bytes", size)
	}
	if procs < 1 || procs > mesh.MaxDim*mesh.MaxDim {
		return usageErr("--procs = %d: allowed 1..%d", procs, mesh.MaxDim*mesh.MaxDim)
	}
	hops := p.AvgHops
	if c.IsSet("hops") {
		hops = c.Float64("hops")
		if !(hops >= 0) || math.IsInf(hops, 0) || hops > 2*mesh.MaxDim {
			return usageErr("--hops = %v: allowed 0..%d (router-to-router hops; default: the parameters' average)", hops, 2*mesh.MaxDim)
		}
		p.AvgHops = hops // collectives too
	} else if p.HasProvenance() && p.Mesh == "" {
		return usageErr("--hops: needed, the parameters (%s) carry no mesh and so no average hop count", p.Source)
	}
	if c.IsSet("select") {
		return selectionTable(c, p, op, procs)
	}
	var pr logp.Prediction
	switch op {
	case "p2p":
		pr = onePrediction(p, size, hops)
		alg = "LogGP"
	case "pingpong":
		pr = p.PingPong(size, hops)
		alg = "LogGP"
	default:
		if alg == "auto" {
			if alg, _, err = scenarios.ChooseAlgorithm(p, op, procs, size); err != nil {
				return usageErr("--op = %q: %v", op, err)
			}
		}
		reg := op
		if op == "exscan" {
			reg = "scan"
		}
		if pr, err = p.Predict(reg, alg, procs, size); err != nil {
			return usageErr("%v", err)
		}
	}
	if c.Bool("json") {
		return report.WriteJSON(c.App.Writer, map[string]any{"op": op, "algorithm": alg, "procs": procs, "size_bytes": size,
			"predicted_cycles": pr.Cycles, "predicted_seconds": pr.Cycles / p.ClockHz, "terms": pr.Terms})
	}
	fmt.Fprintf(c.App.Writer, "%s %s, P=%d, %d bytes: %.1f cycles (%.3f us)\n", op, alg, procs, size, pr.Cycles, pr.Cycles/p.ClockHz*1e6)
	return report.WriteTerms(c.App.Writer, pr.Terms)
}

// selectionTable prints, per P and size, the algorithm the model predicts
// fastest and where the choice changes (found by bisection on the size).
func selectionTable(c *cli.Context, p logp.Params, op string, procs int) error {
	sizes, err := parseInts("select", c.String("select"))
	if err != nil {
		return usageErr("%v", err)
	}
	plist := []int{procs}
	if c.IsSet("select-procs") {
		if plist, err = parseInts("select-procs", c.String("select-procs")); err != nil {
			return usageErr("%v", err)
		}
	}
	for _, n := range sizes {
		if n < 0 || n > 1<<30 {
			return usageErr("--select = %d: allowed sizes 0..1073741824 bytes", n)
		}
	}
	for _, n := range plist {
		if n < 1 || n > mesh.MaxDim*mesh.MaxDim {
			return usageErr("--select-procs = %d: allowed 1..%d", n, mesh.MaxDim*mesh.MaxDim)
		}
	}
	pick := func(P, n int) string {
		a, _, err2 := scenarios.ChooseAlgorithm(p, op, P, n)
		if err2 != nil {
			err = err2
		}
		return a
	}
	out := c.App.Writer
	fmt.Fprintf(out, "%s: the LogGP model's fastest algorithm (%s)\n", op, p.Source)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "P \\ bytes\t")
	for _, n := range sizes {
		fmt.Fprintf(tw, "%d\t", n)
	}
	fmt.Fprintln(tw)
	for _, P := range plist {
		fmt.Fprintf(tw, "%d\t", P)
		for _, n := range sizes {
			fmt.Fprintf(tw, "%s\t", pick(P, n))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if err != nil {
		return usageErr("--op = %q: %v", op, err)
	}
	for _, P := range plist {
		for i := 1; i < len(sizes); i++ {
			lo, hi := sizes[i-1], sizes[i]
			a, b := pick(P, lo), pick(P, hi)
			if a == b || hi <= lo {
				continue
			}
			for hi-lo > 1 {
				mid := lo + (hi-lo)/2
				if pick(P, mid) == a {
					lo = mid
				} else {
					hi = mid
				}
			}
			fmt.Fprintf(out, "crossover at P=%d: %s up to %d bytes, %s from %d\n", P, a, lo, pick(P, hi), hi)
		}
	}
	return nil
}

// onePrediction is LogGP's one-way time with its terms.
func onePrediction(p logp.Params, m int, hops float64) logp.Prediction {
	s := p.Seg(m)
	terms := []logp.Term{{Name: "o_s", Cycles: s.Os}, {Name: "L", Cycles: s.L}, {Name: "h*L_per_hop", Cycles: hops * s.Lh},
		{Name: "(m-1)max(G,O)", Cycles: float64(max(m, 1)-1) * max(s.G, p.PerByteO(m))}, {Name: "o_r", Cycles: s.Or}}
	return logp.Prediction{Cycles: p.PointToPoint(m, hops), Terms: terms}
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
	p, err := readParams(path)
	if err != nil {
		return nil, usageErr("--params: %v", err)
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

// fallbacks names the values a CSV without these machine columns is
// fitted with (calibrate.Machine's zero value).
func fallbacks(absent []string) string {
	var s []string
	for _, c := range absent {
		switch c {
		case "word_bytes":
			s = append(s, "word_bytes = 0 (every size moves alike: no O)")
		case "handshake":
			s = append(s, "handshake = false (late, ctswait and fanout rows not fitted)")
		case "cooperative":
			s = append(s, "cooperative = false")
		}
	}
	return strings.Join(s, ", ")
}
