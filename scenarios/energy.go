package scenarios

import (
	"nocsim/config"
	"nocsim/endpoint/energy"
)

// Energy is the [energy] section: the model a run's events are priced with
// and what it needs of the chip that the other sections do not say.
type Energy struct {
	Model    string  `toml:"energy_model"`
	Tech     string  `toml:"tech"`
	FlitBits int     `toml:"flit_bits"`
	TileMM   float64 `toml:"tile_mm"`
}

// EnergyKinds are the workload kinds whose results report energy.
var EnergyKinds = []string{"noc", "pingpong", "coll", "app", "pairs", "calibrate", "thesis"}

// EnergyKeys documents the [energy] keys.
var EnergyKeys = energy.Keys

// defaultEnergy is DSENT at 45 nm with SCMP's 32-bit flits on tiles 1 mm
// apart (DSENT's link is characterised at 1 mm).
func defaultEnergy() Energy {
	return Energy{Model: energy.DSENT, Tech: "45nm", FlitBits: 32, TileMM: 1}
}

// EnergyOn is whether runs price their energy: a model is named. Every
// topology is priced, a bus too (as routers' parts: docs/energy.md).
func (sc *Scenario) EnergyOn() bool {
	return sc.Energy.Model != energy.None
}

// EnergyParams are the model's parameters: the [energy] keys and the
// chip's clock ([node] clock_hz), which turns cycles into seconds.
func (sc *Scenario) EnergyParams() energy.Params {
	e := sc.Energy
	return energy.Params{Model: e.Model, Tech: e.Tech, FlitBits: e.FlitBits, TileMM: e.TileMM, ClockHz: sc.Node.ClockHz}
}

// checkEnergy checks the [energy] keys: their ranges, and that the model
// loads with them (a file that reads, a row for the tech and flit width)
// and has rows for the network (noxim: its buffer depth, link length).
func (sc *Scenario) checkEnergy(src Source) error {
	if err := config.CheckStruct(sc.Energy, EnergyKeys); err != nil {
		return Explain(err, src)
	}
	if !sc.EnergyOn() {
		return nil
	}
	topo, err := sc.Network.Topology()
	if err != nil {
		return Explain(err, src)
	}
	rs := sc.Network.RouterSpec
	if err := energy.Check(sc.EnergyParams(), topo, rs.VCs, rs.VCBuf, rs.Routing); err != nil {
		return Explain(err, src)
	}
	return nil
}
