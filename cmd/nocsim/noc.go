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
			&cli.StringFlag{Name: "energy-plot", Usage: "also draw average power against offered load to `FILE` (.png, .svg or .pdf), and energy per delivered flit to FILE with -per-flit before its extension"},
			&cli.StringFlag{Name: "power-map", Usage: "also draw one point's dynamic power per router and per link on the router grid to `FILE` (.png, .svg or .pdf; mesh, torus or cmesh)"},
			&cli.StringFlag{Name: "link-map", Usage: "also draw one point's link utilisation (flits/cycle per direction) and router buffer occupancy on the router grid to `FILE` (.png, .svg or .pdf; mesh, torus, cmesh or ring), and its stalls per router to FILE with -stalls before its extension"},
			&cli.StringFlag{Name: "samples", Usage: "also write every point's sampled windows (--sample-cycles) as a time series to `FILE`: CSV, or JSON when FILE ends in .json"},
			&cli.StringFlag{Name: "sample-maps", Usage: "also draw the map point's network in every sampled window (link utilisation, flits held per router; one colour scale for all) to `FILE` with -wK before its extension, K the window counted from 1 (at most 100 windows)"},
			&cli.StringFlag{Name: "sample-plot", Usage: "also draw the sampled windows' delivered load over time to `FILE` (.png, .svg or .pdf), a line per point, and their packet latency to FILE with -latency before its extension"},
			&cli.IntFlag{Name: "map-point", Aliases: []string{"power-map-point"}, Usage: "the point --power-map and --link-map draw: `K`, counted from 1 in the table's order (0 = the last load of the first pattern)"},
			&cli.IntFlag{Name: "workers", Usage: "points simulated in parallel (0 = one per core); results do not depend on it"},
			&cli.BoolFlag{Name: "print-config", Usage: "print the effective scenario as TOML and exit"},
			&cli.StringFlag{Name: "watch-packets", Usage: "write the life of these packets at every point: creation, each flit's switch grant at each router, delivery (comma-separated `NUMBERS`, counted from 0 in creation order, warm-up included, as BookSim's watch_packets)"},
			&cli.StringFlag{Name: "watch-out", Usage: "where --watch-packets writes: `FILE`, or - for standard output after the table (default -)"},
			quietFlag,
		}, append(netraceFlags, keyFlags([]string{"network", "noc", "energy"})...)...),
		build: buildNoc,
	}.cli()
}

func buildNoc(c *cli.Context) (*workload, error) {
	if c.String("trace") != "" {
		return buildNocTrace(c)
	}
	if err := traceFlagsWithout(c); err != nil {
		return nil, err
	}
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
	mapPoint, err := mapFlags(c, &sc, pts)
	if err != nil {
		return nil, err
	}
	if err := sampleFlags(c, &sc); err != nil {
		return nil, err
	}
	var samples []report.SampleRow
	var rows []report.NocRow
	var res []traffic.SynthResult
	outputs := []string{"csv", "plot", "energy-plot", "power-map", "link-map", "samples", "sample-plot"}
	linkMap := func(stalls bool) func(b *bytes.Buffer) error {
		return func(b *bytes.Buffer) error {
			p, err := study.NocLinkMapPoint(pts[mapPoint], res[mapPoint], sc.NocTitle())
			if err != nil {
				return err
			}
			if stalls {
				return drawMap(b, func() (plots.Map, error) { return report.NocStallMap(p) }, stallsPath(c.String("link-map")))
			}
			return drawMap(b, func() (plots.Map, error) { return report.NocLinkMap(p) }, c.String("link-map"))
		}
	}
	files := []file{{flag: "csv", write: func(b *bytes.Buffer) error { return report.WriteNocCSV(b, rows) }},
		{flag: "power-map", write: func(b *bytes.Buffer) error {
			return drawMap(b, func() (plots.Map, error) {
				return study.NocPowerMap(pts[mapPoint], res[mapPoint], sc.NocTitle())
			}, c.String("power-map"))
		}},
		{flag: "link-map", write: linkMap(false)},
		{flag: "link-map", write: linkMap(true), suffix: "-stalls"},
		{flag: "samples", write: func(b *bytes.Buffer) error {
			if strings.HasSuffix(c.String("samples"), ".json") {
				return report.WriteJSON(b, samples)
			}
			return report.WriteSamplesCSV(b, samples)
		}}}
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
		files = append(files, file{flag: "watch-out", write: watchLog})
	}
	if path := c.String("sample-maps"); path != "" {
		watchAfter := after
		after = func() error {
			if watchAfter != nil {
				if err := watchAfter(); err != nil {
					return err
				}
			}
			return writeWindowMaps(path, pts[mapPoint], res[mapPoint], sc.NocTitle())
		}
	}
	charts := append([]chart{plotFlag(c, "plot", func() plots.Chart { return report.NocChart(rows, sc.NocTitle()) })},
		energyCharts(c, sc.NocTitle(), &rows)...)
	if path := c.String("sample-plot"); path != "" {
		charts = append(charts,
			chart{flag: "sample-plot", path: path, draw: func() (plots.Chart, error) { l, _ := report.SampleCharts(samples, sc.NocTitle()); return l, nil }},
			chart{flag: "sample-plot", path: suffixPath(path, "-latency"), draw: func() (plots.Chart, error) {
				_, l := report.SampleCharts(samples, sc.NocTitle())
				return l, nil
			}})
	}
	return &workload{
		label: "noc", outputs: outputs,
		run: func(opt scenarios.RunOptions, _ *job) error {
			var err error
			res, err = study.RunNoc(pts, opt)
			if err == nil {
				rows, samples = study.NocRows(pts, res), study.SampleRows(pts, res)
			}
			return err
		},
		print:  printRows(&rows, report.WriteNocTable),
		files:  files,
		after:  after,
		charts: charts,
		flitHops: func() uint64 {
			var hops uint64
			for _, r := range rows {
				hops += r.FlitHops
			}
			return hops
		},
	}, nil
}

