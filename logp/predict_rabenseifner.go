package logp

// allreduceReduceScatterAllgather is Rabenseifner's allreduce (mpi's
// coll_rabenseifner.go): on p = 2^floor(log2 P) ranks, a reduce-scatter by
// recursive halving (exchanges of m/2, m/4, ... m/p) then an allgather by
// recursive doubling along the same pairs in reverse (m/p, ... m/2), each
// exchange a round of LogGOPS's rules. With P not a power of two, half of
// the first 2(P-p) ranks hand their vector in first (fold-in) and get the
// result back last (fold-out).
//
// Exact against the LogGOPS tier at P a power of two, where every rank
// runs the same rounds in lockstep (logp/tier_test.go). At other P it is a
// lower bound: a folded rank starts every round late, and the partners
// that wait for it pass the delay on to theirs, which rounds in lockstep
// do not see (up to 29% short on logp/rabenseifner_tier_test.go's
// machines, where o_r is large against L).
func allreduceReduceScatterAllgather(e *env) {
	p := pof2(e.P)
	foldIn(e, p)
	for d := p / 2; d >= 1; d >>= 1 { // as halving(), but the allgather follows
		e.round("halving log2 p x ", e.cost(ceilDiv(e.m*d, p)), false)
	}
	for d := 1; d < p; d <<= 1 {
		// A fold-out send after the last round waits for the send interface.
		e.round("allgather log2 p x ", e.cost(ceilDiv(e.m*d, p)), 2*d >= p && e.P == p)
	}
	if e.P > p {
		e.msg("fold-out ", 1, e.cost(e.m))
	}
	e.add(noCompute, 0)
}
