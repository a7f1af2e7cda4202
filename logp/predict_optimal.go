package logp

import "nocsim/coll"

// bcastOptimal is mpi's "optimal" bcast: the tree of OptimalBroadcast for
// the LogP parameters of the message's own segment (L at the average hop
// distance, o the mean of o_s and o_r, g), which is what `nocsim coll
// --params` gives the run (OptimalLogP), costed with LogGOPS's rules like
// the binomial trees: a rank sends to its children back to back,
// max(o_s+(m-1)O, g+(m-1)G) apart, and a child has the data one message
// time after its send started. The slowest branch is charged, so the form
// is exact against the LogGOPS tier running the same tree at any P
// (logp/optimal_tier_test.go). With G = O = 0 and o_s = o_r it is the
// finish OptimalBroadcast reports.
func bcastOptimal(e *env) {
	L, o, g := e.p.OptimalLogP(e.m)
	_, parent, _ := coll.OptimalBroadcast(e.P, L, o, g)
	c := e.cost(e.m)
	at := make([]float64, e.P)   // when rank i has the data
	next := make([]float64, e.P) // when rank i starts its next send
	wait := make([]float64, e.P) // how long i's parent sent to earlier children first
	for i := 1; i < e.P; i++ {   // a parent is always informed before its children
		p := parent[i]
		if next[p] < at[p] {
			next[p] = at[p]
		}
		wait[i] = next[p] - at[p]
		at[i] = next[p] + c.one()
		next[p] += c.sendIv()
	}
	leaf := 0
	for i := range e.P {
		if at[i] > at[leaf] {
			leaf = i
		}
	}
	var hops, w float64
	for i := leaf; i != 0; i = parent[i] {
		hops++
		w += wait[i]
	}
	e.msg("depth x ", hops, c)
	e.add("sends to earlier children, max(o_s+(m-1)O, g+(m-1)G) each", w)
}

// OptimalLogP is LogP's L, o and g for m-byte messages: the segment of m,
// L at the average hop distance and o the mean of o_s and o_r (so a
// message takes o_s + L + o_r, as in LogGOPS). It is what `nocsim predict
// --optimal` and the optimal bcast of `nocsim coll --params` use.
func (p Params) OptimalLogP(m int) (L, o, g float64) {
	s := p.Seg(m)
	return s.L + p.AvgHops*s.Lh, (s.Os + s.Or) / 2, s.Gap
}
