package main

import (
	"bytes"
	"io"

	"github.com/urfave/cli/v2"

	"nocsim/mpi"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

func pingpongCommand() *cli.Command {
	return command{
		name:      "pingpong",
		usage:     "MPI ping-pong between two ranks: one-way and round-trip times per message size",
		usageText: "nocsim pingpong --mesh 4x4 --from 0 --to 15 --sizes 4,64,1024,65536 --protocol scmp",
		flags: append([]cli.Flag{
			configFlag,
			&cli.IntFlag{Name: "from", Usage: "sending rank", Value: 0},
			&cli.IntFlag{Name: "to", Usage: "echoing rank", Value: -1, DefaultText: "the last tile"},
			&cli.StringFlag{Name: "sizes", Usage: "message sizes in bytes, comma-separated", Value: "4,64,1024,65536"},
			&cli.IntFlag{Name: "reps", Usage: "measured round trips per size, after one warm-up", Value: 3},
			&cli.BoolFlag{Name: "json", Usage: "print a JSON array, one object per size"},
			&cli.StringFlag{Name: "trace", Usage: "write a Chrome trace (Perfetto, chrome://tracing) of the run to `FILE`"},
			&cli.BoolFlag{Name: "stats", Usage: "also print per-rank MPI statistics"},
			&cli.StringFlag{Name: "goal-out", Usage: "record the run's communication (every size, warm-up included) as a GOAL schedule to `FILE`"},
			quietFlag,
		}, keyFlags(pricedSections)...),
		build: buildPingPong,
	}.cli()
}

func buildPingPong(c *cli.Context) (*workload, error) {
	sc, src, err := scenarioFrom(c)
	if err != nil {
		return nil, err
	}
	sizes, err := intList(c, "sizes")
	if err != nil {
		return nil, err
	}
	to := c.Int("to")
	if n, ok := sc.Ranks(); ok && to < 0 {
		to = n - 1 // the last rank
	}
	pp := &study.PingPong{From: c.Int("from"), To: to, Sizes: sizes, Reps: c.Int("reps")}
	if err := pp.Check(&sc, src); err != nil {
		return nil, flagError(err, nil, "from", "to", "sizes", "reps")
	}
	var trace bytes.Buffer
	var rows []report.PingRow
	var w *mpi.World
	return &workload{
		label: "pingpong", outputs: []string{"trace", "goal-out"},
		run: func(opt scenarios.RunOptions, _ *job) error {
			if c.String("trace") != "" {
				pp.Trace = &trace
			}
			if opt.Record != nil {
				pp.Record = func(w *mpi.World) { opt.Record("pingpong", w.Trace()) }
			}
			rows, w, err = pp.Run(&sc)
			return err
		},
		print: printRows(&rows, func(w io.Writer, r []report.PingRow) error { return report.WritePingTable(w, r) }),
		after: func() error {
			if c.Bool("stats") {
				report.WriteStats(c.App.Writer, w)
			}
			return nil
		},
		files: []file{{flag: "trace", write: func(b *bytes.Buffer) error { _, err := b.Write(trace.Bytes()); return err }}},
	}, nil
}
