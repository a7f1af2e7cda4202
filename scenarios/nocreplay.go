package scenarios

import (
	"nocsim/des"
	"nocsim/endpoint/traffic"
	"nocsim/endpoint/traffic/netrace"
)

// ReplayOptions are how noc replays a Netrace trace (its --trace flags):
// with or without the trace's dependencies, its cycles multiplied by
// Scale, and which part of it was read (Region counted from 1, 0 the
// whole trace).
type ReplayOptions struct {
	Deps   bool
	Scale  float64
	Region int
}

// NocReplay validates the scenario's [network], [energy] and the [noc]
// keys a replay uses (watchdog_cycles), and returns the replay of tr on
// the network: packets sized at [energy] flit_bits, the network's one
// flit width. Nothing is simulated.
func (sc *Scenario) NocReplay(src Source, tr *netrace.Trace, o ReplayOptions) (traffic.Replay, error) {
	topo, err := sc.Network.Topology()
	if err != nil {
		return traffic.Replay{}, Explain(err, src)
	}
	if err := sc.Network.checkPreset(); err != nil {
		return traffic.Replay{}, Explain(err, src)
	}
	if err := sc.checkEnergy(src); err != nil {
		return traffic.Replay{}, err
	}
	r := traffic.Replay{Topo: topo, Router: sc.Network.RouterSpec, Endpoint: sc.Network.NodeSpec, Trace: tr,
		FlitBits: sc.Energy.FlitBits, Deps: o.Deps, Scale: o.Scale, Watchdog: des.Time(sc.Noc.WatchdogCycles)}
	// The recorded runtime of the part read: the header's, a region's, or,
	// when a packet limit stopped the reader, up to its last packet.
	r.Span = tr.Cycles
	if o.Region > 0 {
		rg := tr.Regions[o.Region-1]
		r.Base, r.Span = rg.Start, rg.Cycles
	}
	if !tr.Complete && len(tr.Packets) > 0 {
		r.Span = tr.Packets[len(tr.Packets)-1].Cycle - r.Base
	}
	if sc.EnergyOn() {
		r.Energy = sc.EnergyParams()
	}
	if err := r.Validate(); err != nil {
		return traffic.Replay{}, Explain(err, src)
	}
	return r, nil
}
