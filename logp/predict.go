package logp

import (
	"fmt"
	"maps"
	"math/bits"
	"nocsim/coll"
	"slices"
	"strings"
)

// Term is one named part of a prediction, so a calibration can see which
// parameter a disagreement with the simulator comes from.
type Term struct {
	Name   string  `json:"name"`
	Cycles float64 `json:"cycles"`
}

// Prediction is a modelled time in cycles and its breakdown: the Terms
// sum to Cycles. Every term of an algorithm's formula is listed, zero or
// not, so predictions of one algorithm always have the same terms in the
// same order and can be compared term by term across sizes and machines.
type Prediction struct {
	Cycles float64 `json:"predicted_cycles"`
	Terms  []Term  `json:"terms"`
}

// PingPong is the LogGP round trip of an m-byte message over hops hops
// and back: twice PointToPoint, since the reply is the same message in
// the other direction.
func (p Params) PingPong(m int, hops float64) Prediction {
	var t terms
	t.msg("2 x ", 2, p.cost(m, hops))
	return t.prediction()
}

// OneWay is LogGP's one-way time of an m-byte message over hops hops,
// with its terms (PointToPoint's time, broken down).
func (p Params) OneWay(m int, hops float64) Prediction {
	s := p.Seg(m)
	terms := []Term{{Name: "o_s", Cycles: s.Os}, {Name: "L", Cycles: s.L}, {Name: "h*L_per_hop", Cycles: hops * s.Lh},
		{Name: "(m-1)max(G,O)", Cycles: float64(max(m, 1)-1) * max(s.G, p.PerByteO(m))}, {Name: "o_r", Cycles: s.Or}}
	return Prediction{Cycles: p.PointToPoint(m, hops), Terms: terms}
}

// model adds an algorithm's terms for a communicator of e.P ranks and an
// argument of e.m bytes; P >= 2 when called.
type model func(e *env)

// closedForms maps op, then algorithm, to its closed form, under the
// names of coll's registry. They live in predict_rooted.go,
// predict_all.go, predict_reduce.go, predict_optimal.go, predict_cray.go
// and predict_mesh.go. A registered algorithm with none is predicted on the
// tier (predict_tier.go), so a new algorithm needs nothing here.
var closedForms = map[string]map[string]model{
	"barrier":   {"central": barrierCentral, "tree4": barrierTree4, "dissemination": barrierDissemination, "tree4_scatter": barrierTree4Scatter},
	"bcast":     {"flat": bcastFlat, "binomial": bcastBinomial, "pull": bcastPull, "optimal": bcastOptimal, "pull_rma": bcastPullRMA, "mesh": bcastMesh},
	"scatter":   {"flat": scatterFlat, "binomial": scatterBinomial, "pull_rma": scatterPullRMA},
	"gather":    {"flat": gatherFlat, "binomial": gatherBinomial, "push": gatherPush},
	"allgather": {"gather_bcast": allgatherGatherBcast, "ring": allgatherRing},
	"alltoall":  {"post_all": alltoallPostAll, "pairwise": alltoallPairwise, "bruck": alltoallBruck, "pull_scan": alltoallPullScan},
	"reduce":    {"flat": reduceFlat, "binomial": reduceBinomial, "mesh": reduceMesh},
	"allreduce": {"reduce_bcast": allreduceReduceBcast},
	"scan":      {"chain": scanChain},
}

// form is op/alg's model: its closed form, or the tier's finish on its
// generated schedule for a registered program; nil for none.
func form(op, alg string) (model, *coll.Algorithm) {
	a := coll.Lookup(op, alg)
	if f := closedForms[op][alg]; f != nil && a != nil {
		return f, a
	}
	if a != nil && a.Program != nil {
		return onTier(a), a
	}
	return nil, nil
}

// Ops lists, per collective op, the algorithms Predict models (sorted):
// every algorithm of coll's registry, which callers can look up.
var Ops = func() map[string][]string {
	out := map[string][]string{}
	for _, a := range coll.Algorithms() {
		if f, _ := form(a.Op, a.Name); f != nil {
			out[a.Op] = append(out[a.Op], a.Name)
		}
	}
	return out
}()

