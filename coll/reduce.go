package coll

// Reduce algorithms (MPI_Reduce): the root's Result gets the reduction of
// every rank's Input, a.N bytes of a.Elem-byte elements. A non-commutative
// op (a.Ordered) is combined in rank order, x_0 op x_1 op ...; the
// algorithms that cannot keep that order name the one that can (Ordered).

func init() {
	Register(
		&Algorithm{Op: "reduce", Name: "binomial", Auto: AutoShort, Source: "after Poole 2004 figure 4.3 (ranks renumbered around the root)", Messages: "P-1 (+1 if non-commutative and root != 0)", Program: reduceBinomial},
		&Algorithm{Op: "reduce", Name: "flat", Source: "standard (MPICH linear)", Messages: "P-1", Program: reduceFlat},
		&Algorithm{Op: "reduce", Name: "reduce_scatter_gather", Auto: AutoLong, Growth: Log, Source: "standard (MPICH): Rabenseifner reduce-scatter + gather", Messages: "P log2 P + P-1 (P a power of two)", Program: reduceRSG, Ordered: "binomial"},
		&Algorithm{Op: "reduce", Name: "ring", Growth: Quadratic, Source: "Brightwell & Shuler, MPI on Puma Portals §3.2 (bucket reduce)",
			Messages: "P(P-1) + P(P-1)/2: ring reduce-scatter, then a ring gather to the root", Program: reduceRing, Ordered: "binomial"},
	)
}

// sameAt reports whether x and y start at the same byte of the same
// memory (see same).
func sameAt(a Args, x, y Region) bool { return same(a, x.Buf, y.Buf) && x.Off == y.Off }

// reduceBinomial is the thesis's halving reduction (figure 4.3) about the
// root. Relabelling the ranks about the root would reorder a
// non-commutative op, so that reduces to rank 0, which forwards the result.
func reduceBinomial(r Rank, a Args) error {
	r0 := a.Root
	if a.Ordered {
		r0 = 0
	}
	return ReduceTree(r, a, Input.At(0, a.N), Result.At(0, a.N), a.Root, r0)
}

// ReduceTree is the halving reduction of in to rank r0 (every rank
// relabelled about it): in round k the ranks with bit k set send their
// partial result to the partner with it clear. r0 forwards the result to
// root when that is another rank; out, at root, gets it. The thesis
// library always reduces to r0 = 0, as figure 4.3 does.
func ReduceTree(r Rank, a Args, in, out Region, root, r0 int) error {
	P, me, n := a.P, a.Me, in.Len
	vr := (me - r0 + P) % P
	cur := in // the partial result over virtual ranks vr..vr+mask-1
	bufs, have, which := [2]Buf{Tmp, Tmp2}, [2]bool{}, 0
	for mask := 1; mask < P; mask <<= 1 {
		if vr&mask != 0 {
			if err := r.Send((vr-mask+r0)%P, cur); err != nil {
				return err
			}
			break
		}
		if vr+mask >= P {
			continue
		}
		if !have[which] {
			if err := r.Alloc(bufs[which], n); err != nil {
				return err
			}
			have[which] = true
		}
		b := bufs[which].At(0, n)
		if err := r.Recv((vr+mask+r0)%P, b); err != nil {
			return err
		}
		// The received partial covers higher ranks: b = cur op b.
		if err := r.Combine(b, cur); err != nil {
			return err
		}
		cur, which = b, which^1
	}
	switch me {
	case r0:
		if r0 != root {
			return r.Send(root, cur)
		}
		if !sameAt(a, cur, out) {
			return r.Copy(out, cur)
		}
	case root:
		return r.Recv(r0, out)
	}
	return nil
}

// reduceFlat: every rank sends to the root, which folds the vectors in
// rank order as they come, receiving the next one while it reduces.
func reduceFlat(r Rank, a Args) error {
	P, me, n, root := a.P, a.Me, a.N, a.Root
	in, out := Input.At(0, n), Result.At(0, n)
	if me != root {
		return r.Send(root, in)
	}
	// Scratch vectors, reused once combined: at most three are live (the
	// partial, the vector being combined, the next one arriving).
	var spare []Buf
	fresh := []Buf{Work, Tmp, Tmp2}
	get := func() (Region, error) {
		if k := len(spare); k > 0 {
			b := spare[k-1]
			spare = spare[:k-1]
			return b.At(0, n), nil
		}
		b := fresh[0]
		fresh = fresh[1:]
		return b.At(0, n), r.Alloc(b, n)
	}
	type pending struct {
		s Step
		b Region
	}
	reqs := make([]pending, P)
	post := func(i int) error {
		if i == root {
			i++
		}
		if i >= P {
			return nil
		}
		b, err := get()
		if err != nil {
			return err
		}
		s := r.Step()
		s.Recv(i, b)
		reqs[i] = pending{s, b}
		return nil
	}
	if err := post(0); err != nil {
		return err
	}
	var cur Region // x_0 op ... op x_{i-1}
	owned := false // cur is scratch
	for i := range P {
		var v Region
		if i == root {
			if i == 0 {
				cur = in
				continue
			}
			b, err := get()
			if err != nil {
				return err
			}
			if err := r.Copy(b, in); err != nil {
				return err
			}
			v = b
		} else {
			if err := post(i + 1); err != nil {
				return err
			}
			if err := reqs[i].s.Wait(); err != nil {
				return err
			}
			v = reqs[i].b
		}
		if i > 0 {
			if err := r.Combine(v, cur); err != nil {
				return err
			}
			if owned {
				spare = append(spare, cur.Buf)
			}
		}
		cur, owned = v, true
	}
	if !sameAt(a, cur, out) {
		return r.Copy(out, cur)
	}
	return nil
}