// mapFlags checks --energy-plot, --power-map, --link-map and --map-point
// before anything runs, and returns the index of the point the maps draw.
// The energy charts need a priced network: refused with energy_model =
// none; the maps need a router grid: refused on a ring and a bus.
func mapFlags(c *cli.Context, sc *scenarios.Scenario, pts []traffic.Synthetic) (int, error) {
	if c.String("power-map") != "" {
		switch t := sc.Network.TopologyName(); t {
		case scenarios.TopoMesh, scenarios.TopoTorus, scenarios.TopoCMesh:
		default:
			return 0, usageErr("--power-map: topology %s has no router grid to draw; allowed mesh, torus or cmesh", t)
		}
	}
	if c.String("link-map") != "" {
		if err := checkLinkMapTopology(sc); err != nil {
			return 0, err
		}
		if err := plots.CheckExt(c.String("link-map")); err != nil {
			return 0, usageErr("--link-map: %v", err)
		}
		if err := checkSecondFile(c, "link-map", "-stalls", []string{"csv", "plot", "energy-plot", "power-map", "watch-out"}); err != nil {
			return 0, err
		}
	}
	for _, f := range []string{"energy-plot", "power-map"} {
		if c.String(f) == "" {
			continue
		}
		if err := checkEnergyChart(c, sc, f); err != nil {
			return 0, err
		}
	}
	if c.String("energy-plot") != "" {
		if err := checkSecondFile(c, "energy-plot", "-per-flit", []string{"csv", "plot", "power-map", "link-map", "watch-out"}); err != nil {
			return 0, err
		}
	}
	k := c.Int("map-point")
	switch {
	case c.IsSet("map-point") && c.String("power-map") == "" && c.String("link-map") == "":
		return 0, usageErr("--map-point = %d without --power-map or --link-map: allowed only with a map to draw", k)
	case k < 0 || k > len(pts):
		return 0, usageErr("--map-point = %d: allowed 1 to %d, the points in the table's order (or 0, the last load of the first pattern)", k, len(pts))
	case k == 0:
		return study.LastRateOfFirst(pts), nil
	}
	return k - 1, nil
}