// Predict is the closed-form LogGP time of collective op run with
// algorithm alg on P ranks, from the first rank's entry (all ranks
// entering together) to the last rank's exit. bytes is, per op: the
// message (bcast), the block per rank (scatter, gather, allgather), the
// block per pair (alltoall), the vector (reduce, allreduce, scan) or the
// whole vector before scattering (reduce_scatter); barrier ignores it.
// Every message is costed with the segment of its own size (p.Seg) over
// p.AvgHops hops. The root is rank 0. P = 1 costs 0 cycles.
//
// The models follow LogGOPS's rules (the tier in logp/loggops): a send
// keeps the processor busy o_s+(m-1)O and the send interface g+(m-1)G; a
// receive keeps the processor busy o_r+max((m-1)G,(m-1)O) and the receive
// interface g+(m-1)G; a message's first byte arrives o_s+L after its send
// starts. They follow the message pattern the MPI code really sends
// (the trees it builds, its folds for non-powers of two, its word-aligned
// blocks): trees are walked down and up; the few ranks whose queues decide
// the time (pull, push, post_all) are replayed in time order. The
// algorithms whose ranks wait on each other both ways (the exchanges of
// the reductions, recursive-doubling allgather, the scatter-allgather
// broadcast, the dimensional mesh allreduce and barrier) have no closed
// form: theirs is the tier's finish on the schedule logp/collgen writes
// from the same coll program the chip runs (predict_tier.go). All 35
// algorithms on MPI messages equal the tier on those schedules for
// P = 2..100 (tier_collgen_test.go); the Cray X1's four on native
// primitives (predict_cray.go) are critical paths checked against the
// chip.
// Contention in the mesh is not modelled, nor is the reductions' compute
// (named with 0 cycles so its absence is visible).
func (p Params) Predict(op, alg string, P, bytes int) (Prediction, error) {
	algs, ok := Ops[op]
	if !ok {
		return Prediction{}, fmt.Errorf("unknown collective op %q: allowed %s", op, strings.Join(slices.Sorted(maps.Keys(Ops)), ", "))
	}
	f, a := form(op, alg)
	if f == nil {
		return Prediction{}, fmt.Errorf("unknown %s algorithm %q: allowed %s", op, alg, strings.Join(algs, ", "))
	}
	if P < 1 {
		return Prediction{}, fmt.Errorf("P = %d ranks: allowed >= 1", P)
	}
	if bytes < 0 {
		return Prediction{}, fmt.Errorf("%d bytes: allowed >= 0", bytes)
	}
	// Validate checks the machine's own P too; a prediction may be for a
	// communicator of any size, so only the segments matter here.
	v := p
	v.P = max(v.P, 1)
	if err := v.Validate(); err != nil {
		return Prediction{}, err
	}
	if P > MaxQuadraticProcs && a.Growth == coll.Quadratic && closedForms[op][alg] == nil {
		return Prediction{}, &TooManyRanksError{Op: op, Alg: alg, P: P}
	}
	if P == 1 {
		return Prediction{}, nil
	}
	e := &env{p: p, P: P, m: bytes, h: p.AvgHops}
	f(e)
	if e.err != nil {
		return Prediction{}, e.err
	}
	return e.prediction(), nil
}

// MaxQuadraticProcs is the most ranks an algorithm of coll.Quadratic
// growth is predicted on the tier for (its schedule has O(P^2) messages:
// seconds at P = 2048, hours at 65,536); beyond it Predict returns a
// *TooManyRanksError instead of running for hours.
const MaxQuadraticProcs = 2048

// TooManyRanksError is a prediction refused because its form would take
// too long at that P; the LogGOPS tier (coll --tier loggops) runs the same
// schedule at any P.
type TooManyRanksError struct {
	Op, Alg string
	P       int
}

func (e *TooManyRanksError) Error() string {
	return fmt.Sprintf("P = %d ranks: the %s %s schedule has P-1 ring steps per rank (O(P^2) messages): allowed at most %d ranks; run the schedule on the LogGOPS tier instead (nocsim coll --tier loggops)", e.P, e.Op, e.Alg, MaxQuadraticProcs)
}

