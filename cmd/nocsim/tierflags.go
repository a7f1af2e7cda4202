package main

import (
	"math"

	"github.com/urfave/cli/v2"

	"nocsim/logp/loggops"
)

// logGOPSNames are the LogGOPS tier's time parameters as flags, in the
// order they are reported (--S, a size, comes with them).
var logGOPSNames = []string{"L", "o", "o-s", "o-r", "g", "G", "O"}

// logGOPSFlags are the LogGOPS tier's parameters as flags, for every
// command that runs the tier (goal run, coll --tier loggops).
func logGOPSFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "L", Usage: "LogGOPS tier: latency (cycles)"},
		&cli.Float64Flag{Name: "o", Usage: "LogGOPS tier: CPU overhead of a send and of a receive (cycles); sets o_s and o_r"},
		&cli.Float64Flag{Name: "o-s", Usage: "LogGOPS tier: send overhead o_s (cycles; wins over --o)"},
		&cli.Float64Flag{Name: "o-r", Usage: "LogGOPS tier: receive overhead o_r (cycles; wins over --o)"},
		&cli.Float64Flag{Name: "g", Usage: "LogGOPS tier: gap between messages (cycles)"},
		&cli.Float64Flag{Name: "G", Usage: "LogGOPS tier: gap per byte (cycles/byte)"},
		&cli.Float64Flag{Name: "O", Usage: "LogGOPS tier: CPU overhead per byte (cycles/byte)"},
		&cli.Uint64Flag{Name: "S", Usage: "LogGOPS tier: messages above S bytes use rendezvous (bytes)", Value: loggops.DefaultS},
	}
}

// logGOPSFromFlags reads the LogGOPS flags: every time a finite number >=
// 0; unset ones are 0 (S: LogGOPSim's default).
func logGOPSFromFlags(c *cli.Context, given map[string]bool) (loggops.Params, error) {
	v := map[string]float64{}
	for _, n := range logGOPSNames {
		x := c.Float64(n)
		if !(x >= 0) || math.IsInf(x, 0) {
			unit := "cycles"
			if n == "G" || n == "O" {
				unit = "cycles/byte"
			}
			return loggops.Params{}, usageErr("--%s = %v: allowed a finite number >= 0 (%s)", n, x, unit)
		}
		v[n] = x
	}
	p := loggops.Params{L: v["L"], Os: v["o"], Or: v["o"], Gap: v["g"], G: v["G"], O: v["O"], S: c.Uint64("S")}
	if given["o-s"] {
		p.Os = v["o-s"]
	}
	if given["o-r"] {
		p.Or = v["o-r"]
	}
	return p, nil
}

// givenFlags is the set of flags given on the command line.
func givenFlags(c *cli.Context) map[string]bool {
	given := map[string]bool{}
	for _, n := range c.LocalFlagNames() {
		given[n] = true
	}
	return given
}