// sampleFlags refuses --samples and --sample-plot when nothing is
// sampled (sample_cycles 0), and a chart file --sample-plot cannot draw.
func sampleFlags(c *cli.Context, sc *scenarios.Scenario) error {
	for _, f := range []string{"samples", "sample-plot", "sample-maps"} {
		if c.String(f) != "" && sc.Noc.SampleCycles <= 0 {
			return usageErr("--%s = %q: sample_cycles = 0 samples nothing; allowed with --sample-cycles N (N > 0)", f, c.String(f))
		}
	}
	if p := c.String("sample-maps"); p != "" {
		if err := checkLinkMapTopology(sc); err != nil {
			return usageErr("--sample-maps: %v", strings.TrimPrefix(err.Error(), "--link-map: "))
		}
		if err := plots.CheckExt(p); err != nil {
			return usageErr("--sample-maps: %v", err)
		}
		n := sc.Noc
		if w := (n.WarmupCycles+n.MeasureCycles+n.DrainCycles)/n.SampleCycles + 1; w > maxWindowMaps {
			return usageErr("--sample-maps = %q: sample_cycles = %d cuts a run of up to %d cycles into up to %d windows; allowed at most %d windows to draw (a larger --sample-cycles)",
				p, n.SampleCycles, n.WarmupCycles+n.MeasureCycles+n.DrainCycles, w, maxWindowMaps)
		}
	}
	if p := c.String("sample-plot"); p != "" {
		if err := plots.CheckExt(p); err != nil {
			return usageErr("--sample-plot: %v", err)
		}
		return checkSecondFile(c, "sample-plot", "-latency", []string{"csv", "plot", "energy-plot", "power-map", "link-map", "samples", "watch-out"})
	}
	return nil
}

// checkLinkMapTopology refuses --link-map on a bus, which has no routers
// to draw.
func checkLinkMapTopology(sc *scenarios.Scenario) error {
	if t := sc.Network.TopologyName(); t == scenarios.TopoBus {
		return usageErr("--link-map: topology %s has no routers to draw; allowed mesh, torus, cmesh, ring or ring_uni", t)
	}
	return nil
}

// drawMap encodes the map draw returns into b, in path's format.
func drawMap(b *bytes.Buffer, draw func() (plots.Map, error), path string) error {
	m, err := draw()
	if err != nil {
		return err
	}
	w, err := m.Encode(path)
	if err != nil {
		return err
	}
	_, err = w.WriteTo(b)
	return err
}

// maxWindowMaps bounds --sample-maps' files.
const maxWindowMaps = 100

// writeWindowMaps draws a point's network in each of its sampled windows
// to path with -wK before the extension (K from 1, as wide as the
// largest), each file whole.
func writeWindowMaps(path string, pt traffic.Synthetic, res traffic.SynthResult, machine string) error {
	p, err := study.NocLinkMapPoint(pt, res, machine)
	if err != nil {
		return runErr(err)
	}
	maps, err := report.NocWindowMaps(p, res.Samples)
	if err != nil {
		return runErr(err)
	}
	width := len(strconv.Itoa(len(maps)))
	for k, m := range maps {
		out := suffixPath(path, fmt.Sprintf("-w%0*d", width, k+1))
		if err := scenarios.WriteFile(out, func(b *bytes.Buffer) error { return drawMap(b, func() (plots.Map, error) { return m, nil }, out) }); err != nil {
			return runErr(err)
		}
	}
	return nil
}

// stallsPath is where --link-map draws the stalls map: its path with
// -stalls before the extension.
func stallsPath(path string) string { return suffixPath(path, "-stalls") }

// perFlitPath is where --energy-plot draws energy per delivered flit:
// its path with -per-flit before the extension.
func perFlitPath(path string) string { return suffixPath(path, "-per-flit") }

// energyCharts are --energy-plot's two charts: power, and energy per
// delivered flit beside it.
func energyCharts(c *cli.Context, machine string, rows *[]report.NocRow) []chart {
	path := c.String("energy-plot")
	if path == "" {
		return nil
	}
	return []chart{
		{flag: "energy-plot", path: path, draw: func() (plots.Chart, error) { return report.NocPowerChart(*rows, machine), nil }},
		{flag: "energy-plot", path: perFlitPath(path), draw: func() (plots.Chart, error) {
			ch := report.NocPerFlitChart(*rows, machine)
			if len(ch.Series) == 0 {
				return ch, runErr(fmt.Errorf("--energy-plot: no point delivered a flit in its window: no energy per flit to draw to %s", perFlitPath(path)))
			}
			return ch, nil
		}},
	}
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
