package logp

// Reductions: the formulas behind Predict for nocsim's mpi/coll_reduce.go.
// bytes is the vector (the whole vector before scattering for
// reduce_scatter). The models are message time only: combining costs
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
// halving on p = 2^floor(log2 P) ranks (exchanges of m/2, m/4, ... m/p)
// and a binomial gather of the blocks to the root (m/p, ... m/2). With P
// not a power of two, half of the first 2(P-p) ranks hand their vector in
// first (fold-in) and, the root (rank 0) being one of them, its partner
// gathers and hands it the result (hand-over).
func reduceScatterGather(e *env) {
	es := elemBytes(e.m)
	f, x := newXfold(e.P), newXsteps(e)
	bo := redSplit(e.m/es, f.p, es)
	x.foldIn(f, e.m)
	x.halving(f, bo, es)
	// Binomial gather of the blocks to new rank 0.
	for m := 1; m < f.p; m <<= 1 {
		for nr := m; nr < f.p; nr += 2 * m {
			x.pair(f.real(nr), f.real(nr-m), (bo[nr+m]-bo[nr])*es)
		}
		x.run()
	}
	if f.rem > 0 { // new rank 0 is rank 1: it hands the result to rank 0
		x.pair(1, 0, e.m)
		x.run()
	}
	e.xterms("fold-in, log2 p halving steps, gather, hand-over (exact recurrence)", x.finish())
}

func foldIn(e *env, p int) {
	if e.P > p {
		e.msg("fold-in ", 1, e.cost(e.m))
	}
}

// halving is the recursive-halving reduce-scatter on p ranks: log2 p
// exchanges, each of half the part still held.
func halving(e *env, p int) {
	for d := p / 2; d >= 1; d >>= 1 {
		e.round("halving log2 p x ", e.cost(ceilDiv(e.m*d, p)), d == 1)
	}
}

// allreduceReduceBcast: a binomial reduce to rank 0, then a binomial bcast.
func allreduceReduceBcast(e *env) {
	e.binomialUp("reduce ", e.whole)
	e.binomialDown("bcast ", e.whole)
	e.add(noCompute, 0)
}

// allreduceRecursiveDoubling: log2 p exchanges of the whole vector among
// p = 2^floor(log2 P) ranks, the others folded in first and handed the
// result last.
func allreduceRecursiveDoubling(e *env) {
	f, x := newXfold(e.P), newXsteps(e)
	x.foldIn(f, e.m)
	for mask := 1; mask < f.p; mask <<= 1 {
		for nr := range f.p {
			x.pair(f.real(nr), f.real(nr^mask), e.m)
		}
		x.run()
	}
	x.foldOut(f, func(int) int { return e.m })
	e.xterms("fold-in, log2 p exchanges, fold-out (exact recurrence)", x.finish())
}

// allreduceRing: a ring reduce-scatter and a ring allgather, 2(P-1)
// exchanges of ceil(m/P) bytes.
func allreduceRing(e *env) {
	es := elemBytes(e.m)
	bo := redSplit(e.m/es, e.P, es)
	x := newXsteps(e)
	x.ringRS(bo, es)
	P := e.P
	blk := func(i int) int { i = (i%P + P) % P; return (bo[i+1] - bo[i]) * es }
	for s := 0; s < P-1; s++ {
		for r := range P {
			x.pair(r, (r+1)%P, blk(r-s))
		}
		x.run()
	}
	e.xterms("2(P-1) ring steps (exact recurrence)", x.finish())
}

// reduceScatterReduceScatterv: the Cray X1's: a binomial reduce of the
// whole vector to rank 0, which then sends every rank its ceil(m/P)-byte
// block back to back.
func reduceScatterReduceScatterv(e *env) {
	e.binomialUp("reduce ", e.whole)
	c := e.cost(ceilDiv(e.m, e.P))
	e.msg("scatterv ", 1, c)
	e.add("scatterv (P-2) x max(g, o_s+(m-1)G): root sends", float64(e.P-2)*c.sendIv())
	e.add(noCompute, 0)
}

// reduceScatterRing: P-1 exchanges of one ceil(m/P)-byte block.
func reduceScatterRing(e *env) {
	es := elemBytes(e.m)
	x := newXsteps(e)
	x.ringRS(rsOffsets(e.m/es, e.P), es)
	e.xterms("(P-1) ring steps (exact recurrence)", x.finish())
}

// reduceScatterRecursiveHalving: recursive halving on p = 2^floor(log2 P)
// ranks; a rank folded in gets its block back from its partner at the end
// (hand-back).
func reduceScatterRecursiveHalving(e *env) {
	es := elemBytes(e.m)
	offs := rsOffsets(e.m/es, e.P)
	f, x := newXfold(e.P), newXsteps(e)
	bo := make([]int, f.p+1)
	for j := range f.p {
		first := j + f.rem // the lowest rank new rank j stands for
		if j < f.rem {
			first = 2 * j
		}
		bo[j] = offs[first]
	}
	bo[f.p] = offs[e.P]
	x.foldIn(f, e.m)
	x.halving(f, bo, es)
	x.foldOut(f, func(r int) int { return (offs[r+1] - offs[r]) * es })
	e.xterms("fold-in, log2 p halving steps, hand-back (exact recurrence)", x.finish())
}

// scanChain: rank i waits for rank i-1's prefix and passes its own on:
// P-1 messages one after the other.
func scanChain(e *env) {
	e.msg("(P-1) x ", float64(e.P-1), e.cost(e.m)) // each rank sends once: no gap to wait for
	e.add(noCompute, 0)
}

// scanRecursiveDoubling (Hillis-Steele): ceil(log2 P) rounds, each rank
// sending its partial to rank i+2^k and receiving from i-2^k.
func scanRecursiveDoubling(e *env) {
	// Messages only go up, so each rank is replayed once its senders
	// (lower ranks) are, with every arrival known.
	P, c := e.P, e.cost(e.m)
	var ds []int
	for d := 1; d < P; d <<= 1 {
		ds = append(ds, d)
	}
	start := make([][]*evkey, P) // per rank, per round: its send's event
	var finish float64
	for r := range P {
		x := &xprog{rank: r}
		var round []int
		for k, d := range ds {
			st := xout{to: -1, from: -1}
			if r+d < P {
				st.to, st.sb = r+d, e.m
			}
			if r-d >= 0 {
				st.from, st.rb = r-d, e.m
			}
			if st.to < 0 && st.from < 0 {
				continue
			}
			a, by := 0.0, (*evkey)(nil)
			if st.from >= 0 {
				by = start[r-d][k]
				a = by.t + c.os + c.l
			}
			x.steps = append(x.steps, st)
			x.arrive, x.sentBy = append(x.arrive, a), append(x.sentBy, by)
			round = append(round, k)
		}
		finish = max(finish, e.replay(x))
		start[r] = make([]*evkey, len(ds))
		for i, k := range round {
			start[r][k] = x.startKey[i]
		}
	}
	e.xterms("ceil(log2 P) steps (exact recurrence)", finish)
}
