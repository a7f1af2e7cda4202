package coll

// Allreduce algorithms (MPI_Allreduce): every rank's Result gets the
// reduction of every rank's Input, a.N bytes of a.Elem-byte elements.

func init() {
	Register(
		&Algorithm{Op: "allreduce", Name: "reduce_bcast", Source: "Poole 2004 (SCMP thesis) §4.2.4; Nicholson & Goozen, Cray X1 MPI", Messages: "2(P-1)", Program: allreduceReduceBcast},
		&Algorithm{Op: "allreduce", Name: "recursive_doubling", Auto: AutoShort, Growth: Log, Source: SrcMPICH, Messages: "P log2 P (P a power of two)", Program: allreduceRD},
		&Algorithm{Op: "allreduce", Name: "ring", Auto: AutoLong, Growth: Quadratic, Source: "standard (MPICH): ring reduce-scatter + ring allgather", Messages: "2P(P-1)", Program: allreduceRing, Ordered: "recursive_doubling"},
		// Rabenseifner's allreduce (R. Rabenseifner, "Optimization of
		// collective reduction operations", ICCS 2004; Thakur, Rabenseifner
		// & Gropp, "Optimization of collective communication operations in
		// MPICH", IJHPCA 2005): each rank sends about 2m bytes in 2 log2 P
		// messages, against recursive doubling's m log2 P bytes, so it is
		// the long-vector algorithm for a power-of-two P.
		&Algorithm{Op: "allreduce", Name: "reduce_scatter_allgather",
			Source:   "Rabenseifner 2004; Thakur, Rabenseifner & Gropp 2005 (MPICH): recursive-halving reduce-scatter + recursive-doubling allgather",
			Messages: "2p log2 p + 2(P-p), p = 2^floor(log2 P)", Program: allreduceRSAG, Ordered: "recursive_doubling"},
	)
}

// allreduceReduceBcast is a binomial reduce to rank 0 and a binomial
// broadcast from it.
func allreduceReduceBcast(r Rank, a Args) error {
	out := Result.At(0, a.N)
	if err := ReduceTree(r, a, Input.At(0, a.N), out, 0, 0); err != nil {
		return err
	}
	return BinomialBcast(r, a.P, a.Me, 0, out)
}

// allreduceRD is recursive doubling: log2 P rounds in which partners at
// distance 2^k swap partial results. A non-power-of-two P folds its extra
// ranks in first and hands them the result last. Partials are combined
// lower rank first, so a non-commutative op keeps rank order.
func allreduceRD(r Rank, a Args) error {
	P, me, n := a.P, a.Me, a.N
	out := Result.At(0, n)
	f, nr, err := enterFold(r, a)
	if err != nil || nr < 0 {
		return err
	}
	acc, tmp := out, Tmp.At(0, n)
	if P > 1 {
		if err := r.Alloc(Tmp, n); err != nil {
			return err
		}
	}
	if me < 2*f.Rem {
		if err := r.Recv(me-1, tmp); err != nil {
			return err
		}
		if err := r.Combine(acc, tmp); err != nil {
			return err
		}
	}
	for mask := 1; mask < f.Pof2; mask <<= 1 {
		pn := nr ^ mask
		peer := f.Real(pn)
		if err := r.SendRecv(peer, acc, peer, tmp); err != nil {
			return err
		}
		if pn < nr || !a.Ordered {
			if err := r.Combine(acc, tmp); err != nil {
				return err
			}
		} else {
			// The partner's partial covers higher ranks: keep it as the
			// accumulator rather than copy it back.
			if err := r.Combine(tmp, acc); err != nil {
				return err
			}
			acc, tmp = tmp, acc
		}
	}
	if !sameAt(a, acc, out) {
		if err := r.Copy(out, acc); err != nil {
			return err
		}
	}
	if me < 2*f.Rem {
		return r.Send(me-1, out)
	}
	return nil
}

// allreduceRing is a ring reduce-scatter then a ring allgather, 2(P-1)
// steps each moving 1/P of the vector (commutative ops only).
func allreduceRing(r Rank, a Args) error {
	P, me, n := a.P, a.Me, a.N
	bo := Split(n, P, a.Elem)
	blk := func(i int) Region {
		i = (i%P + P) % P
		return Result.At(bo[i], bo[i+1]-bo[i])
	}
	if err := ringRS(r, a, Input.At(0, n), bo, blk(me), a.InPlace); err != nil {
		return err
	}
	right, left := (me+1)%P, (me-1+P)%P
	for s := 0; s < P-1; s++ {
		if err := r.SendRecv(right, blk(me-s), left, blk(me-s-1)); err != nil {
			return err
		}
	}
	return nil
}

// allreduceRSAG is Rabenseifner's allreduce: a reduce-scatter by recursive
// halving leaves every rank one block of the result, then an allgather by
// recursive doubling, along the same pairs in the reverse order, brings
// every block to every rank. A non-power-of-two P folds as the papers do:
// of the first 2r ranks each even rank hands its vector to the odd one
// above it, the remaining ranks run the algorithm, and each odd rank of a
// pair sends the whole result back to its partner at the end.
func allreduceRSAG(r Rank, a Args) error {
	me, n := a.Me, a.N
	out := Result.At(0, n)
	f, nr, err := enterFold(r, a)
	if err != nil || nr < 0 {
		return err
	}
	if err := absorbFolded(r, out, me, f); err != nil {
		return err
	}
	// Blocks start on words, so every range below is sent in place.
	bo := Split(n, f.Pof2, a.Elem)
	if err := halve(r, out, bo, nr, f); err != nil {
		return err
	}
	if err := allgatherRD(r, out, bo, nr, f); err != nil {
		return err
	}
	if me < 2*f.Rem {
		return r.Send(me-1, out)
	}
	return nil
}

// enterFold starts an allreduce on the fold of a.P ranks: the even rank
// of a folded pair hands its Input to its partner, which stands for it,
// and gets the Result back (nr < 0: it is done); the others start from
// their Input in Result. It returns the fold and the rank's new rank.
func enterFold(r Rank, a Args) (f Fold, nr int, err error) {
	in, out := Input.At(0, a.N), Result.At(0, a.N)
	f = NewFold(a.P)
	if nr = f.NewRank(a.Me); nr < 0 {
		if err := r.Send(a.Me+1, in); err != nil {
			return f, nr, err
		}
		return f, nr, r.Recv(a.Me+1, out)
	}
	if !same(a, Input, Result) {
		err = r.Copy(out, in)
	}
	return f, nr, err
}
