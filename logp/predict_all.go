package logp

// Allgather and alltoall: the formulas behind Predict for nocsim's
// mpi/coll_all*.go. bytes is the block of one rank (allgather) or of one
// pair of ranks (alltoall). An exchange (send to one rank, receive from
// another) costs one message: both directions travel at once.

// allgatherGatherBcast: a binomial gather of every block to rank 0 (the
// message doubling towards it), then a binomial broadcast of all P*b bytes.
func allgatherGatherBcast(e *env) {
	binomialGather(e, "gather ")
	e.binomialDown("bcast ", func(int) int { return e.P * e.m })
}

// allgatherRing: P-1 steps, each passing one block to the right.
func allgatherRing(e *env) {
	e.rounds("(P-1) x ", float64(e.P-1), e.cost(e.m))
}

// alltoallPostAll: every rank posts all P-1 receives and sends at once
// (the k-th send to rank+k). The ranks are alike: rank r's k-th message
// comes from r-k's k-th send, made when r makes its own k-th; each rank's
// processor interleaves its sends and the arriving blocks as the root of
// gather/push does (sendAndServe).
func alltoallPostAll(e *env) {
	c := e.cost(e.m)
	cpu := sendAndServe(e.P-1, c, c, func(s pathTime) pathTime { return s.arrive(c) })
	e.path("", cpu, "waits at a rank: its sends, blocks queued, the interfaces")
}

// alltoallPairwise: P-1 steps, in step k an exchange with ranks i+k and
// i-k of one block.
func alltoallPairwise(e *env) {
	e.rounds("(P-1) x ", float64(e.P-1), e.cost(e.m))
}

// alltoallBruck: ceil(log2 P) exchanges; the round of bit k carries every
// block whose index (of 1..P-1) has bit k set, about P/2 blocks.
func alltoallBruck(e *env) {
	for k := 1; k < e.P; k <<= 1 {
		n := 0
		for j := k; j < e.P; j++ {
			if j&k != 0 {
				n++
			}
		}
		e.round("ceil(log2 P) x ", e.cost(n*e.m), 2*k >= e.P)
	}
}
