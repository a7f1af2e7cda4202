package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"nocsim/scenarios/study"
	"nocsim/scenarios/sweep"
)

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:      "sweep",
		Usage:     "run every point of a scenario file's [sweep] axes (and repetitions), in parallel; points.jsonl and summary.csv in [output] dir",
		UsageText: "nocsim sweep [--jobs N] [--resume] [--shard i/n] [--out DIR] FILE\nnocsim sweep --slurm [--shards n] [--sbatch-args \"...\"] [--submit] [--out DIR] FILE\nnocsim sweep merge --out DIR SHARD_DIR...",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "jobs", Usage: "points simulated in parallel (0 = one per CPU); results do not depend on it"},
			&cli.BoolFlag{Name: "resume", Usage: "reuse the points in points.jsonl whose configuration is still a point of the sweep; recompute the rest"},
			reportFlag,
			quietFlag,
		}, shardFlags()...),
		Subcommands: []*cli.Command{sweepMergeCommand()},
		// urfave/cli's template for a command with subcommands stops
		// before the flags under `nocsim help sweep`; this one lists both.
		CustomHelpTemplate: subcommandsHelpTemplate,
		Action: func(c *cli.Context) error {
			if err := checkWorkers(c, "jobs"); err != nil {
				return err
			}
			so, err := shardOptionsOf(c)
			if err != nil {
				return err
			}
			if so.slurm && c.Bool("report") {
				return usageErr("--report with --slurm: the job array's tasks write no report; allowed --report without --slurm, or nocsim report on the merged directory")
			}
			sc, src, err := loadScenarioArg(c)
			if err != nil {
				return err
			}
			if len(sc.Sweep.Axis) == 0 && sc.Sweep.Reps <= 1 {
				return usageErr("%s has no [[sweep.axis]] and no [sweep] reps: use nocsim run for a single point", c.Args().First())
			}
			pts, scs, err := sweep.Points(&sc, src)
			if err != nil {
				return usageErr("%v", err)
			}
			total := len(pts)
			dir := sc.OutputDir()
			if so.out != "" {
				dir = so.out
			}
			if so.slurm {
				return writeSlurmScript(c, &sc, dir, so, total)
			}
			if so.sharded {
				if so.out == "" {
					dir = filepath.Join(dir, so.shard.DirName())
				}
				pts, scs = so.shard.Select(pts, scs)
			}
			if err := checkSweepDir(so, dir); err != nil {
				return err
			}
			if validateOnly {
				return nil
			}
			job := startJob(c, "sweep")
			defer job.stop()
			if so.sharded {
				if err := sweep.StartShard(dir); err != nil {
					return runErr(err)
				}
			}
			if err := removeReportPages(dir); err != nil {
				return runErr(err)
			}
			if err := sc.WriteRecordIn(dir, src, provenance(c)); err != nil {
				return runErr(err)
			}
			// What a resume reused is said even with --quiet: it is what the
			// results are made of.
			resumed := func(rc sweep.ResumeCounts) {
				fmt.Fprintf(c.App.ErrWriter, "sweep: resume: %d points reused, %d recomputed, %d recorded points dropped (not points of this sweep, or unreadable)\n",
					rc.Reused, rc.Recomputed, rc.Dropped)
				// The ETA counts only the points this process computes.
				job.bar.Resumed(rc.Reused, rc.Reused+rc.Recomputed)
			}
			pts, _, err = sweep.Run(pts, scs, dir, sweep.Options{Run: study.WorkloadRows, Workers: c.Int("jobs"), Resume: c.Bool("resume"), Progress: job.bar.SweepUpdate, Resumed: resumed})
			job.stop()
			if err != nil {
				return runErr(err)
			}
			// The speed goes into meta.json once the points are done (a
			// resumed sweep's speed counts the points computed here).
			if sp, ok := job.speed.Speed(0); ok {
				if err := sc.WriteSpeedIn(dir, provenance(c), sp); err != nil {
					return runErr(err)
				}
				job.report(sp)
			}
			failed := sweep.Failed(pts)
			if so.sharded {
				// The merge draws the chart, from every shard's points.
				if err := sweep.FinishShard(&sc, dir, so.shard, pts, total); err != nil {
					return runErr(err)
				}
				fmt.Fprintf(c.App.Writer, "sweep %q shard %s: %d of %d points, %d failed; %s/points.jsonl (merge the shards with nocsim sweep merge)\n",
					sc.Name, so.shard, len(pts), total, failed, dir)
				return sweepReport(c, dir)
			}
			fmt.Fprintf(c.App.Writer, "sweep %q: %d points, %d failed; %s/points.jsonl and %s/summary.csv\n", sc.Name, len(pts), failed, dir, dir)
			if sc.Output.Plots {
				if ch, ok := sweep.Chart(pts, sc.Name, &sc); ok {
					path := filepath.Join(dir, "sweep.png")
					if err := ch.Save(path, 0, 0); err != nil {
						return runErr(err)
					}
					fmt.Fprintf(c.App.Writer, "chart: %s (mean against %s, 95%% interval bars)\n", path, ch.XLabel)
				}
			}
			return sweepReport(c, dir)
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageErr("sweep: %v", err) },
	}
}

// sweepReport writes, with --report, the sweep directory's report pages
// once its points and chart are written.
func sweepReport(c *cli.Context, dir string) error {
	if !c.Bool("report") {
		return nil
	}
	files, err := writeReportDir(dir)
	if err != nil {
		return runErr(err)
	}
	fmt.Fprintf(c.App.Writer, "report: %s (and %d point pages under %s)\n", files[0], len(files)-1, filepath.Join(dir, "points"))
	return nil
}
