package main

import (
	"math"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"nocsim/logp"
	"nocsim/logp/collgen"
	"nocsim/mesh"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

// p2pOps are predict's point-to-point operations: one message pattern
// each, with no algorithm to choose.
var p2pOps = []string{"p2p", "pingpong"}

// checkPredictOp refuses, before anything is read or predicted, an --op
// predict does not know (the model's own error named no flag and left out
// p2p and pingpong), and --select for a point-to-point --op, which has no
// algorithms to choose between (it printed an empty table and exited 0).
func checkPredictOp(c *cli.Context) error {
	op := c.String("op")
	ops := append(slices.Clone(p2pOps), collgen.Ops...)
	if !slices.Contains(ops, op) {
		return usageErr("--op = %s: allowed %s", op, strings.Join(ops, ", "))
	}
	if c.IsSet("select") && slices.Contains(p2pOps, op) {
		return usageErr("--select with --op = %s: allowed with a collective --op (%s); a point-to-point message has no algorithm to choose",
			op, strings.Join(collgen.Ops, ", "))
	}
	return nil
}

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
			&cli.StringFlag{Name: "op", Usage: "p2p, pingpong, or a collective: " + strings.Join(collgen.Ops, ", "), Value: "p2p"},
			&cli.StringFlag{Name: "alg", Usage: "collective algorithm (auto = the model's fastest)", Value: "auto"},
			&cli.IntFlag{Name: "procs", Usage: "ranks (needed for parameters fitted to a CSV)", DefaultText: "the parameters' P"},
			&cli.IntFlag{Name: "size", Usage: "bytes (per rank, as for nocsim coll)", Value: 8},
			&cli.Float64Flag{Name: "hops", Usage: "hops between two ranks for p2p and pingpong, and the average for collectives (needed for parameters fitted to a CSV)", DefaultText: "the parameters' average"},
			&cli.BoolFlag{Name: "json", Usage: "print predicted_cycles and the per-term breakdown as JSON"},
			&cli.StringFlag{Name: "select", Usage: "print the model's choice of algorithm for --op at each of these sizes (bytes, comma-separated) and each --select-procs, with the predicted crossover sizes"},
			&cli.StringFlag{Name: "select-procs", Usage: "rank counts for --select (default: the parameters' P)"},
			objectiveCLIFlag,
		},
		Action:       runPredict,
		OnUsageError: onUsageError("predict", false),
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
	p, err := readParams(c)
	if err != nil {
		return err
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
	if err := checkSize(size); err != nil {
		return err
	}
	if err := checkProcs("procs", procs); err != nil {
		return err
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
	objective, err := objectiveFlag(c, &p)
	if err != nil {
		return err
	}
	if c.IsSet("select") {
		return selectionTable(c, p, op, procs, objective)
	}
	if alg == "auto" && !slices.Contains(p2pOps, op) {
		if alg, _, err = study.ChooseAlgorithmFor(p, op, procs, size, objective); err != nil {
			return usageErr("--op = %q: %v", op, err)
		}
	}
	alg, pr, err := study.PredictOp(p, op, alg, procs, size, hops)
	if err != nil {
		return usageErr("%v", err)
	}
	return report.WritePrediction(c.App.Writer, c.Bool("json"), op, alg, procs, size, pr, p.ClockHz)
}

// selectionTable prints, per P and size, the algorithm the model predicts
// fastest and where the choice changes (logp.Select).
func selectionTable(c *cli.Context, p logp.Params, op string, procs int, objective string) error {
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
		if err := checkProcs("select-procs", n); err != nil {
			return err
		}
	}
	sel, err := logp.Select(plist, sizes, func(P, n int) (string, error) {
		a, _, err := study.ChooseAlgorithmFor(p, op, P, n, objective)
		return a, err
	})
	// The grid is printed even when a choice failed, before the error.
	report.WriteSelection(c.App.Writer, op, p.Source, objective, sel)
	if err != nil {
		return usageErr("--op = %q: %v", op, err)
	}
	return nil
}

// checkSize checks predict's --size: bytes, 0..1 GiB.
func checkSize(size int) error {
	if size < 0 || size > 1<<30 {
		return usageErr("--size = %d: allowed 0..1073741824 bytes", size)
	}
	return nil
}

// checkProcs checks a rank count of predict's: one per tile of the
// largest mesh at most.
func checkProcs(flag string, n int) error {
	if n < 1 || n > mesh.MaxDim*mesh.MaxDim {
		return usageErr("--%s = %d: allowed 1..%d", flag, n, mesh.MaxDim*mesh.MaxDim)
	}
	return nil
}

// objectiveCLIFlag is --objective of coll and predict: what the model's
// choice of algorithm (auto, --select) minimises.
var objectiveCLIFlag = &cli.StringFlag{Name: "objective", Value: logp.ObjectiveTime,
	Usage: "what the model's choice of algorithm (auto, --select) minimises: time, energy (the fitted energy model's prediction), or edp (energy x time); energy and edp need parameters fitted with an energy model"}

// objectiveFlag reads --objective, refusing energy and edp without
// parameters that hold an energy model.
func objectiveFlag(c *cli.Context, p *logp.Params) (string, error) {
	o := c.String("objective")
	if !slices.Contains(logp.Objectives, o) {
		return "", usageErr("--objective = %q: allowed %s", o, strings.Join(logp.Objectives, ", "))
	}
	if o != logp.ObjectiveTime && (p == nil || p.Energy == nil) {
		return "", usageErr("--objective = %s: allowed only with --params holding an energy model (nocsim calibrate under an [energy] model writes one); time otherwise", o)
	}
	return o, nil
}
