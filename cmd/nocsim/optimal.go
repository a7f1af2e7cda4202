package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/urfave/cli/v2"

	"nocsim/logp"
	"nocsim/mesh"
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
	out := c.App.Writer
	if what == "sum" {
		T := c.Float64("time")
		if !(T >= 0) || T > 1e5 {
			return usageErr("--time = %v: allowed 0..100000 cycles", T)
		}
		n, tree := logp.OptimalSummation(T, L, o, g)
		if c.Bool("json") {
			// The root and the partials it receives: the whole tree can
			// have 2^T processors (identical subtrees are shared in memory).
			var kids []map[string]any
			for _, k := range tree.Children {
				kids = append(kids, map[string]any{"done_cycles": k.Done, "operands": k.Operands, "procs": k.Procs})
			}
			return report.WriteJSON(out, map[string]any{"optimal": "sum", "L": L, "o": o, "g": g, "time_cycles": math.Floor(T),
				"operands": n, "procs": tree.Procs, "root_local_operands": tree.Local, "children": kids})
		}
		fmt.Fprintf(out, "optimal summation (LogP L=%g o=%g g=%g): %d operands on %d processors in %g cycles\n", L, o, g, n, tree.Procs, math.Floor(T))
		printSumTree(out, tree, 0, 3)
		return nil
	}
	P := c.Int("procs")
	if P < 1 || P > mesh.MaxDim*mesh.MaxDim {
		return usageErr("--procs = %d: allowed 1..%d", P, mesh.MaxDim*mesh.MaxDim)
	}
	if what == "gather" {
		return printGather(c, P, L, o, g)
	}
	finish, parent, at := logp.OptimalBroadcast(P, L, o, g)
	fromMax, _ := logp.MaxInTransit(logp.BroadcastTransits(parent, at, L, o))
	if c.Bool("json") {
		return report.WriteJSON(out, map[string]any{"optimal": "bcast", "L": L, "o": o, "g": g, "procs": P,
			"finish_cycles": finish, "parent": parent, "at_cycles": at, "capacity": logp.Capacity(L, g), "max_in_transit_from_one": fromMax})
	}
	fmt.Fprintf(out, "optimal broadcast (LogP L=%g o=%g g=%g), P=%d: %g cycles\n", L, o, g, P, finish)
	fmt.Fprintf(out, "capacity ceil(L/g) = %s messages in transit per processor; this schedule has at most %d from one sender\n", capacityText(L, g), fromMax)
	return report.WriteBroadcastSchedule(out, parent, at, L, o)
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
		if size < 0 || size > 1<<30 {
			return 0, 0, 0, usageErr("--size = %d: allowed 0..1073741824 bytes", size)
		}
		hops := p.AvgHops
		if c.IsSet("hops") {
			hops = c.Float64("hops")
		}
		s := p.Seg(size)
		L, o, g = s.L+hops*s.Lh, (s.Os+s.Or)/2, s.Gap
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

// printSumTree prints the summation tree to depth levels, one subtree a
// line, children indented under the processor that receives their
// partial sums (the whole tree can have 2^T processors).
func printSumTree(w interface{ Write([]byte) (int, error) }, t *logp.SumTree, depth, levels int) {
	fmt.Fprintf(w, "%sdone at %d: %d operands (%d local) on %d processors\n", strings.Repeat("  ", depth), t.Done, t.Operands, t.Local, t.Procs)
	if depth+1 >= levels {
		return
	}
	for _, k := range t.Children {
		printSumTree(w, k, depth+1, levels)
	}
}
