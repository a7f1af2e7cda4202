package main

import (
	"errors"
	"fmt"
	"nocsim/scenarios/sweep"
	"path/filepath"

	"github.com/urfave/cli/v2"
)

// shardFlags split a sweep over machines: --shard runs one share of the
// points, --slurm writes (and --submit submits) a job array of shards.
func shardFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "shard", Usage: "run only shard i of n (i/n, 0 <= i < n): the points whose index is i modulo n, into [output] dir/shard-i-of-n (or --out); merge the shards with nocsim sweep merge"},
		&cli.StringFlag{Name: "out", Usage: "results directory instead of [output] dir (with --shard: the shard's own directory; with --slurm: where the script, the Slurm logs and the shard directories go)"},
		&cli.BoolFlag{Name: "slurm", Usage: "write a Slurm job-array script, one array task per shard, into the output directory (sweep-slurm.sh); nothing is simulated here"},
		&cli.IntFlag{Name: "shards", Usage: "with --slurm: number of shards (array tasks), at most Slurm's MaxArraySize (asked of scontrol show config; 1001 where scontrol is missing)", DefaultText: "one per point, at most 1000"},
		&cli.StringFlag{Name: "sbatch-args", Usage: "with --slurm: sbatch options written into the script, e.g. \"--partition=short --time=30 --cpus-per-task=4\" (a task runs --cpus-per-task points in parallel)"},
		&cli.BoolFlag{Name: "submit", Usage: "with --slurm: submit the script with sbatch (which must be on PATH) and print the job id"},
	}
}

// shardOptions are the sweep's sharding flags, checked.
type shardOptions struct {
	sharded bool
	shard   sweep.Shard
	out     string
	slurm   bool
	shards  int // 0: one per point
	// arrayLimit is the most array tasks sbatch takes, and arrayFrom
	// where that figure comes from.
	arrayLimit int
	arrayFrom  string
	sbatch     [][]string
	submit     bool
}

func shardOptionsOf(c *cli.Context) (shardOptions, error) {
	so := shardOptions{out: c.String("out"), slurm: c.Bool("slurm"), submit: c.Bool("submit"), shards: c.Int("shards")}
	if c.IsSet("out") && so.out == "" {
		return so, usageErr("--out = \"\": allowed a directory path")
	}
	if c.IsSet("shard") {
		s, err := sweep.ParseShard(c.String("shard"))
		if err != nil {
			return so, usageErr("--shard %v", err)
		}
		so.sharded, so.shard = true, s
	}
	if !so.slurm {
		for _, f := range []string{"shards", "sbatch-args", "submit"} {
			if c.IsSet(f) {
				return so, usageErr("--%s goes with --slurm (it says how the job array is written or submitted)", f)
			}
		}
		return so, nil
	}
	if so.sharded {
		return so, usageErr("--shard %s with --slurm: the job array runs every shard itself; give --shards n", c.String("shard"))
	}
	if c.IsSet("jobs") {
		return so, usageErr("--jobs %d with --slurm: a task runs as many points at a time as it has CPUs (give --sbatch-args \"--cpus-per-task=N\")", c.Int("jobs"))
	}
	if c.Bool("resume") {
		return so, usageErr("--resume with --slurm: every array task resumes its shard already (resubmit the script to finish a sweep)")
	}
	so.arrayLimit, so.arrayFrom = sweep.ArrayLimit()
	if c.IsSet("shards") && (so.shards < 1 || so.shards > so.arrayLimit) {
		return so, usageErr("--shards = %d: allowed 1..%d (one array task per shard, task ids 0..n-1, and Slurm's MaxArraySize is %d: %s)", so.shards, so.arrayLimit, so.arrayLimit, so.arrayFrom)
	}
	args, err := sweep.SbatchArgs(c.String("sbatch-args"))
	if err != nil {
		return so, usageErr("--sbatch-args %v", err)
	}
	so.sbatch = args
	return so, nil
}

// checkSweepDir checks the directory a sweep or shard writes into, naming
// the flag or key that chose it.
func checkSweepDir(so shardOptions, dir string) error {
	if so.out != "" {
		return checkOutputDir("--out", dir)
	}
	return checkScenarioDir(dir)
}

func sweepMergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "merge the directories of every shard of a sweep (--shard, --slurm) into the files one machine's sweep writes",
		UsageText: "nocsim sweep merge --out DIR SHARD_DIR...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "where the merged points.jsonl, points.csv, summary.csv, config.toml, meta.json and sweep.png go (may hold the shard directories)"},
		},
		Action: func(c *cli.Context) error {
			out := c.String("out")
			if out == "" {
				return usageErr("sweep merge: --out DIR is required (where the merged sweep goes)")
			}
			if c.NArg() == 0 {
				return usageErr("sweep merge: give the shard directories (e.g. results/NAME/shard-*-of-4)")
			}
			if err := checkOutputDir("--out", out); err != nil {
				return err
			}
			if validateOnly {
				return nil
			}
			res, err := sweep.Merge(c.Args().Slice(), out)
			var refused *sweep.MergeRefusal
			if errors.As(err, &refused) {
				return usageErr("sweep merge: %v", err)
			}
			if err != nil {
				return runErr(err)
			}
			fmt.Fprintf(c.App.Writer, "sweep %q: %d shards merged, %d points, %d failed; %s/points.jsonl and %s/summary.csv\n",
				res.Scenario, c.NArg(), res.Points, res.Failed, out, out)
			if res.Chart {
				fmt.Fprintf(c.App.Writer, "chart: %s\n", filepath.Join(out, "sweep.png"))
			}
			return nil
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageErr("sweep merge: %v", err) },
	}
}

// subcommandsHelpTemplate is the help of a command that has subcommands and
// flags of its own: urfave/cli's template for such commands stops before
// both lists.
const subcommandsHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{template "usageTemplate" .}}

COMMANDS:{{range .VisibleCommands}}
   {{join .Names ", "}}{{"\t"}}{{.Usage}}{{end}}

OPTIONS:{{template "visibleFlagTemplate" .}}
`
