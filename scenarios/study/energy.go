package study

import (
	"cmp"
	"fmt"

	"nocsim/coll"
	"nocsim/logp"
	"nocsim/logp/collgen"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

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
