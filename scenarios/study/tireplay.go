package study

import (
	"fmt"
	"math"
	"slices"

	"nocsim/config"
	"nocsim/logp"
	"nocsim/logp/goal"
	"nocsim/logp/loggops"
	"nocsim/logp/titrace"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// tiAlgs sets the scenario's [mpi] algorithm keys to the ones the trace's
// collectives are expanded with for the tier (opt.Algs, else
// titrace.DefaultAlgs), so that both tiers run the same algorithms.
func tiAlgs(m *mpi.Config, opt titrace.Options) {
	alg := func(op string) string {
		if a := opt.Algs[op]; a != "" {
			return a
		}
		return titrace.DefaultAlgs[op]
	}
	m.Barrier, m.Bcast, m.Reduce, m.Allreduce = alg("barrier"), alg("bcast"), alg("reduce"), alg("allreduce")
	m.Alltoall, m.Gather, m.Scatter, m.Allgather = alg("alltoall"), alg("gather"), alg("scatter"), alg("allgather")
}

// tiBuffer is the largest buffer a rank's actions need (bytes): a
// message, a collective's vector, or the P blocks of alltoall, gather,
// scatter and allgather.
func tiBuffer(acts []titrace.Action, procs int) int {
	need := 0
	for _, a := range acts {
		b := int(a.Bytes)
		switch a.Kind {
		case titrace.AllToAll, titrace.Gather, titrace.Scatter, titrace.AllGather:
			b *= procs
		}
		need = max(need, b)
	}
	return need
}

// CheckTIFlit validates the machine for RunTIFlit: the trace's ranks fit
// the mesh, and each tile's heap holds a send and a receive buffer of the
// largest size a rank needs.
func CheckTIFlit(sc *scenarios.Scenario, t *titrace.Trace, src scenarios.Source) error {
	if err := sc.CheckMachine(src); err != nil {
		return err
	}
	n := len(t.Ranks)
	if n < 1 || n > sc.Machine().Tiles() {
		return scenarios.Explain(&config.KeyError{Key: "mesh", Value: sc.Network.Mesh,
			Allowed: fmt.Sprintf("a mesh of at least %d tiles (the trace has %d ranks; rank r runs on tile r)", max(n, 1), n)}, src)
	}
	need := 0
	for _, acts := range t.Ranks {
		need = max(need, 3*r4(tiBuffer(acts, n))+fixedNeed(n))
	}
	if words := sc.Network.NodeSpec.MemoryWords; need > heapBytes(words) {
		return scenarios.Explain(&config.KeyError{Key: "memory_words", Value: fmt.Sprint(words),
			Allowed: fmt.Sprintf("at least %d (the trace's largest buffers need %d heap words per tile; the heap is 3/4 of memory_words)", wordsFor(need), (need+3)/4)}, src)
	}
	return nil
}

// tiReduceType is the element a reduction of bytes combines: the
// recorded element's size where the library has one (8: float64, 4:
// int32), else bytes.
func tiReduceType(a titrace.Action) (*datatype.Datatype, int) {
	switch {
	case a.Elem == 8 && a.Bytes%8 == 0:
		return datatype.Float64, int(a.Bytes / 8)
	case a.Elem == 4 && a.Bytes%4 == 0:
		return datatype.Int32, int(a.Bytes / 4)
	}
	return datatype.Byte, int(a.Bytes)
}

// RunTIFlit replays the trace on the flit-level chip through the MPI
// library's own calls (rank r on tile r; CheckTIFlit must have passed):
// each action is the MPI call it records (MPI_Send, MPI_Isend, MPI_Wait,
// MPI_Bcast, MPI_Allreduce ...), collectives with the algorithms opt
// chooses (as the tier's expansion), compute as ceil(flops /
// opt.FlopsPerCycle) cycles (none when the rate is 0). Message contents
// are not meaningful: each rank sends from one scratch buffer and
// receives into another.
func RunTIFlit(sc0 *scenarios.Scenario, t *titrace.Trace, opt titrace.Options) (*report.GoalResult, error) {
	res, _, err := runTIFlit(sc0, t, opt)
	return res, err
}

// runTIFlit is RunTIFlit, with the routers' stalls (flit-cycles) during
// the run.
func runTIFlit(sc0 *scenarios.Scenario, t *titrace.Trace, opt titrace.Options) (*report.GoalResult, uint64, error) {
	sc := *sc0
	n := len(t.Ranks)
	sc.MPI.Procs = n
	tiAlgs(&sc.MPI, opt)
	w, err := sc.NewJob()
	if err != nil {
		return nil, 0, err
	}
	defer w.M.Close()
	w.Launch(func(r *mpi.Rank) {
		acts := t.Ranks[r.Rank()]
		size := tiBuffer(acts, n)
		sb, rb := r.MustAlloc(max(size, 1)), r.MustAlloc(max(size, 1))
		comm := r.CommWorld()
		type pending struct {
			q    *mpi.Request
			send bool
			peer int
			tag  int
		}
		var pend []pending
		must := func(err error) {
			if err != nil {
				panic(err)
			}
		}
		B := datatype.Byte
		for _, a := range acts {
			k := int(a.Bytes)
			var err error
			switch a.Kind {
			case titrace.Compute:
				if opt.FlopsPerCycle > 0 {
					if c := int64(math.Ceil(a.Flops / opt.FlopsPerCycle)); c > 0 {
						r.Compute(c)
					}
				}
			case titrace.Send:
				err = r.Send(sb, k, B, a.Peer, a.Tag, comm)
			case titrace.Recv:
				_, err = r.Recv(rb, k, B, a.Peer, a.Tag, comm)
			case titrace.Isend, titrace.Irecv:
				var q *mpi.Request
				if a.Kind == titrace.Isend {
					q, err = r.Isend(sb, k, B, a.Peer, a.Tag, comm)
				} else {
					q, err = r.Irecv(rb, k, B, a.Peer, a.Tag, comm)
				}
				pend = append(pend, pending{q, a.Kind == titrace.Isend, a.Peer, a.Tag})
			case titrace.Wait:
				j := slices.IndexFunc(pend, func(p pending) bool { return p.send == a.WaitSend && p.peer == a.Peer && p.tag == a.Tag })
				if j < 0 {
					err = fmt.Errorf("%s:%d: wait for a request not posted", a.File, a.Line)
					break
				}
				_, err = r.Wait(pend[j].q)
				pend = slices.Delete(pend, j, j+1)
			case titrace.WaitAll:
				qs := make([]*mpi.Request, len(pend))
				for i, p := range pend {
					qs[i] = p.q
				}
				_, err = r.Waitall(qs)
				pend = pend[:0]
			case titrace.Barrier:
				err = r.Barrier(comm)
			case titrace.Bcast:
				err = r.Bcast(sb, k, B, a.Root, comm)
			case titrace.Reduce:
				dt, c := tiReduceType(a)
				err = r.Reduce(sb, rb, c, dt, datatype.OpSum, a.Root, comm)
			case titrace.AllReduce:
				dt, c := tiReduceType(a)
				err = r.Allreduce(sb, rb, c, dt, datatype.OpSum, comm)
			case titrace.AllToAll:
				err = r.Alltoall(sb, k, B, rb, k, B, comm)
			case titrace.Gather:
				err = r.Gather(sb, k, B, rb, k, B, a.Root, comm)
			case titrace.Scatter:
				err = r.Scatter(sb, k, B, rb, k, B, a.Root, comm)
			case titrace.AllGather:
				err = r.Allgather(sb, k, B, rb, k, B, comm)
			}
			if err == nil && opt.FlopsPerCycle > 0 && a.Flops > 0 && (a.Kind == titrace.Reduce || a.Kind == titrace.AllReduce) {
				r.Compute(int64(math.Ceil(a.Flops / opt.FlopsPerCycle)))
			}
			must(err)
		}
	})
	if err := w.Run(); err != nil {
		return nil, 0, err
	}
	res := &report.GoalResult{Tier: "flit", Ranks: n, RankFinish: make([]float64, n),
		Mesh: sc.Network.Mesh, Cycles: int64(w.M.Eng.Now())}
	if res.Energy, err = sc.JobEnergy(w); err != nil {
		return nil, 0, err
	}
	for i, r := range w.Ranks {
		at, _ := r.Finished()
		res.RankFinish[i] = float64(at)
		res.Messages += r.Received()
	}
	res.MaxFinish = slices.Max(res.RankFinish)
	st := w.M.Net.Totals()
	return res, st.VCStalls + st.SwitchStall + st.CreditStall, nil
}

// CompareTI runs the trace on the chip through the MPI library's calls
// (RunTIFlit) and its converted schedule s on the LogGOPS tier with p
// mapped by logp.Params.Tier, as CompareSchedule compares a schedule's.
func CompareTI(sc *scenarios.Scenario, t *titrace.Trace, s *goal.Schedule, opt titrace.Options, p logp.Params) (*report.ScheduleComparison, error) {
	mach := sc.Machine()
	run := *sc
	run.MPI.Procs = s.NumRanks()
	q, err := p.Tier(mach.Topology, run.Placement(), run.RendezvousThreshold())
	if err != nil {
		return nil, err
	}
	tier, err := loggops.Simulate(s, q, loggops.Options{})
	if err != nil {
		return nil, fmt.Errorf("LogGOPS tier: %w", err)
	}
	chip, stalls, err := runTIFlit(&run, t, opt)
	if err != nil {
		return nil, fmt.Errorf("flit level: %w", err)
	}
	out := &report.ScheduleComparison{Mesh: scenarios.MeshLabel(mach.Mesh, scenarios.TopoKey(mach.Topology)), Protocol: run.MPI.Protocol, Predicted: tier.Max, Simulated: chip.MaxFinish}
	for r := range s.NumRanks() {
		sim := chip.RankFinish[r]
		out.Ranks = append(out.Ranks, report.RankComparison{Rank: r, Simulated: sim, Predicted: tier.Finish[r], ErrorPct: pctErr(tier.Finish[r], sim)})
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
	out.StallFlitCycles = stalls
	out.Energy = chip.Energy
	out.PredictedEnergyPJ, _ = p.TierEnergy(s, q, tier.Max)
	if out.Energy != nil && out.PredictedEnergyPJ > 0 {
		e := pctErr(out.PredictedEnergyPJ, out.Energy.TotalPJ)
		out.EnergyErrorPct = &e
	}
	return out, nil
}
