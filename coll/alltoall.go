package coll

// Alltoall algorithms: block j of SendBlock goes to rank j, block j of
// RecvBlock comes from rank j. The staged programs (post_all, pairwise)
// send and receive blocks in place; the engine has packed blocks that are
// not contiguous words and copies the rank's own block beforehand.

func init() {
	Register(
		&Algorithm{Op: "alltoall", Name: "post_all", Thesis: true, Growth: Quadratic, Source: SrcMPICH, Messages: "P(P-1)", Program: alltoallPostAll},
		&Algorithm{Op: "alltoall", Name: "pairwise", Auto: AutoLong, Growth: Quadratic, Source: SrcMPICH, Messages: "P(P-1)", Program: alltoallPairwise},
		// Bruck's rounds combine blocks assuming they are all one size;
		// its varying-count calls run post_all.
		&Algorithm{Op: "alltoall", Name: "bruck", Auto: AutoShort, Growth: Log, Scratch: bruckScratch, Source: "standard (MPICH); Bruck et al., IEEE TPDS 1997", Messages: "P ceil(log2 P)", Program: alltoallBruck, Varying: alltoallPostAll},
	)
}

// alltoallPostAll posts every receive, then every send, then waits. Sends
// start at the next rank so that not every rank hits rank 0 first.
func alltoallPostAll(r Rank, a Args) error {
	P, me := a.P, a.Me
	s := r.Step()
	for k := 1; k < P; k++ {
		j := (me - k + P) % P
		s.Recv(j, BlockOf(RecvBlock, j, a.Recv[j]))
	}
	for k := 1; k < P; k++ {
		j := (me + k) % P
		s.Send(j, BlockOf(SendBlock, j, a.Send[j]))
	}
	return s.WaitAll()
}

// alltoallPairwise takes P-1 steps; in step k rank i sends to i+k and
// receives from i-k.
func alltoallPairwise(r Rank, a Args) error {
	P, me := a.P, a.Me
	for k := 1; k < P; k++ {
		dst, src := (me+k)%P, (me-k+P)%P
		if err := r.SendRecv(dst, BlockOf(SendBlock, dst, a.Send[dst]), src, BlockOf(RecvBlock, src, a.Recv[src])); err != nil {
			return err
		}
	}
	return nil
}

// alltoallBruck is Bruck et al.'s algorithm: rotate the blocks so that
// block j goes to rank i+j, then in round k send every block whose index
// has bit k set to rank i+2^k (receiving as many from i-2^k into the same
// places), and finally rotate back: block j then came from rank i-j.
// ceil(log2 P) messages per rank, each carrying about half the blocks.
func alltoallBruck(r Rank, a Args) error {
	P, me := a.P, a.Me
	n := a.Recv[0]
	s := Pad4(n)
	half := (P + 1) / 2
	for _, b := range []struct {
		buf Buf
		n   int
	}{{Work, P * s}, {Tmp, half * s}, {Tmp2, half * s}} {
		if err := r.Alloc(b.buf, b.n); err != nil {
			return err
		}
	}
	for j := range P {
		if err := r.Copy(Work.At(j*s, n), BlockOf(SendBlock, (me+j)%P, n)); err != nil {
			return err
		}
	}
	for k := 1; k < P; k <<= 1 {
		m := 0
		for j := k; j < P; j++ {
			if j&k != 0 {
				if err := r.Copy(Tmp.At(m*s, n), Work.At(j*s, n)); err != nil {
					return err
				}
				m++
			}
		}
		bytes := (m-1)*s + n
		if err := r.SendRecv((me+k)%P, Tmp.At(0, bytes), (me-k+P)%P, Tmp2.At(0, bytes)); err != nil {
			return err
		}
		m = 0
		for j := k; j < P; j++ {
			if j&k != 0 {
				if err := r.Copy(Work.At(j*s, n), Tmp2.At(m*s, n)); err != nil {
					return err
				}
				m++
			}
		}
	}
	for j := range P {
		if err := r.Copy(BlockOf(RecvBlock, (me-j+P)%P, n), Work.At(j*s, n)); err != nil {
			return err
		}
	}
	return nil
}

// bruckScratch is Bruck's scratch: the rotated copy of the P blocks of n
// bytes and the two halves it sends and receives, and a block.
func bruckScratch(P, n int) int { return 2*Pad4(n*P) + Pad4(n) }
