package main

import (
	"bytes"
	"errors"
	"slices"

	"github.com/urfave/cli/v2"

	"nocsim/config"
	"nocsim/mpi"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

func pingpongCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "scenario TOML file; flags override its keys"},
		&cli.IntFlag{Name: "from", Usage: "sending rank", Value: 0},
		&cli.IntFlag{Name: "to", Usage: "echoing rank", Value: -1, DefaultText: "the last tile"},
		&cli.StringFlag{Name: "sizes", Usage: "message sizes in bytes, comma-separated", Value: "4,64,1024,65536"},
		&cli.IntFlag{Name: "reps", Usage: "measured round trips per size, after one warm-up", Value: 3},
		&cli.BoolFlag{Name: "json", Usage: "print a JSON array, one object per size"},
		&cli.StringFlag{Name: "trace", Usage: "write a Chrome trace (Perfetto, chrome://tracing) of the run to `FILE`"},
		&cli.BoolFlag{Name: "stats", Usage: "also print per-rank MPI statistics"},
		&cli.StringFlag{Name: "goal-out", Usage: "record the run's communication (every size, warm-up included) as a GOAL schedule to `FILE`"},
		quietFlag,
	}
	return &cli.Command{
		Name:      "pingpong",
		Usage:     "MPI ping-pong between two ranks: one-way and round-trip times per message size",
		UsageText: "nocsim pingpong --mesh 4x4 --from 0 --to 15 --sizes 4,64,1024,65536 --protocol scmp",
		Flags:     append(flags, keyFlags(machineSections)...),
		Action:    runPingPong,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageErr("pingpong: %v (see nocsim pingpong --help)", err)
		},
	}
}

func runPingPong(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErr("pingpong takes no arguments, got %q", c.Args().Slice())
	}
	sc, src, err := scenarioFrom(c)
	if err != nil {
		return err
	}
	sizes, err := parseInts("sizes", c.String("sizes"))
	if err != nil {
		return usageErr("%v", err)
	}
	to := c.Int("to")
	if to < 0 {
		if m, err := scenarios.ParseMesh(sc.Network.Mesh); err == nil {
			to = m.Nodes() - 1
			if sc.MPI.Procs > 0 {
				to = sc.MPI.Procs - 1
			}
		}
	}
	pp := &scenarios.PingPong{From: c.Int("from"), To: to, Sizes: sizes, Reps: c.Int("reps")}
	if err := pp.Check(&sc, src); err != nil {
		var ke *config.KeyError
		if errors.As(err, &ke) && slices.Contains([]string{"from", "to", "sizes", "reps"}, ke.Key) {
			return usageErr("--%s = %s: allowed %s", ke.Key, ke.Value, ke.Allowed)
		}
		return usageErr("%v", err)
	}
	if err := checkOutputFlags(c, []string{"trace", "goal-out"}, nil); err != nil {
		return err
	}
	if validateOnly {
		return nil
	}
	var trace bytes.Buffer
	if c.String("trace") != "" {
		pp.Trace = &trace
	}
	var rec *scenarios.GoalRecording
	if c.String("goal-out") != "" {
		rec = scenarios.NewGoalRecording()
		pp.Record = func(w *mpi.World) { rec.Record("pingpong", w.Trace()) }
	}
	job := startJob(c, "pingpong")
	defer job.stop()
	rows, w, err := pp.Run(&sc)
	if err != nil {
		return runErr(err)
	}
	if err := writeGoalFiles(c, rec, c.String("goal-out")); err != nil {
		return err
	}
	out := c.App.Writer
	if c.Bool("json") {
		err = report.WriteJSON(out, rows)
	} else {
		err = report.WritePingTable(out, rows)
	}
	if err != nil {
		return runErr(err)
	}
	if c.Bool("stats") {
		report.WriteStats(out, w)
	}
	if path := c.String("trace"); path != "" {
		if err := scenarios.WriteFile(path, func(b *bytes.Buffer) error { _, err := b.Write(trace.Bytes()); return err }); err != nil {
			return runErr(err)
		}
	}
	job.end(0)
	return nil
}
