package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/urfave/cli/v2"

	"nocsim/endpoint/traffic"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

// nocsim noc: synthetic traffic, latency against offered load.

func nocCommand() *cli.Command {
	return command{
		name:      "noc",
		usage:     "latency against offered load under synthetic traffic",
		usageText: "nocsim noc --mesh 8x8 --traffic uniform --rates 0.02,0.1,0.3 --packet-flits 5 --vcs 2 --vc-buf 8 --seed 1",
		flags: append([]cli.Flag{
			configFlag,
			&cli.BoolFlag{Name: "json", Usage: "print a JSON array, one object per point, instead of the table"},
			&cli.StringFlag{Name: "csv", Usage: "also write the table as CSV to `FILE`"},
			&cli.StringFlag{Name: "plot", Usage: "also draw latency against offered load to `FILE` (.png, .svg or .pdf)"},
			&cli.IntFlag{Name: "workers", Usage: "points simulated in parallel (0 = one per core); results do not depend on it"},
			&cli.BoolFlag{Name: "print-config", Usage: "print the effective scenario as TOML and exit"},
			&cli.StringFlag{Name: "watch-packets", Usage: "write the life of these packets at every point: creation, each flit's switch grant at each router, delivery (comma-separated `NUMBERS`, counted from 0 in creation order, warm-up included, as BookSim's watch_packets)"},
			&cli.StringFlag{Name: "watch-out", Usage: "where --watch-packets writes: `FILE`, or - for standard output after the table (default -)"},
			quietFlag,
		}, keyFlags([]string{"network", "noc", "energy"})...),
		build: buildNoc,
	}.cli()
}

func buildNoc(c *cli.Context) (*workload, error) {
	sc, src, err := machineFrom(c)
	if err != nil {
		return nil, err
	}
	if err := checkWorkers(c, "workers"); err != nil {
		return nil, err
	}
	pts, err := sc.NocPoints(src)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	watched, err := watchFlags(c)
	if err != nil {
		return nil, err
	}
	for i := range pts {
		pts[i].WatchPackets = watched
	}
	if c.Bool("print-config") {
		var b bytes.Buffer
		if err := toml.NewEncoder(&b).Encode(sc); err != nil {
			return nil, runErr(err)
		}
		_, err := c.App.Writer.Write(b.Bytes())
		return nil, err
	}
	var rows []report.NocRow
	var res []traffic.SynthResult
	outputs := []string{"csv", "plot"}
	files := []file{{"csv", func(b *bytes.Buffer) error { return report.WriteNocCSV(b, rows) }}}
	var after func() error
	watchLog := func(b *bytes.Buffer) error { writeWatch(b, pts, res); return nil }
	switch out := c.String("watch-out"); {
	case watched == nil:
	case out == "" || out == "-":
		after = func() error {
			var b bytes.Buffer
			writeWatch(&b, pts, res)
			_, err := c.App.Writer.Write(b.Bytes())
			return err
		}
	default:
		outputs = append(outputs, "watch-out")
		files = append(files, file{"watch-out", watchLog})
	}
	return &workload{
		label: "noc", outputs: outputs,
		run: func(opt scenarios.RunOptions, _ *job) error {
			var err error
			res, err = study.RunNoc(pts, opt)
			if err == nil {
				rows = study.NocRows(pts, res)
			}
			return err
		},
		print:  printRows(&rows, report.WriteNocTable),
		files:  files,
		after:  after,
		charts: []chart{plotFlag(c, "plot", func() plots.Chart { return report.NocChart(rows, sc.NocTitle()) })},
		flitHops: func() uint64 {
			var hops uint64
			for _, r := range rows {
				hops += r.FlitHops
			}
			return hops
		},
	}, nil
}

// watchFlags reads --watch-packets (nil when not given) and checks that
// --watch-out comes with it.
func watchFlags(c *cli.Context) ([]int64, error) {
	text := c.String("watch-packets")
	if text == "" {
		if c.IsSet("watch-out") {
			return nil, usageErr("--watch-out = %q without --watch-packets: allowed only with the packets to watch", c.String("watch-out"))
		}
		return nil, nil
	}
	var ids []int64
	for _, f := range strings.Split(text, ",") {
		id, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || id < 0 {
			return nil, usageErr("--watch-packets = %q: allowed comma-separated packet numbers, 0 or more", text)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// writeWatch writes each point's watched packets under a line naming the
// point.
func writeWatch(b *bytes.Buffer, pts []traffic.Synthetic, res []traffic.SynthResult) {
	for i, r := range res {
		fmt.Fprintf(b, "# point %d: %s at %g flits/node/cycle, seed %d; cycle | component | event\n", i+1, r.Traffic, pts[i].Rate, pts[i].Seed)
		b.Write(r.Watch)
	}
}
