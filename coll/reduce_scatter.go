package coll

// Reduce_scatter algorithms (MPI_Reduce_scatter): the reduction of every
// rank's Input (a.N bytes) is split in blocks of a.Blocks[i] bytes, block
// i going to rank i's Result. With a.InPlace the result lands at the
// start of the input.

func init() {
	Register(
		&Algorithm{Op: "reduce_scatter", Name: "reduce_scatterv", Source: "Nicholson & Goozen, Cray X1 MPI", Messages: "2(P-1)", Program: ReduceScatterv},
		&Algorithm{Op: "reduce_scatter", Name: "ring", Auto: AutoLong, Growth: Quadratic, Source: SrcMPICH, Messages: "P(P-1)", Program: reduceScatterRing, Ordered: "reduce_scatterv"},
		&Algorithm{Op: "reduce_scatter", Name: "recursive_halving", Auto: AutoShort, Growth: Log, Source: SrcMPICH, Messages: "P log2 P (P a power of two)", Program: reduceScatterHalving, Ordered: "reduce_scatterv"},
	)
}

// offsets are the blocks' byte offsets in the vector, P+1 of them.
func offsets(blocks []int) []int {
	offs := make([]int, len(blocks)+1)
	for i, b := range blocks {
		offs[i+1] = offs[i] + b
	}
	return offs
}

// ReduceScatterv reduces the whole vector to rank 0 down the binomial
// tree, which then sends every rank its block, as the Cray X1 does (and
// the thesis library's Reduce_scatter: a Reduce, then a Scatterv).
func ReduceScatterv(r Rank, a Args) error {
	P, me, n := a.P, a.Me, a.N
	offs := offsets(a.Blocks)
	in := Input.At(0, n)
	acc := in
	if me == 0 && !a.InPlace {
		if err := r.Alloc(Work, n); err != nil {
			return err
		}
		acc = Work.At(0, n)
	}
	if err := ReduceTree(r, a, in, acc, 0, 0); err != nil {
		return err
	}
	if me != 0 {
		return r.Recv(0, Result.At(0, a.Blocks[me]))
	}
	// Blocks must start on words to be sent: repack them if they do not.
	start := make([]int, P+1)
	aligned := true
	for i := range P {
		aligned = aligned && offs[i]%4 == 0
		start[i+1] = start[i] + Pad4(a.Blocks[i])
	}
	src := acc
	if aligned {
		copy(start, offs)
	} else {
		if err := r.Alloc(Tmp2, start[P]); err != nil {
			return err
		}
		src = Tmp2.At(0, start[P])
		for i := range P {
			if err := r.Copy(src.Sub(start[i], a.Blocks[i]), acc.Sub(offs[i], a.Blocks[i])); err != nil {
				return err
			}
		}
	}
	s := r.Step()
	for i := 1; i < P; i++ {
		s.Send(i, src.Sub(start[i], a.Blocks[i]))
	}
	if mine := Result.At(0, offs[1]); !sameAt(a, acc, mine) {
		if err := r.Copy(mine, acc.Sub(0, offs[1])); err != nil {
			return err
		}
	}
	return s.WaitAll()
}

// reduceScatterRing is the ring reduce-scatter (ringRS) straight into
// Result.
func reduceScatterRing(r Rank, a Args) error {
	return ringRS(r, a, Input.At(0, a.N), offsets(a.Blocks), Result.At(0, a.Blocks[a.Me]), a.InPlace)
}

// reduceScatterHalving is the recursive-halving reduce-scatter
// (commutative ops only). With a non-power-of-two P an odd rank of a
// folded pair stands for both: its new block spans both ranks' blocks, and
// it hands its partner's block back at the end.
func reduceScatterHalving(r Rank, a Args) error {
	P, me, n := a.P, a.Me, a.N
	offs := offsets(a.Blocks)
	in := Input.At(0, n)
	f := NewFold(P)
	nr := f.NewRank(me)
	mine := Result.At(0, a.Blocks[me])
	if nr < 0 {
		if err := r.Send(me+1, in); err != nil {
			return err
		}
		return r.Recv(me+1, mine)
	}
	if err := r.Alloc(Work, n); err != nil {
		return err
	}
	acc := Work.At(0, n)
	if me < 2*f.Rem {
		if err := r.Recv(me-1, acc); err != nil {
			return err
		}
		if err := r.Combine(acc, in); err != nil {
			return err
		}
	} else if err := r.Copy(acc, in); err != nil {
		return err
	}
	bo := make([]int, f.Pof2+1)
	for j := range f.Pof2 {
		bo[j] = offs[f.First(j)]
	}
	bo[f.Pof2] = n
	if err := halve(r, acc, bo, nr, f); err != nil {
		return err
	}
	if me < 2*f.Rem {
		if err := r.Send(me-1, acc.Sub(offs[me-1], a.Blocks[me-1])); err != nil {
			return err
		}
	}
	return r.Copy(mine, acc.Sub(offs[me], a.Blocks[me]))
}
