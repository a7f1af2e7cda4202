package logp

import (
	"math"

	"nocsim/coll"

	"nocsim/logp/collgen"
	"nocsim/logp/loggops"
)

// The algorithms whose time is no closed form - exchanges whose ranks
// wait on each other (folds, recursive halving and doubling), rings whose
// blocks differ by an element, a root that sends while it still receives
// - are predicted as the LogGOPS tier's finish on the schedule
// logp/collgen writes for them: the MPI layer's own messages, from the
// same coll program the chip runs, so no copy of the algorithm is kept
// here. The tier follows the rules the closed forms do (LogGOPS without
// rendezvous or handshake, no compute, every latency at avg_hops, or at
// each message's own hop count for the mesh family), so it is the same
// model evaluated exactly.

// onTier is a's form as the tier's finish on its generated schedule,
// one term; a reduction also lists its compute as 0 cycles.
func onTier(a *coll.Algorithm) model {
	name := tierTerm
	if a.MeshGrid {
		name = tierTermHops
	}
	return func(e *env) {
		e.add(name, e.tier(a.Op, a.Name, a.MeshGrid))
		if collgen.IsReduction(a.Op) {
			e.add(noCompute, 0)
		}
	}
}

// The one term of a form evaluated on the tier: the steps of the ranks
// overlap, so it has no per-message breakdown.
const (
	tierTerm     = "all messages (LogGOPS tier on the generated schedule)"
	tierTermHops = "all messages (LogGOPS tier on the generated schedule, hops per message)"
)

// tier runs op/alg's schedule for e on the LogGOPS tier and returns its
// finish; an error (a schedule too big to generate) is kept in e.err.
func (e *env) tier(op, alg string, hops bool) float64 {
	opt := collgen.Options{ElemBytes: elemBytes(e.m)}
	q := loggops.Params{S: math.MaxUint64, Word: uint64(e.p.Word)}
	for _, s := range e.p.Segments {
		g := loggops.Segment{MaxBytes: uint64(s.MaxBytes), L: s.L + e.h*s.Lh, Os: s.Os, Or: s.Or, Gap: s.Gap, G: s.G, O: s.O}
		if hops {
			g.L, g.Lh = s.L, s.Lh
		}
		q.Segments = append(q.Segments, g)
	}
	if hops {
		W := e.p.MeshWidth(e.P)
		opt.MeshW = W
		q.Hops = func(a, b int) int { return abs(a%W-b%W) + abs(a/W-b/W) }
	}
	s, err := collgen.Generate(op, alg, e.P, int64(e.m), opt)
	if err != nil {
		e.err = err
		return 0
	}
	res, err := loggops.Simulate(s, q, loggops.Options{})
	if err != nil {
		e.err = err
		return 0
	}
	return res.Max
}

// elemBytes is the element the reductions are predicted for: float64,
// or single bytes when m is not a whole number of them.
func elemBytes(m int) int {
	if m%8 == 0 {
		return 8
	}
	return 1
}
