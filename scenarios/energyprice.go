package scenarios

import (
	"nocsim/endpoint"
	"nocsim/endpoint/energy"
	"nocsim/mpi"
	"nocsim/scenarios/report"
)

// The pricing of simulated runs under the scenario's [energy] model, as
// results report it. It lives here, beside the [energy] section, so that
// every runner of the chip (study's commands, the thesis's tables) prices
// its runs the one way.

// EnergyReport is a breakdown as a row reports it, with its energy per
// flit of the ejected flits delivered (0 when none was) and the routers'
// and tiles' busy and idle cycles.
func EnergyReport(b energy.Breakdown, ejected uint64, o energy.Occupancy) *report.Energy {
	e := &report.Energy{Model: b.Model, Tech: b.Tech, FlitBits: b.FlitBits, ClockHz: b.ClockHz,
		TotalPJ: b.TotalPJ(), PowerMW: b.PowerW() * 1e3, AreaMM2: b.AreaMM2,
		DynamicPJ: b.KindPJ(energy.KindDynamic), ClockPJ: b.KindPJ(energy.KindClock), LeakagePJ: b.KindPJ(energy.KindLeakage),
		RouterBusyCycles: o.RouterBusy, RouterIdleCycles: o.RouterIdle, TileBusyCycles: o.TileBusy, TileIdleCycles: o.TileIdle}
	if ejected > 0 {
		e.PerFlitPJ = e.TotalPJ / float64(ejected)
	}
	for _, c := range b.Components {
		e.Components = append(e.Components, report.EnergyComponent{Name: c.Name, Kind: c.Kind, PJ: c.PJ, PowerMW: b.ComponentPowerW(c) * 1e3})
	}
	return e
}

// JobEnergy is the energy of everything a finished MPI job's chip did
// from its first cycle (its counters start at zero) to the engine's last:
// the network, the NIUs, the processors and the memories; nil when the
// scenario prices no energy.
func (sc *Scenario) JobEnergy(w *mpi.World) (*report.Energy, error) {
	if !sc.EnergyOn() {
		return nil, nil
	}
	a, err := energy.SnapshotMachine(w.M)
	if err != nil {
		return nil, err
	}
	return sc.PricedEnergy(a)
}

// PricedEnergy is activity a under the scenario's energy model, as a row
// reports it.
func (sc *Scenario) PricedEnergy(a energy.Activity) (*report.Energy, error) {
	m, err := energy.Load(sc.EnergyParams())
	if err != nil {
		return nil, err
	}
	b, err := m.Energy(a)
	if err != nil {
		return nil, err
	}
	return EnergyReport(b, a.Totals().Ejected, a.Occupancy()), nil
}

// WindowEnergy is the energy of what the chip did between two snapshots.
func (sc *Scenario) WindowEnergy(begin, end energy.Activity) (*report.Energy, error) {
	a, err := end.Sub(begin)
	if err != nil {
		return nil, err
	}
	return sc.PricedEnergy(a)
}

// ChipRecorder is a scenario as the application kernels' machine
// (apps.Machine) that keeps every chip it builds, so that their energy
// can be read after the kernel returns (ChipsEnergy of Made).
type ChipRecorder struct {
	*Scenario
	Made []*endpoint.Machine
}

// NewMachine builds a chip, as the scenario's, and keeps it.
func (c *ChipRecorder) NewMachine() *endpoint.Machine {
	m := c.Scenario.NewMachine()
	c.Made = append(c.Made, m)
	return m
}

// NewWorld builds a chip and an MPI job on it, as the scenario's, and
// keeps the chip.
func (c *ChipRecorder) NewWorld(procs int) (*mpi.World, error) {
	w, err := c.Scenario.NewWorld(procs)
	if err == nil {
		c.Made = append(c.Made, w.M)
	}
	return w, err
}

// ChipsEnergy is the energy of everything the chips did, each from its
// first cycle to its last, summed; nil when the scenario prices no energy
// or no chip was built.
func (sc *Scenario) ChipsEnergy(chips []*endpoint.Machine) (*report.Energy, error) {
	if !sc.EnergyOn() || len(chips) == 0 {
		return nil, nil
	}
	m, err := energy.Load(sc.EnergyParams())
	if err != nil {
		return nil, err
	}
	var sum *energy.Breakdown
	var ejected uint64
	var occ energy.Occupancy
	for _, c := range chips {
		a, err := energy.SnapshotMachine(c)
		if err != nil {
			return nil, err
		}
		b, err := m.Energy(a)
		if err != nil {
			return nil, err
		}
		ejected += a.Totals().Ejected
		occ = occ.Add(a.Occupancy())
		if sum == nil {
			sum = &b
			continue
		}
		sum.Cycles += b.Cycles
		for i := range sum.Components {
			sum.Components[i].PJ += b.Components[i].PJ
		}
	}
	return EnergyReport(*sum, ejected, occ), nil
}
