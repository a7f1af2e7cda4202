package collgen

import (
	"nocsim/coll"
)

// Reductions: the patterns of mpi/coll_reduce*.go for a commutative op (the
// sum `nocsim coll` reduces), on send and receive buffers that differ (no
// MPI_IN_PLACE). A reduction of count elements is a calc of
// count*FlopCycles; the copies the MPI code charges are calcs when
// CopyCyclesPerWord is set.

// split is mpi's redSplit: count elements in parts blocks, each starting on
// a word.
func split(count int64, parts, es int) []int64 {
	gr := int64(1)
	for gr*int64(es)%4 != 0 {
		gr++
	}
	units := count / gr
	off := make([]int64, parts+1)
	for i := range parts {
		off[i] = gr * (units * int64(i) / int64(parts))
	}
	off[parts] = count
	return off
}

func (g *gen) es() int64    { return int64(g.opt.ElemBytes) }
func (g *gen) count() int64 { return g.n / g.es() }

// reduceBinomial is the thesis's halving reduction to root over count
// elements; the root copies the result to its receive buffer.
func (g *gen) reduceBinomial(me int, count int64, root int) {
	P, n := g.P, count*g.es()
	vr := (me - root + P) % P
	for mask := 1; mask < P; mask <<= 1 {
		if vr&mask != 0 {
			g.send((vr-mask+root)%P, n)
			break
		}
		if vr+mask >= P {
			continue
		}
		g.recv((vr+mask+root)%P, n)
		g.flops(count)
	}
	if me == root {
		g.copies(n)
	}
}

// halve is the recursive-halving reduce-scatter among f's pof2 ranks;
// new rank j's block is elements bo[j]..bo[j+1].
func (g *gen) halve(me int, bo []int64, nr int, f coll.Fold) {
	es := g.es()
	lo := 0
	for mask := f.Pof2 / 2; mask > 0; mask >>= 1 {
		keep, give := lo, lo+mask
		if nr&mask != 0 {
			keep, give = give, keep
		}
		kn, gn := (bo[keep+mask]-bo[keep])*es, (bo[give+mask]-bo[give])*es
		if bo[give]*es%4 != 0 {
			g.copies(gn) // an unaligned block is staged to be sent
		}
		peer := f.Real(nr ^ mask)
		g.sendrecv(peer, gn, peer, kn)
		g.flops(bo[keep+mask] - bo[keep])
		lo = keep
	}
}

// ringRS is the ring reduce-scatter: bo are the blocks' element offsets.
func (g *gen) ringRS(me int, bo []int64) {
	P, es := g.P, g.es()
	blk := func(i int) (off, n, count int64) {
		i = (i%P + P) % P
		return bo[i] * es, (bo[i+1] - bo[i]) * es, bo[i+1] - bo[i]
	}
	if P == 1 {
		_, n, _ := blk(0)
		g.copies(n)
		return
	}
	so, sn, _ := blk(me - 1)
	if so%4 != 0 {
		g.copies(sn)
	}
	right, left := (me+1)%P, (me-1+P)%P
	for s := 0; s < P-1; s++ {
		_, rn, rc := blk(me - s - 2)
		g.sendrecv(right, sn, left, rn)
		g.flops(rc)
		sn = rn
	}
}

func (g *gen) reduce(alg string) func(me int) {
	P, root, n, count := g.P, g.opt.Root, g.n, g.count()
	switch alg {
	case "binomial":
		return func(me int) { g.reduceBinomial(me, count, root) }
	case "mesh":
		t := g.meshTree(root)
		return func(me int) { g.meshReduce(t, me, count) }
	case "flat":
		return func(me int) {
			if me != root {
				g.send(root, n)
				return
			}
			// The root folds the vectors in rank order, receiving the
			// next while it reduces the current one.
			reqs := make([]step, P)
			post := func(i int) {
				if i == root {
					i++
				}
				if i < P {
					g.irecv(&reqs[i], i, n)
				}
			}
			post(0)
			for i := range P {
				if i == root {
					if i == 0 {
						continue
					}
					g.copies(n) // its own vector into scratch
				} else {
					post(i + 1)
					g.wait(&reqs[i])
				}
				if i > 0 {
					g.flops(count)
				}
			}
			g.copies(n)
		}
	case "ring":
		return g.reduceRing(count, root)
	}
	// reduce_scatter_gather (Rabenseifner's)
	f := coll.NewFold(P)
	newRoot := f.NewRank(root)
	if newRoot < 0 {
		newRoot = root / 2
	}
	bo := split(count, f.Pof2, g.opt.ElemBytes)
	es := g.es()
	return func(me int) {
		nr := f.NewRank(me)
		if nr < 0 {
			g.send(me+1, n)
			if me == root {
				g.recv(me+1, n)
			}
			return
		}
		g.copies(n)
		if me < 2*f.Rem {
			g.recv(me-1, n)
			g.flops(count)
		}
		g.halve(me, bo, nr, f)
		for m := 1; m < f.Pof2; m <<= 1 {
			peer := nr ^ m
			lo := nr &^ (m - 1)
			if nr&m != newRoot&m {
				g.send(f.Real(peer), (bo[lo+m]-bo[lo])*es)
				return
			}
			lo = peer &^ (m - 1)
			g.recv(f.Real(peer), (bo[lo+m]-bo[lo])*es)
		}
		if me != root {
			g.send(root, n)
		}
	}
}

