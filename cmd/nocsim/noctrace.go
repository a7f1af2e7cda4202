package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/BurntSushi/toml"

	"github.com/urfave/cli/v2"

	"nocsim/endpoint/traffic"
	"nocsim/endpoint/traffic/netrace"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

// nocsim noc --trace FILE: a Netrace trace's packets replayed on the
// network in place of synthetic traffic.

// netraceFlags are noc's flags for replaying a Netrace trace.
var netraceFlags = []cli.Flag{
	&cli.StringFlag{Name: "trace", Usage: "replay the Netrace trace `FILE` (bzip2, v1.0) on the network instead of synthetic traffic (on noc --trace reads a trace; other commands' --trace writes one)"},
	&cli.BoolFlag{Name: "trace-deps", Value: true, Usage: "with --trace: inject a packet only once the packets it depends on are delivered (--trace-deps=false: at its trace cycle alone)"},
	&cli.Float64Flag{Name: "trace-scale", Value: 1, Usage: fmt.Sprintf("with --trace: multiply the trace's cycles by `FACTOR` (above 0, up to %d; below 1 compresses time, raising the load)", traffic.MaxScale)},
	&cli.IntFlag{Name: "trace-packets", Usage: "with --trace: replay only the first `N` packets (0 = all)"},
	&cli.IntFlag{Name: "trace-region", Usage: "with --trace: replay only region `K` of the trace, counted from 1 (0 = the whole trace)"},
}

// synthOnly are noc's flags that configure synthetic traffic or its
// charts and have no meaning for a replay: refused with --trace. Of the
// [noc] keys a replay uses watchdog_cycles alone.
func synthOnly() []string {
	fs := []string{"plot", "energy-plot", "power-map", "link-map", "map-point", "samples", "sample-plot", "sample-maps", "watch-packets", "watch-out", "workers"}
	for _, k := range scenarios.NocKeys {
		if k.Name != "watchdog_cycles" {
			fs = append(fs, flagName(k.Name))
		}
	}
	return fs
}

// buildNocTrace is noc with --trace: the trace is read and checked whole
// (or its part) before anything is simulated.
func buildNocTrace(c *cli.Context) (*workload, error) {
	path := c.String("trace")
	for _, f := range synthOnly() {
		if c.IsSet(f) {
			return nil, usageErr("--%s with --trace: the trace sets the traffic; allowed only without --trace", f)
		}
	}
	scale, packets, region := c.Float64("trace-scale"), c.Int("trace-packets"), c.Int("trace-region")
	switch {
	case !(scale > 0 && scale <= traffic.MaxScale):
		return nil, usageErr("--trace-scale = %g: allowed above 0, up to %d", scale, traffic.MaxScale)
	case packets < 0:
		return nil, usageErr("--trace-packets = %d: allowed 0 (all) or more", packets)
	case region < 0:
		return nil, usageErr("--trace-region = %d: allowed 0 (the whole trace) or a region counted from 1", region)
	}
	sc, src, err := machineFrom(c)
	if err != nil {
		return nil, err
	}
	if c.Bool("print-config") {
		var b bytes.Buffer
		if err := toml.NewEncoder(&b).Encode(sc); err != nil {
			return nil, runErr(err)
		}
		_, err := c.App.Writer.Write(b.Bytes())
		return nil, err
	}
	tr, err := netrace.ReadFile(path, netrace.Options{Region: region, MaxPackets: packets})
	if err != nil {
		var fe *netrace.FormatError
		if errors.As(err, &fe) {
			return nil, usageErr("--trace %s: byte %d of the decompressed trace: expected %s, got %s", path, fe.Offset, fe.Want, fe.Got)
		}
		return nil, usageErr("--trace: %v", err)
	}
	if len(tr.Packets) == 0 {
		return nil, usageErr("--trace %s: no packets to replay (region %d holds none)", path, region)
	}
	rp, err := sc.NocReplay(src, tr, scenarios.ReplayOptions{Deps: c.Bool("trace-deps"), Scale: scale, Region: region})
	if err != nil {
		return nil, usageErr("--trace %s: %v", path, err)
	}
	m, err := scenarios.ParseMesh(sc.Network.Mesh)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	label := scenarios.MeshLabel(m, scenarios.TopoKey(rp.Topo))
	var row report.ReplayRow
	return &workload{
		label: "noc", outputs: []string{"csv"},
		run: func(scenarios.RunOptions, *job) error {
			res, err := rp.Run()
			if err != nil {
				return err
			}
			row = study.ReplayRow(path, label, rp, res)
			return nil
		},
		print: func(w io.Writer, asJSON bool) error {
			if asJSON {
				return report.WriteJSON(w, row)
			}
			return report.WriteReplayTable(w, row)
		},
		files:    []file{{flag: "csv", write: func(b *bytes.Buffer) error { return report.WriteReplayCSV(b, row) }}},
		flitHops: func() uint64 { return row.FlitHops },
	}, nil
}

// traceFlagsWithout refuses --trace-* without --trace.
func traceFlagsWithout(c *cli.Context) error {
	for _, f := range netraceFlags[1:] {
		if n := f.Names()[0]; c.IsSet(n) {
			return usageErr("--%s without --trace: allowed only with a trace to replay", n)
		}
	}
	return nil
}
