package logp

import "nocsim/coll"

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

// allgatherRecursiveDoubling: log2 p exchanges (p = 2^floor(log2 P)) of
// runs doubling from one block. With P not a power of two, the first
// 2(P-p) ranks pair up: the even one of each pair hands its block to the
// odd one (fold-in), sits the exchanges out and gets all P blocks at the
// end (fold-out), so a virtual rank's run is one or two blocks and runs
// differ from rank to rank. A run of k blocks travels as one message of
// (k-1) padded blocks and a last one (mpi's span: blocks start on a word).
// Every rank is replayed (xprogs.finish): the folded ranks' partners start
// late, the runs differ in size, and a partner ahead can send its next
// run before the one before has come.
func allgatherRecursiveDoubling(e *env) {
	P, n := e.P, e.m
	span := func(a, b int) int { return (b-a-1)*((n+3)&^3) + n } // blocks a..b-1
	f, x := coll.NewFold(P), newXprogs(P)
	lo := func(v int) int { // first block of virtual rank v
		if v < f.Rem {
			return 2 * v
		}
		return v + f.Rem
	}
	for r := range P {
		v := x.foldIn(f, r, n)
		if v < 0 {
			x.recv(r, r+1, span(0, P))
			continue
		}
		for mask := 1; mask < f.Pof2; mask <<= 1 {
			pv := v ^ mask
			mine, theirs := v&^(mask-1), pv&^(mask-1)
			x.exch2(r, f.Real(pv), span(lo(mine), lo(mine+mask)), f.Real(pv), span(lo(theirs), lo(theirs+mask)))
		}
		if r < 2*f.Rem {
			x.send(r, r-1, span(0, P))
		}
	}
	e.add("fold-in, log2 p exchanges, fold-out (exact recurrence)", x.finish(e))
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
