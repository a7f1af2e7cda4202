package main

import (
	"fmt"
	"math"

	"github.com/urfave/cli/v2"

	"nocsim/logp"
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
	if size < 0 || size > 1<<30 {
		return usageErr("--size = %d: allowed 0..1073741824 bytes", size)
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
	k := 1.0
	if op == "pingpong" {
		k = 2
	}
	terms := []logp.Term{{Name: fmt.Sprintf("%gx t_s", k), Cycles: k * fit.Ts}, {Name: fmt.Sprintf("%gx m*t_e", k), Cycles: k * float64(size) * fit.Te}}
	cycles := k * fit.Time(size)
	if c.Bool("json") {
		out := map[string]any{"model": "hockney", "op": op, "size_bytes": size, "t_s_cycles": fit.Ts, "t_e_cycles_per_byte": fit.Te,
			"fit_source": fit.Source, "fit_sizes_bytes": fit.Sizes, "fit_one_way_cycles": fit.Times, "predicted_cycles": cycles, "terms": terms}
		if clock > 0 {
			out["predicted_seconds"] = cycles / clock
		}
		return report.WriteJSON(c.App.Writer, out)
	}
	w := c.App.Writer
	us := ""
	if clock > 0 {
		us = fmt.Sprintf(" (%.3f us)", cycles/clock*1e6)
	}
	fmt.Fprintf(w, "%s Hockney, %d bytes: %.1f cycles%s\n", op, size, cycles, us)
	report.WriteTerms(w, terms)
	fmt.Fprintf(w, "fit: t_s = %.2f cycles, t_e = %.4f cycles/byte, least squares on %d one-way times from %s\n", fit.Ts, fit.Te, len(fit.Sizes), fit.Source)
	return nil
}