// cost is the LogGOPS parameters of one message size, at a hop count.
type cost struct {
	os, or, l, g float64
	gm           float64 // (m-1)G: the message's bytes after the first, on the wire
	om           float64 // (m-1)O: the same, on the processor (0 for a size the machine moves without it)
}

func (p Params) cost(m int, hops float64) cost {
	s := p.Seg(m)
	b := float64(max(m, 1) - 1)
	return cost{os: s.Os, or: s.Or, l: s.L + hops*s.Lh, g: s.Gap, gm: b * s.G, om: b * p.PerByteO(m)}
}

// bytes is the time of the bytes after the first at the receiver: they
// arrive (m-1)G after it and its processor handles them at (m-1)O.
func (c cost) bytes() float64 { return max(c.gm, c.om) }

// one is the message's time end to end to an idle receiver
// (PointToPoint).
func (c cost) one() float64 { return c.os + c.l + c.bytes() + c.or }

// sendIv is how far apart a rank starts consecutive sends of the message
// (LogGOPS): its processor is busy o_s + (m-1)O and its send interface
// g + (m-1)G.
func (c cost) sendIv() float64 { return max(c.os+c.om, c.g+c.gm) }

// recvIv is the same for consecutive receives at one rank: processor
// o_r + max((m-1)G, (m-1)O), receive interface g + (m-1)G.
func (c cost) recvIv() float64 { return max(c.or+c.bytes(), c.g+c.gm) }

// late is how much later than L an exchange's message is handled: both
// partners send at once, so the receiver's processor is still busy with
// its own send for (m-1)O.
func (c cost) late() float64 { return max(0, c.om-c.l) }

// exch is one round of an exchange (send to one rank, receive from
// another, both sending at once).
func (c cost) exch() float64 { return c.one() + c.late() }

// stall is what a round waits beyond the exchange when the send
// interface is slower: the next round's send may not start sooner than
// g + (m-1)G after this one's.
func (c cost) stall() float64 { return max(0, c.g+c.gm-c.exch()) }

// terms collects a prediction's terms; adding a name again accumulates
// into it, so per-round loops produce one term per kind.
type terms struct{ list []Term }

func (t *terms) add(name string, cycles float64) {
	for i := range t.list {
		if t.list[i].Name == name {
			t.list[i].Cycles += cycles
			return
		}
	}
	t.list = append(t.list, Term{name, cycles})
}

// msg adds k messages' end-to-end terms, each name after prefix.
func (t *terms) msg(prefix string, k float64, c cost) {
	t.add(prefix+"o_s", k*c.os)
	t.add(prefix+"L", k*c.l)
	t.add(prefix+"(m-1)max(G,O)", k*c.bytes())
	t.add(prefix+"o_r", k*c.or)
}

// rounds adds k rounds of one exchange each: the message's terms, the
// receiver's own send overhead beyond L, and the gap stall between one
// round and the next.
func (t *terms) rounds(prefix string, k float64, c cost) {
	t.msg(prefix, k, c)
	t.add(prefix+"(m-1)O beyond L", k*c.late())
	t.add(prefix+"gap stall", max(k-1, 0)*c.stall())
}

// round adds one round of a sequence whose rounds differ in size; the
// last round has no next send to wait for.
func (t *terms) round(prefix string, c cost, last bool) {
	t.msg(prefix, 1, c)
	t.add(prefix+"(m-1)O beyond L", c.late())
	stall := c.stall()
	if last {
		stall = 0
	}
	t.add(prefix+"gap stall", stall)
}

func (t *terms) prediction() Prediction {
	var sum float64
	for _, x := range t.list {
		sum += x.Cycles
	}
	return Prediction{Cycles: sum, Terms: t.list}
}

// env is one prediction in progress.
type env struct {
	terms
	p    Params
	P, m int
	h    float64
	err  error // a form that could not be evaluated (predict_tier.go)
}

func (e *env) cost(m int) cost { return e.p.cost(m, e.h) }

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// ceilLog2 is the number of rounds of a doubling algorithm on P ranks.
func ceilLog2(P int) int { return bits.Len(uint(P - 1)) }
