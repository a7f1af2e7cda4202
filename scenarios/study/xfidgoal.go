package study

import (
	"fmt"

	"nocsim/logp"
	"nocsim/logp/goal"
	"nocsim/logp/loggops"
	"nocsim/mpi/trace"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// CompareSchedule runs s on the scenario's chip (rank r on tile r, sends
// and receives as MPI non-blocking calls, calc as computation) and on the
// LogGOPS tier with p mapped by logp.Params.Tier. Energy, where each side
// has it: the chip's simulated energy when the scenario's energy model is
// on, the tier's predicted energy (logp.Params.TierEnergy) when p holds an
// energy fit, and the error between them when both are there.
func CompareSchedule(sc *scenarios.Scenario, s *goal.Schedule, p logp.Params) (*report.ScheduleComparison, error) {
	mach := sc.Machine()
	m := mach.Topology
	if s.NumRanks() > m.Nodes() {
		return nil, fmt.Errorf("the schedule has %d ranks, the %s mesh %d tiles: allowed at most one rank per tile", s.NumRanks(), sc.Network.Mesh, m.Nodes())
	}
	run := *sc
	run.MPI.Procs = s.NumRanks()
	place := run.Placement()
	q, err := p.Tier(m, place, run.RendezvousThreshold())
	if err != nil {
		return nil, err
	}
	tier, err := loggops.Simulate(s, q, loggops.Options{})
	if err != nil {
		return nil, fmt.Errorf("LogGOPS tier: %w", err)
	}
	tr, err := trace.FromGoal(s)
	if err != nil {
		return nil, err
	}
	w, err := run.NewJob()
	if err != nil {
		return nil, err
	}
	defer w.M.Close()
	fin, err := w.LaunchTraceFinish(tr)
	if err != nil {
		return nil, err
	}
	if err := w.Run(); err != nil {
		return nil, fmt.Errorf("flit level: %w", err)
	}
	out := &report.ScheduleComparison{Mesh: scenarios.MeshLabel(mach.Mesh, scenarios.TopoKey(m)), Protocol: run.MPI.Protocol, Predicted: tier.Max}
	for r := range s.NumRanks() {
		sim := float64(fin[r])
		out.Ranks = append(out.Ranks, report.RankComparison{Rank: r, Simulated: sim, Predicted: tier.Finish[r], ErrorPct: pctErr(tier.Finish[r], sim)})
		out.Simulated = max(out.Simulated, sim)
		for _, op := range s.Ops(r) {
			if op.Kind == goal.Send {
				out.Messages++
				if op.Bytes > q.S {
					out.Rendezvous++
				}
			}
		}
	}
	out.ErrorPct = pctErr(out.Predicted, out.Simulated)
	if out.Energy, err = run.JobEnergy(w); err != nil {
		return nil, err
	}
	out.PredictedEnergyPJ, _ = p.TierEnergy(s, q, tier.Max)
	if out.Energy != nil && out.PredictedEnergyPJ > 0 {
		e := pctErr(out.PredictedEnergyPJ, out.Energy.TotalPJ)
		out.EnergyErrorPct = &e
	}
	st := w.M.Net.Totals()
	out.StallFlitCycles = st.VCStalls + st.SwitchStall + st.CreditStall
	return out, nil
}
