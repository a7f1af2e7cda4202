package mpi

import "nocsim/mpi/datatype"

// Broadcast algorithms, on n contiguous bytes in b.

func (x *coll) rtBcastFlat(b datatype.Buffer, n, root int) error {
	P, me := x.c.Size(), x.c.Rank()
	if me != root {
		return x.recv(b, n, root)
	}
	s := x.rtStep()
	for i := 0; i < P; i++ {
		if i != root {
			s.send(b, 0, n, i)
		}
	}
	return s.wait()
}

func (x *coll) rtBcastBinomial(b datatype.Buffer, n, root int) error {
	P := x.c.Size()
	rel := x.rtRel(root)
	if rel != 0 {
		if err := x.recv(b, n, rtAbs(rtParent(rel), root, P)); err != nil {
			return err
		}
	}
	s := x.rtStep()
	for _, k := range rtKids(rel, P) {
		s.send(b, 0, n, rtAbs(k.rel, root, P))
	}
	return s.wait()
}

// rtBcastPull: the receivers drive the transfer. Each posts its receive,
// then asks the root, which answers requests in the order they arrive.
func (x *coll) rtBcastPull(b datatype.Buffer, n, root int) error {
	P, me := x.c.Size(), x.c.Rank()
	if me != root {
		s := x.rtStep()
		s.recv(b, 0, n, root)
		s.send(datatype.Buffer{}, 0, 0, root)
		return s.wait()
	}
	var asks []*Request
	var who []int
	for i := 0; i < P; i++ {
		if i == root {
			continue
		}
		q, err := x.irecv(datatype.Buffer{}, 0, i)
		if err != nil {
			return err
		}
		asks, who = append(asks, q), append(who, i)
	}
	s := x.rtStep()
	for range asks {
		i, _, err := x.r.Waitany(asks)
		if err != nil {
			return err
		}
		s.send(b, 0, n, who[i])
	}
	return s.wait()
}

// rtBcastScatterAllgather (long messages): a binomial scatter leaves chunk
// j (in ranks relative to the root) at relative rank j, then a ring
// allgather passes every chunk round. Chunks are whole words so every piece
// starts word-aligned; with fewer bytes than ranks the last chunks are
// empty, and empty pieces are never sent (both ends know their sizes).
func (x *coll) rtBcastScatterAllgather(b datatype.Buffer, n, root int) error {
	P := x.c.Size()
	rel := x.rtRel(root)
	chunk := rtPad((n + P - 1) / P)
	piece := func(lo, cnt int) (int, int) {
		off, end := min(lo*chunk, n), min((lo+cnt)*chunk, n)
		return off, end - off
	}
	if rel != 0 {
		if off, l := piece(rel, rtSubtree(rel, P)); l > 0 {
			s := x.rtStep()
			s.recv(b, off, l, rtAbs(rtParent(rel), root, P))
			if err := s.wait(); err != nil {
				return err
			}
		}
	}
	s := x.rtStep()
	for _, k := range rtKids(rel, P) {
		if off, l := piece(k.rel, k.size); l > 0 {
			s.send(b, off, l, rtAbs(k.rel, root, P))
		}
	}
	if err := s.wait(); err != nil {
		return err
	}
	left, right := rtAbs((rel-1+P)%P, root, P), rtAbs((rel+1)%P, root, P)
	for i := 0; i < P-1; i++ {
		if off, l := piece((rel-i+P)%P, 1); l > 0 {
			s.send(b, off, l, right)
		}
		if off, l := piece((rel-i-1+2*P)%P, 1); l > 0 {
			s.recv(b, off, l, left)
		}
		if err := s.wait(); err != nil {
			return err
		}
	}
	return nil
}
