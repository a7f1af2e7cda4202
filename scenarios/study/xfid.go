package study

import (
	"fmt"
	"slices"

	"nocsim/logp"
	"nocsim/logp/loggops"
	"nocsim/mpi"
	"nocsim/mpi/trace"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// Recorded is a flit-level run as the LogGOPS tier sees it, with what the
// flit level had that the tier's model lacks. Times in cycles.
type Recorded struct {
	Trace  *trace.Trace
	Finish []float64 // per rank: when its program ended (cycles)
	Cycles float64   // the largest Finish (cycles)
	// What the model lacks: router stalls (flit-cycles a flit waited for
	// a VC, the switch or a credit: contention) and the rendezvous
	// messages (each an RTS and a CTS, the CTS served on the sender's
	// CPU, before its data).
	StallFlitCycles uint64
	Messages        int
	Rendezvous      int
	CalcCycles      int64 // the largest per-rank total of recorded computation (cycles)
}

// record gathers a finished world's recording; finish is each rank's end
// (nil: the machine's end for every rank).
func record(w *mpi.World, finish []float64, S uint64) *Recorded {
	rc := &Recorded{Trace: w.Trace(), Finish: finish}
	if rc.Finish == nil {
		rc.Finish = make([]float64, len(w.Ranks))
		for i := range rc.Finish {
			rc.Finish[i] = float64(w.M.Eng.Now())
		}
	}
	rc.Cycles = slices.Max(rc.Finish)
	st := w.M.Net.Totals()
	rc.StallFlitCycles = st.VCStalls + st.SwitchStall + st.CreditStall
	for _, ops := range rc.Trace.Ranks {
		var calc int64
		for _, op := range ops {
			switch op.Kind {
			case trace.Send:
				rc.Messages++
				if uint64(op.Bytes) > S {
					rc.Rendezvous++
				}
			case trace.Calc:
				calc += op.Cycles
			}
		}
		rc.CalcCycles = max(rc.CalcCycles, calc)
	}
	return rc
}

// Predicted is the tier's prediction of a recorded run against what the
// flit level simulated; errors are (predicted - simulated) / simulated in
// percent.
type Predicted struct {
	Finish   []float64 // per rank (cycles)
	Cycles   float64   // the largest (cycles)
	ErrPct   float64   // of Cycles against the simulated maximum
	RankErrs []float64 // per rank, percent
}

// PredictTrace runs a recorded trace on the LogGOPS tier with the fitted
// parameters p mapped to the scenario's mesh, placement and protocol.
func PredictTrace(sc *scenarios.Scenario, t *trace.Trace, p logp.Params) (*loggops.Result, error) {
	s, err := trace.ToGoal(t)
	if err != nil {
		return nil, err
	}
	m := sc.Machine().Topology
	place := sc.Placement()
	if len(place) < len(t.Ranks) {
		return nil, fmt.Errorf("schedule has %d ranks, the mesh %s has %d tiles", len(t.Ranks), sc.Network.Mesh, len(place))
	}
	q, err := p.Tier(m, place[:len(t.Ranks)], sc.RendezvousThreshold())
	if err != nil {
		return nil, err
	}
	return loggops.Simulate(s, q, loggops.Options{})
}

// Compare is the prediction of a recorded run against its simulated times.
func (rc *Recorded) Compare(res *loggops.Result) Predicted {
	pr := Predicted{Finish: res.Finish, Cycles: res.Max, ErrPct: pctErr(res.Max, rc.Cycles)}
	for r := range res.Finish {
		pr.RankErrs = append(pr.RankErrs, pctErr(res.Finish[r], rc.Finish[r]))
	}
	return pr
}

func pctErr(pred, sim float64) float64 {
	if sim == 0 {
		return 0
	}
	return 100 * (pred - sim) / sim
}

// RecordRun runs prog on every rank of the scenario's MPI job, recording
// it; each rank's finish is when prog returned on it.
func RecordRun(sc *scenarios.Scenario, prog func(r *mpi.Rank)) (*Recorded, error) {
	w, err := sc.NewJob()
	if err != nil {
		return nil, err
	}
	defer w.M.Close()
	w.Record()
	fin := make([]float64, len(w.Ranks))
	w.Launch(func(r *mpi.Rank) { prog(r); fin[r.Rank()] = float64(r.Now()) })
	if err := w.Run(); err != nil {
		return nil, err
	}
	return record(w, fin, sc.RendezvousThreshold()), nil
}

// predictRecorded predicts a recorded MPI job on the LogGOPS tier;
// simulated is the run's time.
func predictRecorded(sc *scenarios.Scenario, w *mpi.World, p logp.Params, simulated float64) (*report.TierColumns, error) {
	rc := record(w, nil, sc.RendezvousThreshold())
	res, err := PredictTrace(sc, rc.Trace, p)
	if err != nil {
		return nil, err
	}
	return &report.TierColumns{TierCycles: res.Max, TierErrPct: pctErr(res.Max, simulated), StallFlitCycles: rc.StallFlitCycles,
		Messages: rc.Messages, Rendezvous: rc.Rendezvous, CalcCycles: rc.CalcCycles}, nil
}
