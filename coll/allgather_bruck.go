package coll

// Bruck's allgather (Bruck, Ho, Kipnis, Upfal & Weathersby, "Efficient
// algorithms for all-to-all communications in multiport message-passing
// systems", IEEE TPDS 1997; MPICH's allgather for short messages when P
// is not a power of two): ceil(log2 P) steps on any P, with no fold and
// no rank sitting out. Each rank keeps the blocks in its own rotated
// order, its own first: in the step of distance d it sends the first
// min(d, P-d) blocks it holds to rank me-d and receives as many from rank
// me+d, which go after them. A last local copy puts the blocks back in
// rank order. Recursive doubling needs the same number of steps only when
// P is a power of two; otherwise its folded ranks add two.

func init() {
	Register(&Algorithm{Op: "allgather", Name: "bruck", Growth: Log, Source: "Bruck et al., IEEE TPDS 1997; standard (MPICH, short messages, P not a power of two)",
		Messages: "P ceil(log2 P)", Program: allgatherBruck, Scratch: rotatedCopy})
}

// rotatedCopy is the scratch: every block of n bytes, in the rank's order.
func rotatedCopy(P, n int) int { return P * Pad4(n) }

// allgatherBruck works in Tmp, the blocks in this rank's rotated order
// (block (me+j) mod P at place j, each padded to words as in Layout).
func allgatherBruck(r Rank, a Args) error {
	P, me, l := a.P, a.Me, NewLayout(a.Blocks)
	if P == 1 {
		return nil // its own block is in place
	}
	sz := make([]int, P)
	for j := range sz {
		sz[j] = a.Blocks[(me+j)%P]
	}
	rot := NewLayout(sz)
	if err := r.Alloc(Tmp, rot.Size()); err != nil {
		return err
	}
	if err := r.Copy(rot.SpanIn(Tmp, 0, 1), l.Span(me, me+1)); err != nil {
		return err
	}
	for d := 1; d < P; d <<= 1 {
		c := min(d, P-d)
		// The peer me+d's first c blocks are blocks me+d.., which are
		// this rank's places d..d+c-1: the same bytes at both ends.
		if err := r.SendRecv((me-d+P)%P, rot.SpanIn(Tmp, 0, c), (me+d)%P, rot.SpanIn(Tmp, d, d+c)); err != nil {
			return err
		}
	}
	for j := 1; j < P; j++ {
		b := (me + j) % P
		if err := r.Copy(l.Span(b, b+1), rot.SpanIn(Tmp, j, j+1)); err != nil {
			return err
		}
	}
	return nil
}
