package coll

// The steps the long-vector reductions share: splitting a vector into
// blocks, the fold of a non-power-of-two rank count, the recursive-halving
// reduce-scatter and the recursive-doubling allgather (Rabenseifner), and
// the ring reduce-scatter. Offsets are bytes.

// Split cuts n bytes of es-byte elements into parts blocks, block i
// being bytes off[i]..off[i+1], every block starting on a word and
// holding whole elements.
func Split(n, parts, es int) []int {
	g := 1
	for g*es%4 != 0 {
		g++
	}
	units := n / es / g
	off := make([]int, parts+1)
	for i := range parts {
		off[i] = g * (units * i / parts) * es
	}
	off[parts] = n
	return off
}

// absorbFolded is the fold's first step on an odd rank below 2*Rem: it
// takes its even partner's vector and combines it into acc.
func absorbFolded(r Rank, acc Region, me int, f Fold) error {
	if me >= 2*f.Rem {
		return nil
	}
	if err := r.Alloc(Tmp2, acc.Len); err != nil {
		return err
	}
	tmp := Tmp2.At(0, acc.Len)
	if err := r.Recv(me-1, tmp); err != nil {
		return err
	}
	return r.Combine(acc, tmp)
}

// foldIn starts a folded exchange among list on list[i], holding acc: an
// even rank below 2*Rem hands its vector to the odd one above it and gets
// the result back (it returns -1: nothing else to do); the odd one adds it
// in (tmp: scratch of acc's size). It returns i's new rank.
func foldIn(r Rank, acc, tmp Region, f Fold, list []int, i int) (int, error) {
	nr := f.NewRank(i)
	if nr < 0 {
		if err := r.Send(list[i+1], acc); err != nil {
			return -1, err
		}
		return -1, r.Recv(list[i+1], acc)
	}
	if i < 2*f.Rem {
		if err := r.Recv(list[i-1], tmp); err != nil {
			return -1, err
		}
		if err := r.Combine(acc, tmp); err != nil {
			return -1, err
		}
	}
	return nr, nil
}

// halve is the recursive-halving reduce-scatter (commutative ops) among
// the Pof2 ranks f leaves: acc holds this rank's vector, new rank j's
// block being bytes bo[j]..bo[j+1] of it. In each round partners swap the
// halves of their current range each gives up, so on return acc's block nr
// is reduced over every rank. A block not starting on a word is staged to
// be sent (Rank.SendRecv).
func halve(r Rank, acc Region, bo []int, nr int, f Fold) error {
	lo, have := 0, false
	for mask := f.Pof2 / 2; mask > 0; mask >>= 1 {
		keep, give := lo, lo+mask
		if nr&mask != 0 {
			keep, give = give, keep
		}
		kn := bo[keep+mask] - bo[keep]
		if !have {
			// Kept ranges nest, so the first is the largest.
			if err := r.Alloc(Tmp, kn); err != nil {
				return err
			}
			have = true
		}
		peer := f.Real(nr ^ mask)
		tmp := Tmp.At(0, kn)
		if err := r.SendRecv(peer, acc.Sub(bo[give], bo[give+mask]-bo[give]), peer, tmp); err != nil {
			return err
		}
		if err := r.Combine(acc.Sub(bo[keep], kn), tmp); err != nil {
			return err
		}
		lo = keep
	}
	return nil
}

// allgatherRD is the allgather half of Rabenseifner's allreduce among the
// Pof2 ranks of fold f, this one being new rank nr and holding block nr
// (bytes bo[nr]..bo[nr+1]) of acc: before the round of mask it holds
// blocks lo..lo+mask-1 (lo = nr with its low bits cleared) and its
// partner the neighbouring run; they swap them, doubling the run.
func allgatherRD(r Rank, acc Region, bo []int, nr int, f Fold) error {
	span := func(lo, k int) Region { return acc.Sub(bo[lo], bo[lo+k]-bo[lo]) }
	for mask := 1; mask < f.Pof2; mask <<= 1 {
		pn := nr ^ mask
		peer := f.Real(pn)
		if err := r.SendRecv(peer, span(nr&^(mask-1), mask), peer, span(pn&^(mask-1), mask)); err != nil {
			return err
		}
	}
	return nil
}

// ringRS is the ring reduce-scatter (commutative ops only): in holds this
// rank's vector, block i being bytes bo[i]..bo[i+1]. In step s a rank
// passes its partial of block me-s-1 to the right and adds its own data to
// the partial of block me-s-2 from the left, so after P-1 steps it holds
// block me reduced over every rank, which goes to dst. inPlace says dst
// lies inside in.
func ringRS(r Rank, a Args, in Region, bo []int, dst Region, inPlace bool) error {
	P, me := a.P, a.Me
	blk := func(i int) Region {
		i = (i%P + P) % P
		return in.Sub(bo[i], bo[i+1]-bo[i])
	}
	if P == 1 {
		if !sameAt(a, in, dst) {
			return r.Copy(dst, blk(0))
		}
		return nil
	}
	most := 0
	for i := range P {
		most = max(most, bo[i+1]-bo[i])
	}
	for _, b := range []Buf{Tmp, Tmp2} {
		if err := r.Alloc(b, most); err != nil {
			return err
		}
	}
	sb := blk(me - 1)
	right, left := (me+1)%P, (me-1+P)%P
	for s := 0; s < P-1; s++ {
		mine := blk(me - s - 2)
		rb := []Buf{Tmp, Tmp2}[s%2].At(0, mine.Len)
		if s == P-2 && !inPlace {
			rb = dst
		}
		if err := r.SendRecv(right, sb, left, rb); err != nil {
			return err
		}
		if err := r.Combine(rb, mine); err != nil {
			return err
		}
		sb = rb
	}
	if inPlace {
		return r.Copy(dst, sb)
	}
	return nil
}
