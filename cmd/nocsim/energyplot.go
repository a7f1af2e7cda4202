package main

import (
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"nocsim/endpoint/energy"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// suffixPath is path with suffix before its extension: the second file a
// flag that draws two charts writes (power.png -> power-per-flit.png).
func suffixPath(path, suffix string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + suffix + ext
}

// checkSecondFile refuses a flag whose second file (its value with
// suffix) is one another output flag names: the check of the flags
// against one another sees only their values.
func checkSecondFile(c *cli.Context, flag, suffix string, others []string) error {
	p := c.String(flag)
	if !plots.ReplacesFile(p) {
		return usageErr("--%s = %q: it draws two files, FILE and FILE with %s before its extension; allowed a file name", flag, p, suffix)
	}
	if id := plots.SameFile(suffixPath(p, suffix)); id != "" {
		for _, f := range others {
			if q := c.String(f); q != "" && plots.SameFile(q) == id {
				return usageErr("--%s = %q draws %s, which --%s = %q names too; allowed a different file for each output", flag, p, suffixPath(p, suffix), f, q)
			}
		}
	}
	return nil
}

// checkEnergyChart refuses a chart of energy when nothing is priced
// (energy_model = none) or its file cannot be drawn.
func checkEnergyChart(c *cli.Context, sc *scenarios.Scenario, flag string) error {
	if sc.Energy.Model == energy.None {
		return usageErr("--%s: energy_model = none prices nothing to draw; allowed with an energy model (%s, %s or a model file)", flag, energy.DSENT, energy.Noxim)
	}
	if err := plots.CheckExt(c.String(flag)); err != nil {
		return usageErr("--%s: %v", flag, err)
	}
	return nil
}

// collEnergyCharts are coll's --energy-plot charts: each run's energy,
// and its energy-delay product beside it.
func collEnergyCharts(c *cli.Context, rows *[]report.CollRow, x, machine, params string) []chart {
	path := c.String("energy-plot")
	if path == "" {
		return nil
	}
	draw := func(f func([]report.CollRow, string, string, string) plots.Chart) func() (plots.Chart, error) {
		return func() (plots.Chart, error) { return f(*rows, x, machine, params), nil }
	}
	return []chart{
		{flag: "energy-plot", path: path, draw: draw(report.CollEnergyChart)},
		{flag: "energy-plot", path: suffixPath(path, "-edp"), draw: draw(report.CollEDPChart)},
	}
}
