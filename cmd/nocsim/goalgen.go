package main

import (
	"bytes"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"nocsim/coll"
	"nocsim/logp/collgen"
	"nocsim/logp/goal"
	"nocsim/scenarios"
)

func goalGenCommand() *cli.Command {
	return command{
		name:      "goal gen",
		usage:     "write the GOAL schedule of one call of a registered collective algorithm, at any rank count",
		usageText: "nocsim goal gen --op bcast --alg binomial --procs 1024 --size 8 [--out FILE]\n   nocsim goal gen --op bcast --alg optimal --procs 64 --size 8 --L 40 --o 8 --g 12",
		flags: []cli.Flag{
			&cli.StringFlag{Name: "op", Usage: "operation: " + strings.Join(collgen.Ops, ", ")},
			&cli.StringFlag{Name: "alg", Usage: "algorithm (nocsim coll's names for the operation)"},
			&cli.IntFlag{Name: "procs", Usage: "ranks"},
			&cli.Int64Flag{Name: "size", Usage: "bytes, as nocsim coll's --sizes for the operation (barrier: none)"},
			&cli.IntFlag{Name: "root", Usage: "root rank of bcast, scatter, gather, reduce"},
			&cli.Int64Flag{Name: "flop-cycles", Usage: "cycles per element combined by a reduction (calc ops)", Value: 1},
			&cli.Int64Flag{Name: "copy-cycles", Usage: "cycles per word the MPI code charges for a copy (0: no copy calcs)"},
			&cli.IntFlag{Name: "elem-bytes", Usage: "bytes per reduction element", Value: 8},
			&cli.Float64Flag{Name: "L", Usage: "bcast optimal: the LogP latency its tree is built for (cycles; mpi's optimal_L)", Value: collgen.DefaultOptions().OptimalL},
			&cli.Float64Flag{Name: "o", Usage: "bcast optimal: the LogP overhead its tree is built for (cycles; mpi's optimal_o)", Value: collgen.DefaultOptions().OptimalO},
			&cli.Float64Flag{Name: "g", Usage: "bcast optimal: the LogP gap its tree is built for (cycles; mpi's optimal_g)", Value: collgen.DefaultOptions().OptimalG},
			&cli.StringFlag{Name: "out", Usage: "write the schedule to `FILE` (default: standard output)"},
		},
		build: buildGoalGen,
	}.cli()
}

// genOptions checks the flags that describe one generated collective.
func genOptions(c *cli.Context) (op, alg string, procs int, size int64, opt collgen.Options, err error) {
	op, alg, procs, size = c.String("op"), c.String("alg"), c.Int("procs"), c.Int64("size")
	for _, f := range []string{"op", "alg", "procs", "size"} {
		if !c.IsSet(f) && !(f == "size" && op == "barrier") {
			return op, alg, procs, size, opt, usageErr("--%s is required (see nocsim goal gen --help)", f)
		}
	}
	if !slices.Contains(collgen.Ops, op) {
		return op, alg, procs, size, opt, usageErr("--op = %q: allowed %s", op, strings.Join(collgen.Ops, ", "))
	}
	if names := collgen.Algorithms(op); !slices.Contains(names, alg) {
		if coll.IsNative(op, alg) {
			// The Cray X1 algorithms move data with remote stores and
			// getBlocks, which are not MPI messages: no GOAL schedule.
			return op, alg, procs, size, opt, usageErr("--alg = %q: a native algorithm (remote stores and getBlocks, not MPI messages) has no GOAL schedule; allowed for %s: %s", alg, op, strings.Join(names, ", "))
		}
		return op, alg, procs, size, opt, usageErr("--alg = %q: allowed for %s: %s", alg, op, strings.Join(names, ", "))
	}
	if procs < 1 || procs > collgen.MaxProcs {
		return op, alg, procs, size, opt, usageErr("--procs = %d: allowed 1..%d", procs, collgen.MaxProcs)
	}
	opt = collgen.DefaultOptions()
	opt.Root = c.Int("root")
	if collgen.Rooted(op) && (opt.Root < 0 || opt.Root >= procs) {
		return op, alg, procs, size, opt, usageErr("--root = %d: allowed 0..%d", opt.Root, procs-1)
	}
	eb := c.Int("elem-bytes")
	if eb < 1 || eb > 1<<20 {
		return op, alg, procs, size, opt, usageErr("--elem-bytes = %d: allowed 1..%d", eb, 1<<20)
	}
	opt.ElemBytes = eb
	if size < 0 || size > 1<<40 || collgen.IsReduction(op) && size%int64(eb) != 0 {
		allowed := "0..1099511627776 bytes"
		if collgen.IsReduction(op) {
			allowed += ", a multiple of --elem-bytes"
		}
		return op, alg, procs, size, opt, usageErr("--size = %d: allowed %s", size, allowed)
	}
	for _, f := range []string{"flop-cycles", "copy-cycles"} {
		if v := c.Int64(f); v < 0 || v > 1<<40 {
			return op, alg, procs, size, opt, usageErr("--%s = %d: allowed 0..%d", f, v, int64(1)<<40)
		}
	}
	opt.FlopCycles, opt.CopyCyclesPerWord = uint64(c.Int64("flop-cycles")), uint64(c.Int64("copy-cycles"))
	// The optimal broadcast's tree depends on L, o and g (mpi's config
	// keys, same range); no other algorithm reads them, so giving them
	// elsewhere is a mistake, not a no-op.
	tree := []*float64{&opt.OptimalL, &opt.OptimalO, &opt.OptimalG}
	for i, f := range []string{"L", "o", "g"} {
		v := c.Float64(f)
		if !(v >= 0 && v <= 1e9) {
			return op, alg, procs, size, opt, usageErr("--%s = %v: allowed 0..1e9 (cycles)", f, v)
		}
		if a := coll.Lookup(op, alg); c.IsSet(f) && (a == nil || !a.OptimalTree) {
			return op, alg, procs, size, opt, usageErr("--%s: only for an algorithm on the optimal LogP tree (--op bcast --alg optimal: the parameters its tree is built for), not %s %s", f, op, alg)
		}
		*tree[i] = v
	}
	if est := collgen.Estimate(op, alg, procs); est > collgen.MaxOps {
		return op, alg, procs, size, opt, usageErr("--procs = %d: %s %s needs about %d operations there (about %.1f GB on the tier), allowed at most %d (fewer ranks)", procs, op, alg, est, float64(collgen.Memory(est, procs))/1e9, int64(collgen.MaxOps))
	}
	return op, alg, procs, size, opt, nil
}

// buildGoalGen writes the schedule to --out, else to standard output.
func buildGoalGen(c *cli.Context) (*workload, error) {
	op, alg, procs, size, opt, err := genOptions(c)
	if err != nil {
		return nil, err
	}
	var s *goal.Schedule
	out := c.String("out")
	return &workload{
		outputs: []string{"out"},
		run: func(scenarios.RunOptions, *job) error {
			s, err = collgen.Generate(op, alg, procs, size, opt)
			return err
		},
		print: func(w io.Writer, _ bool) error {
			if out != "" {
				return nil
			}
			return goal.Write(w, s)
		},
		files: []file{{flag: "out", write: func(b *bytes.Buffer) error { return goal.Write(b, s) }}},
	}, nil
}
