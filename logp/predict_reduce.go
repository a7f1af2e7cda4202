package logp

import "nocsim/coll"

// Reductions: the formulas behind Predict for nocsim's mpi/coll_reduce*.go.
// bytes is the vector (the whole vector before scattering for
// reduce_scatter), split as the MPI code splits it: into float64 elements
// (single bytes if bytes is not a multiple of 8), blocks of whole elements. The models are message time only: combining costs
// processor time per byte that LogGP has no parameter for, so every
// reduction lists it as a 0-cycle term rather than leave it silently out.

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

// reduceScatterGather is Rabenseifner's: a reduce-scatter by recursive
// halving on p = 2^floor(log2 P) ranks (exchanges of about m/2, m/4, ...
// m/p) and a binomial gather of the blocks to new rank 0 (m/p, ... m/2).
// With P not a power of two, half of the first 2(P-p) ranks hand their
// vector in first (fold-in) and, the root (rank 0) being one of them, new
// rank 0 (rank 1) hands it the result (hand-over). Every rank is replayed
// (xprogs.finish): the folded ranks' partners are late, and the blocks
// differ by an element from rank to rank.
func reduceScatterGather(e *env) {
	es := elemBytes(e.m)
	f, x := coll.NewFold(e.P), newXprogs(e.P)
	bo := redSplit(e.m/es, f.Pof2, es)
	for r := range e.P {
		nr := x.foldIn(f, r, e.m)
		if nr < 0 {
			if r == 0 { // the root: new rank 0 hands it the result
				x.recv(0, 1, e.m)
			}
			continue
		}
		x.halving(f, r, nr, bo, es)
		// Binomial gather of the blocks to new rank 0.
		m := 1
		for ; m < f.Pof2; m <<= 1 {
			if nr&m != 0 {
				x.send(r, f.Real(nr^m), (bo[nr+m]-bo[nr])*es)
				break
			}
			x.recv(r, f.Real(nr^m), (bo[nr+2*m]-bo[nr+m])*es)
		}
		if m >= f.Pof2 && r != 0 {
			x.send(r, 0, e.m)
		}
	}
	e.xterms("fold-in, log2 p halving steps, gather, hand-over (exact recurrence)", x.finish(e))
}

// allreduceReduceBcast: a binomial reduce to rank 0, then a binomial bcast.
func allreduceReduceBcast(e *env) {
	e.binomialUp("reduce ", e.whole)
	e.binomialDown("bcast ", e.whole)
	e.add(noCompute, 0)
}

// allreduceRecursiveDoubling: log2 p exchanges of the whole vector among
// p = 2^floor(log2 P) ranks, the others folded in first and handed the
// result last; every rank replayed (xprogs.finish), as the folded ranks'
// partners start late and a partner ahead of its round can send before the
// message of the round before has come.
func allreduceRecursiveDoubling(e *env) {
	f, x := coll.NewFold(e.P), newXprogs(e.P)
	for r := range e.P {
		nr := x.foldIn(f, r, e.m)
		if nr < 0 {
			x.recv(r, r+1, e.m)
			continue
		}
		for mask := 1; mask < f.Pof2; mask <<= 1 {
			x.exch(r, f.Real(nr^mask), e.m, e.m)
		}
		if r < 2*f.Rem {
			x.send(r, r-1, e.m)
		}
	}
	e.xterms("fold-in, log2 p exchanges, fold-out (exact recurrence)", x.finish(e))
}

// allreduceRing: a ring reduce-scatter and a ring allgather, 2(P-1)
// steps over the P blocks of redSplit (whole elements: with fewer elements
// than ranks most blocks are empty and one is not), evaluated step by step
// (xsteps).
func allreduceRing(e *env) {
	es := elemBytes(e.m)
	P, bo := e.P, redSplit(e.m/es, e.P, es)
	blk := func(i int) int { i = (i%P + P) % P; return (bo[i+1] - bo[i]) * es }
	x := newXsteps(e)
	x.ringRS(bo, es)
	for s := range P - 1 {
		for r := range P {
			x.pair(r, (r+1)%P, blk(r-s))
		}
		x.run()
	}
	e.xterms("2(P-1) ring steps (exact recurrence)", x.replayed())
}

