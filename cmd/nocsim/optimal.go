package main

import (
	"github.com/urfave/cli/v2"

	"nocsim/logp"
	"nocsim/scenarios/report"
)

// runOptimal is `nocsim predict --optimal bcast|sum`: Karp, Sahay, Santos
// and Schauser's optimal LogP broadcast (its time and tree) and summation,
// for --L/--o/--g or parameters fitted by calibrate.
func runOptimal(c *cli.Context) error {
	what := c.String("optimal")
	if what != "bcast" && what != "sum" && what != "gather" {
		return usageErr("--optimal = %q: allowed bcast, sum, gather", what)
	}
	L, o, g, err := optimalParams(c)
	if err != nil {
		return err
	}
	if what == "sum" {
		T := c.Float64("time")
		if !(T >= 0) || T > 1e5 {
			return usageErr("--time = %v: allowed 0..100000 cycles", T)
		}
		n, tree := logp.OptimalSummation(T, L, o, g)
		return report.WriteOptimalSum(c.App.Writer, c.Bool("json"), L, o, g, T, n, tree)
	}
	P := c.Int("procs")
	if err := checkProcs("procs", P); err != nil {
		return err
	}
	if what == "gather" {
		return report.WriteOptimalGather(c.App.Writer, c.Bool("json"), L, o, g, P)
	}
	return report.WriteOptimalBroadcast(c.App.Writer, c.Bool("json"), L, o, g, P)
}

// optimalParams are LogP's L, o, g: the flags, else the --params segment
// of a --size message over --hops hops (o the mean of o_s and o_r, so a
// message takes o_s + L + o_r as there).
func optimalParams(c *cli.Context) (L, o, g float64, err error) {
	if c.IsSet("params") {
		p, err := readParams(c)
		if err != nil {
			return 0, 0, 0, err
		}
		size := c.Int("size")
		if err := checkSize(size); err != nil {
			return 0, 0, 0, err
		}
		if c.IsSet("hops") {
			p.AvgHops = c.Float64("hops")
		}
		L, o, g = p.OptimalLogP(size)
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"L", &L}, {"o", &o}, {"g", &g}} {
		if c.IsSet(f.name) {
			*f.v = c.Float64(f.name)
		} else if !c.IsSet("params") {
			return 0, 0, 0, usageErr("--%s: needed with --optimal (or --params)", f.name)
		}
		if !(*f.v >= 0) || *f.v > 1e9 {
			return 0, 0, 0, usageErr("--%s = %v: allowed 0..1e9 cycles", f.name, *f.v)
		}
	}
	return L, o, g, nil
}
