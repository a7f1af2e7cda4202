package scenarios

import (
	"nocsim/logp"
	"nocsim/logp/loggops"
)

// Minimal mapping of fitted LogGP parameters to the LogGOPS tier, for the
// collective sweeps past the chip. (Another change defines the full
// mapping, TierParams; this one is kept to what those sweeps need.)

// TierParams maps fitted parameters to the tier with the segment of the
// smallest messages.
func TierParams(p logp.Params) loggops.Params { return tierParamsAt(p, 1) }

// tierParamsAt uses the segment covering bytes-byte messages: o_s, o_r, g
// and G as fitted, L plus the mean hop count times the per-hop latency
// (ranks of a collective past the chip have no tiles: the mean distance
// of the fitted machine stands for all), no per-byte CPU overhead, and
// LogGOPSim's default eager threshold.
func tierParamsAt(p logp.Params, bytes int) loggops.Params {
	s := p.Seg(bytes)
	return loggops.Params{L: s.L + p.AvgHops*s.Lh, Os: s.Os, Or: s.Or, Gap: s.Gap, G: s.G, S: loggops.DefaultS}
}
