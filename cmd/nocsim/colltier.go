package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"nocsim/logp/collgen"
	"nocsim/logp/loggops"
	"nocsim/plots"
	"nocsim/router"
	"nocsim/scenarios"
)

// The LogGOPS tier of `nocsim coll`: generated schedules simulated under
// LogGOPS rules, for rank counts far past the mesh.

func tierFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "tier", Usage: "chip (flit-level simulation) or loggops (the generated schedule on the LogGOPS tier, P up to 2^24)", Value: scenarios.TierChip},
		&cli.Float64Flag{Name: "L", Usage: "loggops tier: latency (cycles), instead of --params"},
		&cli.Float64Flag{Name: "o", Usage: "loggops tier: CPU overhead per message, send and receive (cycles)"},
		&cli.Float64Flag{Name: "g", Usage: "loggops tier: gap between messages (cycles)"},
		&cli.Float64Flag{Name: "G", Usage: "loggops tier: gap per byte (cycles/byte)"},
		&cli.Float64Flag{Name: "O", Usage: "loggops tier: CPU overhead per byte (cycles/byte)"},
		&cli.Int64Flag{Name: "S", Usage: "loggops tier: eager/rendezvous threshold (bytes)", Value: loggops.DefaultS},
	}
}

var tierOnly = []string{"L", "o", "g", "G", "O", "S"}

func collTier(c *cli.Context) (string, error) {
	t := c.String("tier")
	if !slices.Contains(scenarios.Tiers, t) {
		return "", usageErr("--tier = %q: allowed %s", t, strings.Join(scenarios.Tiers, ", "))
	}
	if t == scenarios.TierChip {
		for _, f := range tierOnly {
			if c.IsSet(f) {
				return "", usageErr("--%s: allowed only with --tier loggops", f)
			}
		}
	}
	return t, nil
}

// tierParams reads the tier's parameters from --params or the flags.
func tierParams(c *cli.Context) (func(int) loggops.Params, error) {
	anyFlag := false
	for _, f := range tierOnly {
		anyFlag = anyFlag || c.IsSet(f)
	}
	if path := c.String("params"); path != "" {
		if anyFlag {
			return nil, usageErr("--params and --L/--o/--g/--G/--O/--S: allowed one or the other")
		}
		p, err := readParams(path)
		if err != nil {
			return nil, usageErr("--params: %v", err)
		}
		return scenarios.FittedTierParams(p), nil
	}
	if !c.IsSet("L") || !c.IsSet("o") || !c.IsSet("g") {
		return nil, usageErr("--tier loggops needs --params FILE, or --L, --o and --g (with --G, --O, --S optional)")
	}
	s := c.Int64("S")
	if s < 0 {
		return nil, usageErr("--S = %d: allowed 0..%d bytes", s, int64(math.MaxInt64))
	}
	p := loggops.New(c.Float64("L"), c.Float64("o"), c.Float64("g"), c.Float64("G"), c.Float64("O"))
	p.S = uint64(s)
	if err := p.Validate(); err != nil {
		name, _, _ := strings.Cut(strings.TrimPrefix(err.Error(), "loggops: "), " ")
		if name == "o_s" || name == "o_r" {
			name = "o"
		}
		return nil, usageErr("--%s: %v", name, err)
	}
	return scenarios.FixedTierParams(p), nil
}

func runCollTier(c *cli.Context) error {
	sw := &scenarios.TierSweep{Op: c.String("op"), Root: c.Int("root"), Opt: collgen.DefaultOptions()}
	for _, a := range strings.Split(c.String("algs"), ",") {
		sw.Algs = append(sw.Algs, strings.TrimSpace(a))
	}
	var err error
	if sw.Sizes, err = parseInts("sizes", c.String("sizes")); err != nil {
		return usageErr("%v", err)
	}
	if !c.IsSet("procs") {
		return usageErr("--procs: required with --tier loggops (rank counts 1..%d)", collgen.MaxProcs)
	}
	if sw.Procs, err = parseInts("procs", c.String("procs")); err != nil {
		return usageErr("%v", err)
	}
	if sw.Params, err = tierParams(c); err != nil {
		return err
	}
	if err := sw.Check(); err != nil {
		var ke *router.KeyError
		if errors.As(err, &ke) {
			return usageErr("--%s = %s: allowed %s", ke.Key, ke.Value, ke.Allowed)
		}
		return usageErr("%v", err)
	}
	if err := checkWorkers(c, "workers"); err != nil {
		return err
	}
	if x := c.String("x"); x != "" && x != "procs" {
		return usageErr("--x = %q: allowed procs with --tier loggops", x)
	}
	if p := c.String("plot"); p != "" {
		if err := plots.CheckExt(p); err != nil {
			return usageErr("--plot: %v", err)
		}
	}
	if err := checkOutputFlags(c, []string{"plot"}, nil); err != nil {
		return err
	}
	if validateOnly {
		return nil
	}
	bar := newProgress(c.App.ErrWriter, "coll (loggops)", quiet(c))
	rows, err := sw.Run(scenarios.RunOptions{Workers: c.Int("workers"), Progress: bar.update})
	if err != nil {
		return runErr(err)
	}
	if c.Bool("json") {
		err = scenarios.WriteJSON(c.App.Writer, rows)
	} else {
		err = writeTierTable(c.App.Writer, rows)
	}
	if err != nil {
		return runErr(err)
	}
	if p := c.String("plot"); p != "" {
		if err := scenarios.TierChart(rows).Save(p, 0, 0); err != nil {
			return runErr(err)
		}
	}
	return nil
}

func writeTierTable(out io.Writer, rows []scenarios.TierRow) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tier\top\talgorithm\tprocs\tsize\tcycles\tschedule\t")
	fmt.Fprintln(tw, "\t\t\t\t(bytes)\t(last rank)\t(ops)\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.6g\t%d\t\n", r.Tier, r.Op, r.Algorithm, r.Procs, r.SizeBytes, r.Cycles, r.Ops)
	}
	return tw.Flush()
}
