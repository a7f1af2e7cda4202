package logp

// Reductions: the closed forms behind Predict for the reductions coll
// writes (coll/reduce.go, allreduce.go); the others are the tier's finish
// on their schedules (predict_tier.go). bytes is the vector (the whole
// vector before scattering for reduce_scatter), in float64 elements
// (single bytes if bytes is not a multiple of 8). The models are message
// time only: combining costs processor time per byte that LogGP has no
// parameter for, so every reduction lists it as a 0-cycle term rather
// than leave it silently out.

const noCompute = "reduction compute (not modelled)"

// reduceFlat: every rank sends its vector to the root at once; the root
// receives them one after the other.
func reduceFlat(e *env) {
	flatIn(e, e.m)
	e.add(noCompute, 0)
}

// reduceBinomial: one vector per message up the binomial tree (the
// thesis's halving reduction sends along the same pairs).
func reduceBinomial(e *env) {
	e.binomialUp("", e.whole)
	e.add(noCompute, 0)
}

// whole is the size of every message of the reductions: the vector.
func (e *env) whole(int) int { return e.m }

// allreduceReduceBcast: a binomial reduce to rank 0, then a binomial bcast.
func allreduceReduceBcast(e *env) {
	e.binomialUp("reduce ", e.whole)
	e.binomialDown("bcast ", e.whole)
	e.add(noCompute, 0)
}

// scanChain: rank i waits for rank i-1's prefix and passes its own on:
// P-1 messages one after the other.
func scanChain(e *env) {
	e.msg("(P-1) x ", float64(e.P-1), e.cost(e.m)) // each rank sends once: no gap to wait for
	e.add(noCompute, 0)
}
