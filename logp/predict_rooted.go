package logp

// Barrier, bcast, scatter and gather: the formulas behind Predict, one per
// algorithm of nocsim's mpi/coll_rooted.go. Each is the critical path of
// the algorithm as nocsim runs it (root 0, children served in the order
// nocsim serves them); where that path depends on which rank is slowest,
// every level is charged for its widest node, an upper bound.

// barrierCentral: every rank sends a 0-byte arrival to rank 0, which
// receives them one after the other and then sends each a release one
// after the other: two message latencies and 2(P-2) serialisations at the
// root.
func barrierCentral(e *env) {
	c := e.cost(0)
	n := float64(e.P - 2)
	e.msg("2 x ", 2, c)
	e.add("(P-2) x max(g, o_r): root receives arrivals", n*c.recvIv())
	e.add("(P-2) x max(g, o_s): root sends releases", n*c.sendIv())
}

// barrierTree4: arrivals climb the 4-ary heap (children of rank i are
// 4i+1..4i+4) and the release goes back down it. Its depth D is about
// ceil(log4 P); a level of fan-out k costs one message plus k-1
// serialisations at the parent, both ways.
func barrierTree4(e *env) {
	c := e.cost(0)
	depth, extra := 0, 0 // levels, and sum over levels of (fan-out - 1)
	for a := 0; 4*a+1 < e.P; a = 4*a + 1 {
		depth++
		extra += min(4, e.P-4*a-1) - 1
	}
	e.msg("2D x ", float64(2*depth), c)
	e.add("sum over levels (fan-out-1) x max(g, o_r): arrivals at parents", float64(extra)*c.recvIv())
	e.add("sum over levels (fan-out-1) x max(g, o_s): releases from parents", float64(extra)*c.sendIv())
}

// barrierDissemination: ceil(log2 P) rounds; in each every rank sends to
// rank+2^k and receives from rank-2^k, so a round is one message.
func barrierDissemination(e *env) {
	e.rounds("ceil(log2 P) x ", float64(ceilLog2(e.P)), e.cost(0))
}

// bcastFlat: the root sends P-1 messages back to back; the last starts
// (P-2) send intervals after the first. With G = 0 and o <= g this is the
// slides' L + 2o + (P-2)g, and L + P*o when g < o.
func bcastFlat(e *env) { flatOut(e, e.m) }

func flatOut(e *env, m int) {
	c := e.cost(m)
	e.msg("", 1, c)
	e.add("(P-2) x max(g, o_s+(m-1)G): root sends", float64(e.P-2)*c.sendIv())
}

// flatIn: P-1 messages arrive together at the root, which receives them
// one after the other.
func flatIn(e *env, m int) {
	c := e.cost(m)
	e.msg("", 1, c)
	e.add("(P-2) x max(g, o_r+(m-1)G): root receives", float64(e.P-2)*c.recvIv())
}

// bcastBinomial: the slowest branch of the binomial tree (at P = 2^k,
// ceil(log2 P) messages, the root's sent last; fewer at other P).
func bcastBinomial(e *env) {
	e.binomialDown("", func(int) int { return e.m })
}

// bcastPull: every non-root sends the root a 0-byte request at once; the
// root takes them one at a time, answering each with the message. One
// request and one reply in latency, and P-2 turnarounds at the root, each
// a request received and a reply sent.
func bcastPull(e *env) {
	q, c := e.cost(0), e.cost(e.m)
	e.msg("request ", 1, q)
	e.msg("reply ", 1, c)
	turn := max(q.recvIv(), c.sendIv(), q.or+c.os+c.gm)
	e.add("(P-2) x max(g, o_r(request)+o_s+(m-1)G): root turnarounds", float64(e.P-2)*turn)
}

// bcastScatterAllgather: a binomial scatter of ceil(m/P)-byte chunks (the
// round of distance d carries d chunks, halving from the root) and a ring
// allgather of P-1 exchanges of one chunk.
func bcastScatterAllgather(e *env) {
	ch := ceilDiv(e.m, e.P)
	pieces := binomialPieces(e.P)
	for i, k := range pieces {
		e.round("scatter ceil(log2 P) x ", e.cost(k*ch), i == len(pieces)-1)
	}
	e.rounds("allgather (P-1) x ", float64(e.P-1), e.cost(ch))
}

// scatterFlat: the root sends each rank its block back to back.
func scatterFlat(e *env) { flatOut(e, e.m) }

// scatterBinomial: down the binomial tree, each message carrying its
// subtree's blocks, so the message halves at each level.
func scatterBinomial(e *env) { binomialBlocks(e, "") }

func binomialBlocks(e *env, prefix string) {
	e.binomialDown(prefix, func(c int) int { return binSubtree(c, e.P) * e.m })
}

// gatherFlat: every rank sends its block to the root at once; the root
// receives them one after the other.
func gatherFlat(e *env) { flatIn(e, e.m) }

// gatherBinomial: the scatter's tree in reverse, the messages doubling
// towards the root.
func gatherBinomial(e *env) { binomialGather(e, "") }

func binomialGather(e *env, prefix string) {
	e.binomialUp(prefix, func(c int) int { return binSubtree(c, e.P) * e.m })
}

// gatherPush: the root posts every receive, then sends each rank a 0-byte
// "ready", and each rank answers with its block. The readies and the
// blocks pipeline: one ready and one block in latency, and P-2 rounds of
// the root's slowest serialisation (sending readies, receiving blocks, or
// its processor doing both overheads per rank).
func gatherPush(e *env) {
	q, c := e.cost(0), e.cost(e.m)
	e.msg("ready ", 1, q)
	e.msg("data ", 1, c)
	per := max(q.sendIv(), c.recvIv(), q.os+c.or)
	e.add("(P-2) x max(g, o_s(ready)+o_r, o_r+(m-1)G): root per rank", float64(e.P-2)*per)
}