// reduceRSG is Rabenseifner's reduction for long vectors (commutative ops
// only): a reduce-scatter by recursive halving leaves each rank a block of
// the result, and a binomial gather along the same pairs brings the blocks
// to the root. A non-power-of-two P first folds its extra ranks.
func reduceRSG(r Rank, a Args) error {
	P, me, n, root := a.P, a.Me, a.N, a.Root
	in := Input.At(0, n)
	f := NewFold(P)
	nr, newRoot := f.NewRank(me), f.NewRank(root)
	if newRoot < 0 {
		newRoot = root / 2 // the partner gathers, then hands over
	}
	if nr < 0 {
		if err := r.Send(me+1, in); err != nil {
			return err
		}
		if me == root {
			return r.Recv(me+1, Result.At(0, n))
		}
		return nil
	}
	acc := Result.At(0, n)
	if me != root {
		if err := r.Alloc(Work, n); err != nil {
			return err
		}
		acc = Work.At(0, n)
	}
	if !sameAt(a, acc, in) {
		if err := r.Copy(acc, in); err != nil {
			return err
		}
	}
	if err := absorbFolded(r, acc, me, f); err != nil {
		return err
	}
	bo := Split(n, f.Pof2, a.Elem)
	if err := halve(r, acc, bo, nr, f); err != nil {
		return err
	}
	// Gather: in round m the ranks whose bit m differs from the new
	// root's hand their m blocks to the partner and stop.
	for m := 1; m < f.Pof2; m <<= 1 {
		peer := nr ^ m
		lo := nr &^ (m - 1)
		if nr&m != newRoot&m {
			return r.Send(f.Real(peer), acc.Sub(bo[lo], bo[lo+m]-bo[lo]))
		}
		lo = peer &^ (m - 1)
		if err := r.Recv(f.Real(peer), acc.Sub(bo[lo], bo[lo+m]-bo[lo])); err != nil {
			return err
		}
	}
	if me != root {
		return r.Send(root, acc)
	}
	return nil
}

// reduceRing is the ring ("bucket") reduce of Puma's native collectives
// (Brightwell and Shuler, section 3.2: bucket algorithms "are also natural
// for MPI_Reduce()"), commutative ops only: a ring reduce-scatter leaves
// block k, reduced over every rank, at rank k after P-1 steps; the blocks
// then travel round the same ring to the root in P-1 more lock steps, each
// rank passing one block a step to its successor.
func reduceRing(r Rank, a Args) error {
	P, me, n, root := a.P, a.Me, a.N, a.Root
	in, acc := Input.At(0, n), Result.At(0, n)
	if me != root {
		if err := r.Alloc(Work, n); err != nil {
			return err
		}
		acc = Work.At(0, n)
	}
	bo := Split(n, P, a.Elem)
	blk := func(i int) Region {
		i = (i%P + P) % P
		return acc.Sub(bo[i], bo[i+1]-bo[i])
	}
	if err := ringRS(r, a, in, bo, blk(me), sameAt(a, in, acc)); err != nil {
		return err
	}
	// The gather: the rank pos places after the root's successor sends
	// blocks me, me-1, ..., me-pos in steps 0..pos and receives blocks
	// me-1, ..., me-pos from its predecessor in steps 0..pos-1; the root
	// (pos P-1) only receives.
	pos := (me - root - 1 + 2*P) % P
	right, left := (me+1)%P, (me-1+P)%P
	for t := 0; t <= pos && t < P-1; t++ {
		var err error
		switch {
		case me == root:
			err = r.Recv(left, blk(me-1-t))
		case t < pos:
			err = r.SendRecv(right, blk(me-t), left, blk(me-1-t))
		default:
			err = r.Send(right, blk(me-t))
		}
		if err != nil {
			return err
		}
	}
	return nil
}
