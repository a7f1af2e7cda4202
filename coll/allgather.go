package coll

// Allgather algorithms. Every rank works on one buffer (Data) holding the
// P blocks in rank order, each padded to whole words (Layout); a.Blocks
// gives each block's bytes.

func init() {
	Register(
		&Algorithm{Op: "allgather", Name: "gather_bcast", Source: "Nicholson & Goozen, Cray X1 MPI", Messages: "2(P-1)", Program: allgatherGatherBcast},
		&Algorithm{Op: "allgather", Name: "ring", Auto: AutoLong, Growth: Quadratic, Source: "Brightwell & Shuler, MPI on Puma Portals", Messages: "P(P-1)", Program: allgatherRing},
		&Algorithm{Op: "allgather", Name: "recursive_doubling", Auto: AutoShort, Growth: Log, Source: SrcMPICH, Messages: "p log2 p + 2(P-p), p = 2^floor(log2 P)", Program: allgatherRecursiveDoubling},
	)
}

// allgatherGatherBcast: a binomial gather to rank 0 (rank i collects the
// subtrees of i+1, i+2, i+4, ... below its lowest set bit, then sends its
// run of blocks to its parent; rooted at 0 every subtree is one run), then
// a broadcast of every block from rank 0 down Bcast's binomial tree.
func allgatherGatherBcast(r Rank, a Args) error {
	P, me, l := a.P, a.Me, NewLayout(a.Blocks)
	s := r.Step()
	mask := 1
	for ; mask < P && me&mask == 0; mask <<= 1 {
		if child := me + mask; child < P {
			s.Recv(child, l.Span(child, min(child+mask, P)))
		}
	}
	if err := s.WaitAll(); err != nil {
		return err
	}
	if me != 0 {
		if err := r.Send(me-mask, l.Span(me, min(me+mask, P))); err != nil {
			return err
		}
	}
	return BinomialBcast(r, P, me, 0, l.Span(0, P))
}

// allgatherRing is Puma's bucket algorithm: in step k every rank passes
// the block it received in step k-1 (its own first) to its right
// neighbour.
func allgatherRing(r Rank, a Args) error {
	P, me, l := a.P, a.Me, NewLayout(a.Blocks)
	right, left := (me+1)%P, (me+P-1)%P
	for k := 0; k < P-1; k++ {
		s, rr := (me-k+P)%P, (me-k-1+P)%P
		if err := r.SendRecv(right, l.Span(s, s+1), left, l.Span(rr, rr+1)); err != nil {
			return err
		}
	}
	return nil
}

// allgatherRecursiveDoubling exchanges doubling runs of blocks between
// partners 1, 2, 4, ... apart. For P not a power of two the ranks fold
// (Fold): the even one of each of the first pairs hands its block to the
// odd one, sits out the exchanges and gets the whole result at the end.
// New rank v then holds a run of one or two blocks, and any aligned group
// of new ranks holds one run.
func allgatherRecursiveDoubling(r Rank, a Args) error {
	P, me, l := a.P, a.Me, NewLayout(a.Blocks)
	f := NewFold(P)
	all := l.Span(0, P)
	if me < 2*f.Rem && me%2 == 0 {
		if err := r.Send(me+1, l.Span(me, me+1)); err != nil {
			return err
		}
		return r.Recv(me+1, all)
	}
	v := f.NewRank(me)
	if me < 2*f.Rem {
		if err := r.Recv(me-1, l.Span(me-1, me)); err != nil {
			return err
		}
	}
	for mask := 1; mask < f.Pof2; mask <<= 1 {
		pv := v ^ mask
		mine, theirs := v&^(mask-1), pv&^(mask-1)
		send := l.Span(f.First(mine), f.First(mine+mask))
		recv := l.Span(f.First(theirs), f.First(theirs+mask))
		if err := r.SendRecv(f.Real(pv), send, f.Real(pv), recv); err != nil {
			return err
		}
	}
	if me < 2*f.Rem {
		return r.Send(me-1, all)
	}
	return nil
}
