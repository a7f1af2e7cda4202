package main

import (
	"errors"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"nocsim/config"
	"nocsim/des"
	"nocsim/logp/collgen"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

// The LogGOPS tier of `nocsim coll`: generated schedules simulated under
// LogGOPS rules, for rank counts far past the mesh.

// tierFlags are coll's flags for the LogGOPS tier.
func tierFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "tier", Usage: "chip (flit-level simulation) or loggops (the generated schedule on the LogGOPS tier, P up to 2^24)", Value: scenarios.TierChip},
	}, logGOPSFlags()...)
}

// tierOnly are the flags that mean nothing on the chip.
var tierOnly = append([]string{"S"}, logGOPSNames...)

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

// tierParams reads the tier's parameters from --params or the flags into
// the sweep (TierSweep.UseFitted, UseFixed).
func tierParams(c *cli.Context, sw *study.TierSweep) error {
	given := givenFlags(c)
	anyFlag := false
	for _, f := range tierOnly {
		anyFlag = anyFlag || given[f]
	}
	if path := c.String("params"); path != "" {
		if anyFlag {
			return usageErr("--params and --L/--o/--g/--G/--O/--S: allowed one or the other")
		}
		p, err := readParams(c)
		if err != nil {
			return err
		}
		sw.UseFitted(path, p)
		return nil
	}
	if !given["L"] || !given["g"] || !given["o"] && !(given["o-s"] && given["o-r"]) {
		return usageErr("--tier loggops needs --params FILE, or --L, --o (or --o-s and --o-r) and --g (with --G, --O, --S optional)")
	}
	p, err := logGOPSFromFlags(c, given)
	if err != nil {
		return err
	}
	sw.UseFixed(p)
	return nil
}

func buildCollTier(c *cli.Context) (*workload, error) {
	sw := &study.TierSweep{Op: c.String("op"), Root: c.Int("root"), Opt: collgen.DefaultOptions(), Algs: wordList(c, "algs")}
	var err error
	if sw.Sizes, err = intList(c, "sizes"); err != nil {
		return nil, err
	}
	if !c.IsSet("procs") {
		return nil, usageErr("--procs: required with --tier loggops (rank counts 1..%d)", collgen.MaxProcs)
	}
	if sw.Procs, err = intList(c, "procs"); err != nil {
		return nil, err
	}
	if err := tierParams(c, sw); err != nil {
		return nil, err
	}
	if err := sw.Check(); err != nil {
		var ke *config.KeyError
		if errors.As(err, &ke) {
			return nil, usageErr("--%s = %s: allowed %s", ke.Key, ke.Value, ke.Allowed)
		}
		return nil, usageErr("%v", err)
	}
	if err := checkWorkers(c, "workers"); err != nil {
		return nil, err
	}
	if x := c.String("x"); x != "" && x != "procs" {
		return nil, usageErr("--x = %q: allowed procs with --tier loggops", x)
	}
	var rows []report.TierRow
	return &workload{
		label: "coll (loggops)", outputs: []string{"plot"},
		run: func(opt scenarios.RunOptions, j *job) error {
			if j.bar != nil { // within a long point, the cycle it has reached
				keys := make([]*des.Engine, len(sw.Algs)*len(sw.Procs)*len(sw.Sizes))
				for i := range keys {
					keys[i] = new(des.Engine)
				}
				sw.Beat = func(i int, t float64) { j.bar.SimAt(keys[i], t) }
			}
			rows, err = sw.Run(scenarios.RunOptions{Workers: opt.Workers, Progress: opt.Progress})
			return err
		},
		print:  printRows(&rows, report.WriteTierTable),
		charts: []chart{plotFlag(c, "plot", func() plots.Chart { return report.CollTierChart(rows, sw.ParamsName) })},
	}, nil
}
