package coll

// Gather algorithms: rank i's Data (a.N bytes) lands as the root's block
// i (RootBlock, a.Blocks[i] bytes).

func init() {
	Register(
		&Algorithm{Op: "gather", Name: "flat", Auto: AutoLong, Thesis: true, Source: SrcMPICH, Messages: "P-1", Program: gatherFlat},
		&Algorithm{Op: "gather", Name: "binomial", Auto: AutoShort, Scratch: subtreeScratch, Source: SrcMPICH, Messages: "P-1 (Gatherv: + P-1-ceil(log2 P) size headers)", Program: gatherBinomial},
		&Algorithm{Op: "gather", Name: "push", Source: SrcCray, Messages: "2(P-1)", Program: gatherPush},
	)
}

// gatherFlat: every rank sends to the root, which has posted every
// receive.
func gatherFlat(r Rank, a Args) error {
	if a.Me != a.Root {
		return r.Send(a.Root, Data.At(0, a.N))
	}
	s := r.Step()
	rootRecvs(s, a)
	return ownAndWait(r, s)
}

// gatherPush: the root posts every receive, then tells each rank it is
// ready; the data then lands straight in place, never queued unexpected.
func gatherPush(r Rank, a Args) error {
	if a.Me != a.Root {
		if err := r.Recv(a.Root, Empty); err != nil {
			return err
		}
		return r.Send(a.Root, Data.At(0, a.N))
	}
	s := r.Step()
	rootRecvs(s, a)
	for i := range a.P {
		if i != a.Root {
			s.Send(i, Empty)
		}
	}
	return ownAndWait(r, s)
}

// rootRecvs posts the root's receive of every other rank's block.
func rootRecvs(s Step, a Args) {
	for i := range a.P {
		if i != a.Root {
			s.Recv(i, BlockOf(RootBlock, i, a.Blocks[i]))
		}
	}
}

// ownAndWait moves the root's own block while its messages fly, then
// waits for them.
func ownAndWait(r Rank, s Step) error {
	err := r.Own()
	if e := s.Wait(); err == nil {
		err = e
	}
	return err
}

// gatherBinomial mirrors scatterBinomial: a node sends its parent its
// whole subtree's blocks as one message in Layout. In a vector gather the
// inner nodes learn their subtree's sizes from their children's headers
// (the root knows every size already).
func gatherBinomial(r Rank, a Args) error {
	P, root := a.P, a.Root
	rel := Rel(a.Me, root, P)
	abs := func(j int) int { return Abs(j, root, P) }
	s := r.Step()
	if rel == 0 {
		sz := make([]int, P)
		for j := range sz {
			sz[j] = a.Blocks[abs(j)]
		}
		l := NewLayout(sz)
		direct := r.RootTree(sz)
		if !direct {
			if err := r.Alloc(Work, l.Size()); err != nil {
				return err
			}
		}
		for _, k := range Kids(0, P) {
			s.Recv(abs(k.Rel), l.SpanIn(Work, k.Rel, k.Rel+k.Size))
		}
		if err := ownAndWait(r, s); err != nil || direct {
			return err
		}
		for j := 1; j < P; j++ {
			if err := r.Copy(BlockOf(RootBlock, abs(j), sz[j]), Work.At(l.Off[j], sz[j])); err != nil {
				return err
			}
		}
		return nil
	}
	parentRel := Parent(rel)
	parent, size := abs(parentRel), Subtree(rel, P)
	tell := a.Vec && parentRel != 0 // the root knows every size already
	sz := make([]int, size)
	for j := range sz {
		sz[j] = a.N
	}
	if a.Vec {
		if err := r.Alloc(Hdr, 4*size); err != nil {
			return err
		}
		r.PutSizes(Hdr.At(0, 4), sz[:1])
	}
	kids := Kids(rel, P)
	if a.Vec && len(kids) > 0 {
		for _, k := range kids {
			s.Recv(abs(k.Rel), Hdr.At(4*(k.Rel-rel), 4*k.Size))
		}
		if err := s.Wait(); err != nil {
			return err
		}
		sz = r.Sizes(Hdr.At(0, 4*size))
	}
	if len(kids) == 0 {
		if tell {
			s.Send(parent, Hdr.At(0, 4))
		}
		s.Send(parent, Data.At(0, a.N))
		return s.Wait()
	}
	l := NewLayout(sz)
	if err := r.Alloc(Work, l.Size()); err != nil {
		return err
	}
	for _, k := range kids {
		j := k.Rel - rel
		s.Recv(abs(k.Rel), l.SpanIn(Work, j, j+k.Size))
	}
	if err := r.Copy(Work.At(0, a.N), Data.At(0, a.N)); err != nil {
		return err
	}
	if err := s.Wait(); err != nil {
		return err
	}
	if tell {
		s.Send(parent, Hdr.At(0, 4*size))
	}
	s.Send(parent, l.SpanIn(Work, 0, size))
	return s.Wait()
}
