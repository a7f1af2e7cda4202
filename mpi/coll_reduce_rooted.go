package mpi

import (
	sched "nocsim/coll"
	"nocsim/mpi/datatype"
)

// reduceBinomial is the thesis's halving reduction (figure 4.3): in round
// k the ranks (relative to the root) with bit k set send their partial
// result to the partner with it clear. out, which may be in, gets the
// result at root. Relabelling the ranks about the root would reorder a
// non-commutative op, so that reduces to rank 0, which forwards the result.
func (rd *redColl) reduceBinomial(in, out datatype.Buffer, count, root int) error {
	r0 := root
	if !rd.o.Commutative() {
		r0 = 0
	}
	return rd.reduceTree(in, out, count, root, r0)
}

// reduceTree is the halving reduction to rank r0 (every rank relabelled
// about it), which forwards the result to root if that is another rank.
// The thesis profile always reduces to r0 = 0, as figure 4.3 does.
func (rd *redColl) reduceTree(in, out datatype.Buffer, count, root, r0 int) error {
	P, me, n := rd.c.Size(), rd.c.Rank(), count*rd.es
	vr := (me - r0 + P) % P
	cur := in // the partial result over virtual ranks vr..vr+mask-1
	var bufs [2]datatype.Buffer
	which := 0
	for mask := 1; mask < P; mask <<= 1 {
		if vr&mask != 0 {
			if err := rd.send(cur, n, (vr-mask+r0)%P); err != nil {
				return err
			}
			break
		}
		if vr+mask >= P {
			continue
		}
		if bufs[which].Bytes == nil {
			b, err := rd.newBuf(n)
			if err != nil {
				return err
			}
			bufs[which] = b
		}
		b := bufs[which]
		if err := rd.recv(b, n, (vr+mask+r0)%P); err != nil {
			return err
		}
		// The received partial covers higher ranks: b = cur op b.
		if err := rd.combine(cur, b, count); err != nil {
			return err
		}
		cur, which = b, which^1
	}
	switch me {
	case r0:
		if r0 != root {
			return rd.send(cur, n, root)
		}
		if !redSame(cur, out) {
			rd.copy(out, cur, n)
		}
	case root:
		return rd.recv(out, n, r0)
	}
	return nil
}

// reduceFlat: every rank sends to the root, which folds the vectors in
// rank order as they come, receiving the next one while it reduces.
func (rd *redColl) reduceFlat(in, out datatype.Buffer, count, root int) error {
	P, me, n := rd.c.Size(), rd.c.Rank(), count*rd.es
	if me != root {
		return rd.send(in, n, root)
	}
	var spare []datatype.Buffer
	get := func() (datatype.Buffer, error) {
		if k := len(spare); k > 0 {
			b := spare[k-1]
			spare = spare[:k-1]
			return b, nil
		}
		return rd.newBuf(n)
	}
	type pending struct {
		q *Request
		b datatype.Buffer
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
		q, err := rd.irecv(b, n, i)
		reqs[i] = pending{q, b}
		return err
	}
	if err := post(0); err != nil {
		return err
	}
	var cur datatype.Buffer // x_0 op ... op x_{i-1}
	owned := false          // cur is scratch
	for i := range P {
		var v datatype.Buffer
		if i == root {
			if i == 0 {
				cur = in
				continue
			}
			b, err := get()
			if err != nil {
				return err
			}
			rd.copy(b, in, n)
			v = b
		} else {
			if err := post(i + 1); err != nil {
				return err
			}
			if err := rd.waitall(reqs[i].q); err != nil {
				return err
			}
			v = reqs[i].b
		}
		if i > 0 {
			if err := rd.combine(cur, v, count); err != nil {
				return err
			}
			if owned {
				spare = append(spare, cur)
			}
		}
		cur, owned = v, true
	}
	if !redSame(cur, out) {
		rd.copy(out, cur, n)
	}
	return nil
}

// reduceRSG is Rabenseifner's reduction for long vectors (commutative ops
// only): a reduce-scatter by recursive halving leaves each rank a block of
// the result, and a binomial gather along the same pairs brings the blocks
// to the root. A non-power-of-two P first folds its extra ranks.
func (rd *redColl) reduceRSG(in, out datatype.Buffer, count, root int) error {
	P, me, es := rd.c.Size(), rd.c.Rank(), rd.es
	n := count * es
	f := sched.NewFold(P)
	nr, newRoot := f.NewRank(me), f.NewRank(root)
	if newRoot < 0 {
		newRoot = root / 2 // the partner gathers, then hands over
	}
	if nr < 0 {
		if err := rd.send(in, n, me+1); err != nil {
			return err
		}
		if me == root {
			return rd.recv(out, n, me+1)
		}
		return nil
	}
	acc := out
	if me != root {
		b, err := rd.newBuf(n)
		if err != nil {
			return err
		}
		acc = b
	}
	if !redSame(acc, in) {
		rd.copy(acc, in, n)
	}
	if err := rd.absorbFolded(acc, n, count, me, f); err != nil {
		return err
	}
	bo := redSplit(count, f.Pof2, es)
	if err := rd.halve(acc, bo, nr, f); err != nil {
		return err
	}
	// Gather: in round m the ranks whose bit m differs from the new
	// root's hand their m blocks to the partner and stop.
	for m := 1; m < f.Pof2; m <<= 1 {
		peer := nr ^ m
		lo := nr &^ (m - 1)
		if nr&m != newRoot&m {
			b, err := acc.Slice(bo[lo]*es, (bo[lo+m]-bo[lo])*es)
			if err != nil {
				return err
			}
			return rd.send(b, b.Len(), f.Real(peer))
		}
		lo = peer &^ (m - 1)
		b, err := acc.Slice(bo[lo]*es, (bo[lo+m]-bo[lo])*es)
		if err != nil {
			return err
		}
		if err := rd.recv(b, b.Len(), f.Real(peer)); err != nil {
			return err
		}
	}
	if me != root {
		return rd.send(acc, n, root)
	}
	return nil
}

// halve is the recursive-halving reduce-scatter (commutative ops) among
// the pof2 ranks f leaves: acc holds this rank's vector, new rank j's
// block being elements bo[j]..bo[j+1]. In each round partners swap the
// halves of their current range each gives up, so on return acc's block nr
// is reduced over every rank.
func (rd *redColl) halve(acc datatype.Buffer, bo []int, nr int, f sched.Fold) error {
	es := rd.es
	var tmp, scr datatype.Buffer
	lo := 0
	for mask := f.Pof2 / 2; mask > 0; mask >>= 1 {
		keep, give := lo, lo+mask
		if nr&mask != 0 {
			keep, give = give, keep
		}
		ko, kn := bo[keep]*es, (bo[keep+mask]-bo[keep])*es
		sb, err := rd.msg(acc, bo[give]*es, (bo[give+mask]-bo[give])*es, &scr)
		if err != nil {
			return err
		}
		if tmp.Len() < kn || tmp.Bytes == nil {
			// Kept ranges nest, so the first is the largest.
			if tmp, err = rd.newBuf(kn); err != nil {
				return err
			}
		}
		peer := f.Real(nr ^ mask)
		if err := rd.sendrecv(sb, sb.Len(), peer, tmp, kn, peer); err != nil {
			return err
		}
		if err := rd.combine(tmp, redAt(acc, ko, kn), bo[keep+mask]-bo[keep]); err != nil {
			return err
		}
		lo = keep
	}
	return nil
}
