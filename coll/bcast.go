package coll

// Broadcast algorithms, on a.N contiguous bytes of Data.

func init() {
	Register(
		&Algorithm{Op: "bcast", Name: "flat", Thesis: true, Source: SrcThesis, Messages: "P-1", Program: bcastFlat},
		&Algorithm{Op: "bcast", Name: "binomial", Auto: AutoShort, Source: SrcMPICH, Messages: "P-1", Program: bcastBinomial},
		&Algorithm{Op: "bcast", Name: "pull", Source: SrcCray, Messages: "2(P-1)", Program: bcastPull},
		&Algorithm{Op: "bcast", Name: "scatter_allgather", Auto: AutoLong, Growth: Quadratic, Source: SrcMPICH, Messages: "P-1 + P(P-1)", Program: bcastScatterAllgather},
		&Algorithm{Op: "bcast", Name: "mesh", Source: MeshSource, Messages: "P-1", Program: bcastMesh, MeshGrid: true},
		&Algorithm{Op: "bcast", Name: "optimal", Source: "Karp, Sahay, Santos & Schauser, SPAA 1993: the optimal LogP tree for optimal_L, optimal_o, optimal_g", Messages: "P-1", Program: bcastTree, OptimalTree: true},
	)
}

// bcastFlat: the root sends to every rank at once (FlatBcast).
func bcastFlat(r Rank, a Args) error {
	return FlatBcast(r, a.P, a.Me, a.Root, Data.At(0, a.N))
}

// FlatBcast sends msg from root to every other rank, all posted at once;
// the thesis library broadcasts its results with it.
func FlatBcast(r Rank, P, me, root int, msg Region) error {
	if me != root {
		return r.Recv(root, msg)
	}
	s := r.Step()
	for i := range P {
		if i != root {
			s.Send(i, msg)
		}
	}
	return s.Wait()
}

// bcastBinomial: down the binomial tree (BinomialBcast).
func bcastBinomial(r Rank, a Args) error {
	return BinomialBcast(r, a.P, a.Me, a.Root, Data.At(0, a.N))
}

// BinomialBcast passes msg from root down the binomial tree, each rank
// sending to its children, biggest subtree first, once it has it. Other
// algorithms broadcast their results with it.
func BinomialBcast(r Rank, P, me, root int, msg Region) error {
	rel := Rel(me, root, P)
	if rel != 0 {
		if err := r.Recv(Abs(Parent(rel), root, P), msg); err != nil {
			return err
		}
	}
	s := r.Step()
	for _, k := range Kids(rel, P) {
		s.Send(Abs(k.Rel, root, P), msg)
	}
	return s.Wait()
}

// bcastPull: the receivers drive the transfer. Each posts its receive,
// then asks the root, which answers requests in the order they arrive.
func bcastPull(r Rank, a Args) error {
	msg := Data.At(0, a.N)
	if a.Me != a.Root {
		s := r.Step()
		s.Recv(a.Root, msg)
		s.Send(a.Root, Empty)
		return s.Wait()
	}
	who := make([]int, 0, a.P-1)
	for i := range a.P {
		if i != a.Root {
			who = append(who, i)
		}
	}
	asks, err := r.Asks(who)
	if err != nil {
		return err
	}
	s := r.Step()
	for range who {
		i, err := asks.Next()
		if err != nil {
			return err
		}
		s.Send(who[i], msg)
	}
	return s.Wait()
}

// bcastScatterAllgather (long messages): a binomial scatter leaves chunk
// j (in ranks relative to the root) at relative rank j, then a ring
// allgather passes every chunk round. Chunks are whole words so every
// piece starts word-aligned; with fewer bytes than ranks the last chunks
// are empty, and empty pieces are never sent (both ends know their sizes).
func bcastScatterAllgather(r Rank, a Args) error {
	P, n, root := a.P, a.N, a.Root
	rel := Rel(a.Me, root, P)
	chunk := Pad4((n + P - 1) / P)
	piece := func(lo, cnt int) Region {
		off, end := min(lo*chunk, n), min((lo+cnt)*chunk, n)
		return Data.At(off, end-off)
	}
	s := r.Step()
	if rel != 0 {
		if p := piece(rel, Subtree(rel, P)); p.Len > 0 {
			s.Recv(Abs(Parent(rel), root, P), p)
			if err := s.Wait(); err != nil {
				return err
			}
		}
	}
	for _, k := range Kids(rel, P) {
		if p := piece(k.Rel, k.Size); p.Len > 0 {
			s.Send(Abs(k.Rel, root, P), p)
		}
	}
	if err := s.Wait(); err != nil {
		return err
	}
	left, right := Abs((rel-1+P)%P, root, P), Abs((rel+1)%P, root, P)
	for i := 0; i < P-1; i++ {
		if p := piece((rel-i+P)%P, 1); p.Len > 0 {
			s.Send(right, p)
		}
		if p := piece((rel-i-1+2*P)%P, 1); p.Len > 0 {
			s.Recv(left, p)
		}
		if err := s.Wait(); err != nil {
			return err
		}
	}
	return nil
}

// bcastTree: receive from the parent in a.Tree, then send to every child
// in tree order, all posted at once (as the binomial tree does).
func bcastTree(r Rank, a Args) error {
	P, msg, t := a.P, Data.At(0, a.N), a.Tree
	rel := Rel(a.Me, a.Root, P)
	if rel != 0 {
		if err := r.Recv(Abs(t.Parent[rel], a.Root, P), msg); err != nil {
			return err
		}
	}
	s := r.Step()
	for _, k := range t.Kids[rel] {
		s.Send(Abs(k, a.Root, P), msg)
	}
	return s.Wait()
}

// bcastMesh: receive from the parent in the mesh tree (Grid.Tree), then
// send to every child, posted at once (as the binomial tree does).
func bcastMesh(r Rank, a Args) error {
	msg := Data.At(0, a.N)
	parent, kids := a.Grid.Tree(a.Me, a.Root, nil)
	if parent >= 0 {
		if err := r.Recv(parent, msg); err != nil {
			return err
		}
	}
	s := r.Step()
	for _, k := range kids {
		s.Send(k, msg)
	}
	return s.Wait()
}
