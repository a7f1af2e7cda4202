package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"nocsim/logp"
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
	ops := append(slices.Clone(p2pOps), study.CollOps...)
	if !slices.Contains(ops, op) {
		return usageErr("--op = %s: allowed %s", op, strings.Join(ops, ", "))
	}
	if c.IsSet("select") && slices.Contains(p2pOps, op) {
		return usageErr("--select with --op = %s: allowed with a collective --op (%s); a point-to-point message has no algorithm to choose",
			op, strings.Join(study.CollOps, ", "))
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
			&cli.StringFlag{Name: "op", Usage: "p2p, pingpong, or a collective: " + strings.Join(study.CollOps, ", "), Value: "p2p"},
			&cli.StringFlag{Name: "alg", Usage: "collective algorithm (auto = the model's fastest)", Value: "auto"},
			&cli.IntFlag{Name: "procs", Usage: "ranks (needed for parameters fitted to a CSV)", DefaultText: "the parameters' P"},
			&cli.IntFlag{Name: "size", Usage: "bytes (per rank, as for nocsim coll)", Value: 8},
			&cli.Float64Flag{Name: "hops", Usage: "hops between two ranks for p2p and pingpong, and the average for collectives (needed for parameters fitted to a CSV)", DefaultText: "the parameters' average"},
			&cli.BoolFlag{Name: "json", Usage: "print predicted_cycles and the per-term breakdown as JSON"},
			&cli.StringFlag{Name: "select", Usage: "print the model's choice of algorithm for --op at each of these sizes (bytes, comma-separated) and each --select-procs, with the predicted crossover sizes"},
			&cli.StringFlag{Name: "select-procs", Usage: "rank counts for --select (default: the parameters' P)"},
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
			if alg, _, err = study.ChooseAlgorithm(p, op, procs, size); err != nil {
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
		a, _, err2 := study.ChooseAlgorithm(p, op, P, n)
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
