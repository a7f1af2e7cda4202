package coll

// Scatter algorithms: the root's block i (RootBlock, a.Blocks[i] bytes)
// goes to rank i's Data (a.N bytes).

func init() {
	Register(
		&Algorithm{Op: "scatter", Name: "flat", Auto: AutoLong, Thesis: true, Source: SrcMPICH, Messages: "P-1", Program: scatterFlat},
		&Algorithm{Op: "scatter", Name: "binomial", Auto: AutoShort, Scratch: subtreeScratch, Source: SrcMPICH, Messages: "P-1 (Scatterv: + a size header per inner node)", Program: scatterBinomial},
	)
}

// scatterFlat: the root sends every block at once.
func scatterFlat(r Rank, a Args) error {
	if a.Me != a.Root {
		return r.Recv(a.Root, Data.At(0, a.N))
	}
	s := r.Step()
	for i := range a.P {
		if i != a.Root {
			s.Send(i, BlockOf(RootBlock, i, a.Blocks[i]))
		}
	}
	err := r.Own()
	if e := s.Wait(); err == nil {
		err = e
	}
	return err
}

// scatterBinomial moves, between a node and its parent, the blocks of the
// node's whole subtree as one message, laid out in relative rank order
// (Layout) so every block starts where the DMA engine can address it.
// Only the root knows a vector scatter's sizes: it sends them down, ahead
// of the data, to the inner nodes of the tree.
func scatterBinomial(r Rank, a Args) error {
	P, root := a.P, a.Root
	rel := Rel(a.Me, root, P)
	abs := func(j int) int { return Abs(j, root, P) }
	if rel == 0 {
		sz := make([]int, P)
		for j := range sz {
			sz[j] = a.Blocks[abs(j)]
		}
		l := NewLayout(sz)
		if !r.RootTree(sz) {
			if err := r.Alloc(Work, l.Size()); err != nil {
				return err
			}
			for j := 1; j < P; j++ {
				if err := r.Copy(Work.At(l.Off[j], sz[j]), BlockOf(RootBlock, abs(j), sz[j])); err != nil {
					return err
				}
			}
		}
		if a.Vec {
			if err := r.Alloc(Hdr, 4*P); err != nil {
				return err
			}
			r.PutSizes(Hdr.At(0, 4*P), sz)
			r.Charge(4 * P)
		}
		return rootSends(r, a, l, 0)
	}
	parent, size := abs(Parent(rel)), Subtree(rel, P)
	if size == 1 {
		return r.Recv(parent, Data.At(0, a.N))
	}
	sz := make([]int, size)
	if a.Vec {
		if err := r.Alloc(Hdr, 4*size); err != nil {
			return err
		}
		if err := r.Recv(parent, Hdr.At(0, 4*size)); err != nil {
			return err
		}
		sz = r.Sizes(Hdr.At(0, 4*size))
	} else {
		for j := range sz {
			sz[j] = a.N
		}
	}
	l := NewLayout(sz)
	if err := r.Alloc(Work, l.Size()); err != nil {
		return err
	}
	if err := r.Recv(parent, l.SpanIn(Work, 0, size)); err != nil {
		return err
	}
	s := r.Step()
	subtreeSends(s, a, l, rel)
	var late error
	if sz[0] != a.N {
		late = &Truncated{Got: sz[0], Want: a.N}
	}
	n := min(sz[0], a.N)
	if err := r.Copy(Data.At(0, n), Work.At(0, n)); err != nil {
		return err
	}
	if err := s.Wait(); err != nil {
		return err
	}
	return late
}

// rootSends is the binomial scatter root's sends, its own block's move and
// the wait for them.
func rootSends(r Rank, a Args, l Layout, rel int) error {
	s := r.Step()
	subtreeSends(s, a, l, rel)
	err := r.Own()
	if e := s.Wait(); err == nil {
		err = e
	}
	return err
}

// subtreeSends posts, for each child of relative rank rel, its subtree's
// sizes (a vector scatter's inner children) and blocks from Work, which
// holds rel's subtree in Layout l.
func subtreeSends(s Step, a Args, l Layout, rel int) {
	for _, k := range Kids(rel, a.P) {
		j, to := k.Rel-rel, Abs(k.Rel, a.Root, a.P)
		if a.Vec && k.Size > 1 {
			s.Send(to, Hdr.At(4*j, 4*k.Size))
		}
		s.Send(to, l.SpanIn(Work, j, j+k.Size))
	}
}

// subtreeScratch is the binomial scatter's and gather's scratch: an inner
// rank holds its subtree's blocks, at most all P of n bytes.
func subtreeScratch(P, n int) int { return Pad4(n * P) }