// reduceScatterReduceScatterv: the Cray X1's: a binomial reduce of the
// whole vector to rank 0, which then sends every rank its block back to
// back (count/P elements each, the last rank's taking the remainder);
// every rank replayed (xprogs.finish).
func reduceScatterReduceScatterv(e *env) {
	es := elemBytes(e.m)
	offs := rsOffsets(e.m/es, e.P)
	x := newXprogs(e.P)
	for r := range e.P {
		// mpi's reduceBinomial: children nearest first, then the parent.
		for mask := 1; mask < e.P; mask <<= 1 {
			if r&mask != 0 {
				x.send(r, r-mask, e.m)
				break
			}
			if r+mask < e.P {
				x.recv(r, r+mask, e.m)
			}
		}
		if r != 0 {
			x.recv(r, 0, (offs[r+1]-offs[r])*es)
		}
	}
	for r := 1; r < e.P; r++ { // posted at once: sent back to back
		x.send(0, r, (offs[r+1]-offs[r])*es)
	}
	e.xterms("binomial reduce, root sends the blocks (exact recurrence)", x.finish(e))
}

// reduceScatterRing: P-1 steps, each passing one block on (count/P
// elements each, the last rank's taking the remainder, so one message of
// every step is the big one), evaluated step by step (xsteps).
func reduceScatterRing(e *env) {
	es := elemBytes(e.m)
	x := newXsteps(e)
	x.ringRS(rsOffsets(e.m/es, e.P), es)
	e.xterms("(P-1) ring steps (exact recurrence)", x.replayed())
}

// reduceScatterRecursiveHalving: recursive halving on p = 2^floor(log2 P)
// ranks, each new rank's block the blocks of the ranks it stands for; a
// rank folded in gets its block back from its partner at the end
// (hand-back). Every rank replayed (xprogs.finish).
func reduceScatterRecursiveHalving(e *env) {
	es := elemBytes(e.m)
	offs := rsOffsets(e.m/es, e.P)
	block := func(r int) int { return (offs[r+1] - offs[r]) * es }
	f, x := coll.NewFold(e.P), newXprogs(e.P)
	bo := make([]int, f.Pof2+1)
	for j := range f.Pof2 {
		bo[j] = offs[f.First(j)]
	}
	bo[f.Pof2] = offs[e.P]
	for r := range e.P {
		nr := x.foldIn(f, r, e.m)
		if nr < 0 {
			x.recv(r, r+1, block(r))
			continue
		}
		x.halving(f, r, nr, bo, es)
		if r < 2*f.Rem {
			x.send(r, r-1, block(r-1))
		}
	}
	e.xterms("fold-in, log2 p halving steps, hand-back (exact recurrence)", x.finish(e))
}

// scanChain: rank i waits for rank i-1's prefix and passes its own on:
// P-1 messages one after the other.
func scanChain(e *env) {
	e.msg("(P-1) x ", float64(e.P-1), e.cost(e.m)) // each rank sends once: no gap to wait for
	e.add(noCompute, 0)
}

// scanRecursiveDoubling (Hillis-Steele): ceil(log2 P) rounds, each rank
// sending its partial to rank i+2^k and receiving from i-2^k. Rank 0 only
// sends, so it races ahead and its later messages can reach a rank before
// the round's earlier ones: every rank replayed (xprogs.finish; messages
// only go up, so one sweep in rank order settles them).
func scanRecursiveDoubling(e *env) {
	x := newXprogs(e.P)
	for r := range e.P {
		for d := 1; d < e.P; d <<= 1 {
			switch up, down := r+d < e.P, r-d >= 0; {
			case up && down:
				x[r].steps = append(x[r].steps, xout{to: r + d, sb: e.m, from: r - d, rb: e.m})
			case up:
				x.send(r, r+d, e.m)
			case down:
				x.recv(r, r-d, e.m)
			}
		}
	}
	e.xterms("ceil(log2 P) steps (exact recurrence)", x.finish(e))
}

// reduceRing is Puma's bucket reduce (mpi/coll_reduce_ring.go): the ring
// reduce-scatter (P-1 steps), then P-1 ring steps carrying the blocks to
// the root (rank 0): in step t the ranks r > t pass block r-t to r+1,
// rank P-1's going to the root.
func reduceRing(e *env) {
	es := elemBytes(e.m)
	P, bo := e.P, redSplit(e.m/es, e.P, es)
	blk := func(i int) int { i = (i%P + P) % P; return (bo[i+1] - bo[i]) * es }
	x := newXsteps(e)
	x.ringRS(bo, es)
	for t := range P - 1 {
		for r := t + 1; r < P; r++ {
			x.pair(r, (r+1)%P, blk(r-t))
		}
		x.run()
	}
	e.xterms("(P-1) ring reduce-scatter steps, (P-1) ring gather steps (exact recurrence)", x.replayed())
}
