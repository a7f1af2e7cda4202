package study

import (
	"cmp"
	"fmt"

	"nocsim/coll"
	"nocsim/endpoint"
	"nocsim/endpoint/energy"
	"nocsim/logp"
	"nocsim/logp/collgen"
	"nocsim/mpi"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// energyReport is a breakdown as a row reports it, with its energy per
// flit of the ejected flits delivered (0 when none was) and the routers'
// and tiles' busy and idle cycles.
func energyReport(b energy.Breakdown, ejected uint64, o energy.Occupancy) *report.Energy {
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

// jobEnergy is the energy of everything a finished MPI job's chip did
// from its first cycle (its counters start at zero) to the engine's last:
// the network, the NIUs, the processors and the memories; nil when the
// scenario prices no energy.
func jobEnergy(sc *scenarios.Scenario, w *mpi.World) (*report.Energy, error) {
	if !sc.EnergyOn() {
		return nil, nil
	}
	a, err := energy.SnapshotMachine(w.M)
	if err != nil {
		return nil, err
	}
	return priced(sc, a)
}

// priced is activity a under the scenario's energy model, as a row
// reports it.
func priced(sc *scenarios.Scenario, a energy.Activity) (*report.Energy, error) {
	m, err := energy.Load(sc.EnergyParams())
	if err != nil {
		return nil, err
	}
	b, err := m.Energy(a)
	if err != nil {
		return nil, err
	}
	return energyReport(b, a.Totals().Ejected, a.Occupancy()), nil
}

// chipRecorder is a scenario as the application kernels' machine that
// keeps every chip it builds, so that their energy can be read after the
// kernel returns.
type chipRecorder struct {
	*scenarios.Scenario
	made []*endpoint.Machine
}

func (c *chipRecorder) NewMachine() *endpoint.Machine {
	m := c.Scenario.NewMachine()
	c.made = append(c.made, m)
	return m
}

func (c *chipRecorder) NewWorld(procs int) (*mpi.World, error) {
	w, err := c.Scenario.NewWorld(procs)
	if err == nil {
		c.made = append(c.made, w.M)
	}
	return w, err
}

// chipsEnergy is the energy of everything the chips did, each from its
// first cycle to its last, summed; nil when the scenario prices no energy
// or no chip was built.
func chipsEnergy(sc *scenarios.Scenario, chips []*endpoint.Machine) (*report.Energy, error) {
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
	return energyReport(*sum, ejected, occ), nil
}

// windowEnergy is the energy of what the chip did between two snapshots.
func windowEnergy(sc *scenarios.Scenario, begin, end energy.Activity) (*report.Energy, error) {
	a, err := end.Sub(begin)
	if err != nil {
		return nil, err
	}
	return priced(sc, a)
}

// PredictEnergyRows adds the fitted energy model's prediction to priced
// collective runs: the chip's static power over the predicted time
// (PredictRows' cycles, so call it first) and every message of the
// algorithm's schedule (logp/collgen: the messages the chip's program
// sends), each over the hops between the tiles its ranks run on (rank i
// on tile i). Rows without energy, parameters without an energy model,
// and algorithms with no message schedule (the native ones) are left
// without.
func PredictEnergyRows(sc *scenarios.Scenario, p logp.Params, rows []report.CollRow) error {
	if p.Energy == nil {
		return nil
	}
	m := sc.Machine()
	for i := range rows {
		r := &rows[i]
		op, alg := scenarios.RegistryOp(r.Op), baseAlg(cmp.Or(r.Chosen, r.Algorithm))
		if r.Energy == nil || r.Predicted <= 0 || coll.IsNative(op, alg) {
			continue
		}
		opt := collgen.DefaultOptions()
		opt.Root, opt.MeshW = r.Root, m.Mesh.W
		opt.OptimalL, opt.OptimalO, opt.OptimalG = sc.MPI.OptimalL, sc.MPI.OptimalO, sc.MPI.OptimalG
		s, err := collgen.Generate(r.Op, alg, r.Procs, int64(r.SizeBytes), opt)
		if err != nil {
			return fmt.Errorf("%s %s, P=%d, %d bytes: energy prediction: %w", r.Op, alg, r.Procs, r.SizeBytes, err)
		}
		hops := func(a, b int) float64 { return float64(m.Topology.Hops(a, b)) }
		r.PredictedEnergyPJ = p.Energy.ScheduleEnergy(s, r.Predicted, sc.Node.ClockHz, hops)
		r.EnergyRelError = (r.PredictedEnergyPJ - r.Energy.TotalPJ) / r.Energy.TotalPJ
		r.PredictedEDP = r.PredictedEnergyPJ * r.Predicted
	}
	return nil
}

// energyText is a run's energy for a summary line: "; 1302.9 nJ at
// 677.9 mW", or nothing without energy.
func energyText(e *report.Energy) string {
	if e == nil {
		return ""
	}
	return fmt.Sprintf("; %.1f nJ at %.1f mW", e.TotalPJ/1e3, e.PowerMW)
}