func (g *gen) allreduce(alg string) func(me int) {
	P, n, count := g.P, g.n, g.count()
	switch alg {
	case "mesh":
		d := g.meshDims()
		return func(me int) { g.meshDimsRun(d, me, count, false) }
	case "reduce_bcast":
		return func(me int) {
			g.reduceBinomial(me, count, 0)
			_ = coll.BinomialBcast(g, P, me, 0, coll.Data.At(0, int(n)))
		}
	case "ring":
		bo := split(count, P, g.opt.ElemBytes)
		es := g.es()
		blk := func(i int) int64 {
			i = (i%P + P) % P
			return (bo[i+1] - bo[i]) * es
		}
		return func(me int) {
			g.ringRS(me, bo)
			right, left := (me+1)%P, (me-1+P)%P
			for s := 0; s < P-1; s++ {
				g.sendrecv(right, blk(me-s), left, blk(me-s-1))
			}
		}
	}
	if alg == "reduce_scatter_allgather" {
		return g.rabenseifner()
	}
	// recursive_doubling
	f := coll.NewFold(P)
	return func(me int) {
		nr := g.foldIn(me, f, n, count)
		if nr < 0 {
			return
		}
		for mask := 1; mask < f.Pof2; mask <<= 1 {
			peer := f.Real(nr ^ mask)
			g.sendrecv(peer, n, peer, n)
			g.flops(count)
		}
		if me < 2*f.Rem {
			g.send(me-1, n)
		}
	}
}

// foldIn starts a folded allreduce of count elements (n bytes) on rank me
// and returns its new rank: an even rank below 2*rem hands its vector to
// its partner and gets the result back (-1: nothing else to do); the
// others copy their input, and the odd ones below 2*rem combine their
// partner's vector into it.
func (g *gen) foldIn(me int, f coll.Fold, n, count int64) int {
	nr := f.NewRank(me)
	if nr < 0 {
		g.send(me+1, n)
		g.recv(me+1, n)
		return -1
	}
	g.copies(n)
	if me < 2*f.Rem {
		g.recv(me-1, n)
		g.flops(count)
	}
	return nr
}

// rabenseifner is mpi's allreduceRSAG: fold, recursive-halving
// reduce-scatter, recursive-doubling allgather along the same pairs in
// reverse, unfold.
func (g *gen) rabenseifner() func(me int) {
	P, n, count, es := g.P, g.n, g.count(), g.es()
	f := coll.NewFold(P)
	bo := split(count, f.Pof2, g.opt.ElemBytes)
	return func(me int) {
		nr := g.foldIn(me, f, n, count)
		if nr < 0 {
			return
		}
		g.halve(me, bo, nr, f)
		for mask := 1; mask < f.Pof2; mask <<= 1 {
			pn := nr ^ mask
			lo, plo := nr&^(mask-1), pn&^(mask-1)
			peer := f.Real(pn)
			g.sendrecv(peer, (bo[lo+mask]-bo[lo])*es, peer, (bo[plo+mask]-bo[plo])*es)
		}
		if me < 2*f.Rem {
			g.send(me-1, n)
		}
	}
}

func (g *gen) reduceScatter(alg string) func(me int) {
	P, es, k := g.P, g.es(), g.count()
	// rank i's block is k/P elements, the last taking the remainder
	offs := make([]int64, P+1)
	for i := range P {
		offs[i+1] = offs[i] + k/int64(P)
	}
	offs[P] = k
	total := k
	n := total * es
	block := func(i int) int64 { return (offs[i+1] - offs[i]) * es }
	switch alg {
	case "ring":
		return func(me int) { g.ringRS(me, offs) }
	case "reduce_scatterv":
		aligned := true
		for i := range P {
			aligned = aligned && offs[i]*es%4 == 0
		}
		return func(me int) {
			g.reduceBinomial(me, total, 0)
			if me != 0 {
				g.recv(0, block(me))
				return
			}
			if !aligned {
				for i := range P {
					g.copies(block(i)) // repacked so every block starts on a word
				}
			}
			var s step
			for i := 1; i < P; i++ {
				g.isend(&s, i, block(i))
			}
			g.copies(offs[1] * es) // its own block
			g.wait(&s)
		}
	}
	// recursive_halving
	f := coll.NewFold(P)
	bo := make([]int64, f.Pof2+1)
	for j := range f.Pof2 {
		bo[j] = offs[f.First(j)]
	}
	bo[f.Pof2] = total
	return func(me int) {
		nr := f.NewRank(me)
		if nr < 0 {
			g.send(me+1, n)
			g.recv(me+1, block(me))
			return
		}
		if me < 2*f.Rem {
			g.recv(me-1, n)
			g.flops(total)
		} else {
			g.copies(n)
		}
		g.halve(me, bo, nr, f)
		if me < 2*f.Rem {
			if offs[me-1]*es%4 != 0 {
				g.copies(block(me - 1))
			}
			g.send(me-1, block(me-1))
		}
		g.copies(block(me))
	}
}
