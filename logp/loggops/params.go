package loggops

import (
	"fmt"
	"math"
)

// DefaultS is LogGOPSim's default eager/rendezvous threshold, bytes.
const DefaultS = 65535

// Params are the LogGOPS parameters; times in cycles.
type Params struct {
	L   float64 // latency: first byte leaves the sender o_s after the send starts and arrives L later
	Os  float64 // o_s: CPU overhead of a send
	Or  float64 // o_r: CPU overhead of a receive
	Gap float64 // g: NIC gap between consecutive messages (send and receive NICs apart)
	G   float64 // gap per byte after the first, cycles/byte
	O   float64 // CPU overhead per byte after the first, cycles/byte
	S   uint64  // messages of more than S bytes use rendezvous, bytes
}

// New is the parameter set with o_s = o_r = o and S = DefaultS.
func New(L, o, g, G, O float64) Params {
	return Params{L: L, Os: o, Or: o, Gap: g, G: G, O: O, S: DefaultS}
}

// SetO sets both overheads, as LogGOPSim's single o does.
func (p *Params) SetO(o float64) { p.Os, p.Or = o, o }

// Validate checks that every time is a finite number >= 0, naming the
// first that is not.
func (p Params) Validate() error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"L", p.L}, {"o_s", p.Os}, {"o_r", p.Or}, {"g", p.Gap}, {"G", p.G}, {"O", p.O}} {
		if !(v.x >= 0) || math.IsInf(v.x, 0) {
			return fmt.Errorf("loggops: %s = %v: allowed a finite number of cycles >= 0", v.name, v.x)
		}
	}
	return nil
}
