package main

import (
	"bytes"

	"github.com/BurntSushi/toml"
	"github.com/urfave/cli/v2"

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
			quietFlag,
		}, keyFlags([]string{"network", "noc"})...),
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
	if c.Bool("print-config") {
		var b bytes.Buffer
		if err := toml.NewEncoder(&b).Encode(sc); err != nil {
			return nil, runErr(err)
		}
		_, err := c.App.Writer.Write(b.Bytes())
		return nil, err
	}
	var rows []report.NocRow
	return &workload{
		label: "noc", outputs: []string{"csv", "plot"},
		run: func(opt scenarios.RunOptions, _ *job) error {
			res, err := study.RunNoc(pts, opt)
			if err == nil {
				rows = study.NocRows(pts, res)
			}
			return err
		},
		print:  printRows(&rows, report.WriteNocTable),
		files:  []file{{"csv", func(b *bytes.Buffer) error { return report.WriteNocCSV(b, rows) }}},
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
