package main

import (
	"math"

	"github.com/urfave/cli/v2"

	"nocsim/mesh"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

// runHockney is `nocsim predict --model hockney`: the slides' two-parameter
// model t(m) = t_s + m t_e, fitted by least squares to a calibration's
// one-way times, predicting a point-to-point message (or its round trip).
func runHockney(c *cli.Context) error {
	op, size := c.String("op"), c.Int("size")
	if op != "p2p" && op != "pingpong" {
		return usageErr("--op = %q: allowed p2p, pingpong with --model hockney (Hockney has no contention, so no collectives)", op)
	}
	if err := checkSize(size); err != nil {
		return err
	}
	var fit study.HockneyFit
	clock := 0.0
	switch path := c.String("csv"); {
	case path != "" && c.IsSet("params"):
		return usageErr("--csv and --params: allowed one of them with --model hockney (the calibration to fit)")
	case path != "":
		hops := -1
		if c.IsSet("hops") {
			h := c.Float64("hops")
			if !(h >= 0) || h > 2*mesh.MaxDim || h != math.Trunc(h) {
				return usageErr("--hops = %v: allowed a whole number 0..%d (the measurements' hop count to fit)", h, 2*mesh.MaxDim)
			}
			hops = int(h)
		}
		ms, err := readMeasurementsCSV(path)
		if err != nil {
			return err
		}
		if fit, err = study.FitHockneyMeasured(ms, hops, path); err != nil {
			return usageErr("--csv %s: %v", path, err)
		}
	case c.IsSet("params"):
		p, err := readParams(c)
		if err != nil {
			return err
		}
		hops := p.AvgHops
		if c.IsSet("hops") {
			hops = c.Float64("hops")
			if !(hops >= 0) || hops > 2*mesh.MaxDim {
				return usageErr("--hops = %v: allowed 0..%d (router-to-router hops)", hops, 2*mesh.MaxDim)
			}
		}
		if fit, err = study.FitHockneyParams(p, hops, c.String("params")); err != nil {
			return usageErr("--params %s: %v", c.String("params"), err)
		}
		clock = p.ClockHz
	default:
		return usageErr("--model = hockney: needs a calibration, --csv (measurements) or --params")
	}
	if validateOnly {
		return nil
	}
	return report.WriteHockney(c.App.Writer, c.Bool("json"), report.HockneyPrediction{Op: op, Size: size, Fit: fit.Hockney,
		Source: fit.Source, Sizes: fit.Sizes, Times: fit.Times, ClockHz: clock})
}
