package coll

import "math/bits"

// Fold is the first step of the exchange algorithms (recursive doubling
// and halving) for a P that is not a power of two: the P ranks fold onto
// Pof2 = 2^floor(log2 P) new ranks, the first 2*Rem (Rem = P-Pof2)
// pairing up, the even one of a pair handing its data to the odd one.
// With Ranks set, the P ranks are Ranks[0..P-1] (a mesh row or column)
// and Real gives those.
type Fold struct {
	Pof2, Rem int
	Ranks     []int
}

// NewFold is the fold of P ranks.
func NewFold(P int) Fold {
	p := 1 << (bits.Len(uint(P)) - 1)
	return Fold{Pof2: p, Rem: P - p}
}

// Real is the rank new rank j stands for.
func (f Fold) Real(j int) int {
	i := j + f.Rem
	if j < f.Rem {
		i = 2*j + 1
	}
	if f.Ranks != nil {
		return f.Ranks[i]
	}
	return i
}

// First is the lowest rank new rank j stands for (an index, Ranks aside):
// the even one of a pair, where its block starts.
func (f Fold) First(j int) int {
	if j < f.Rem {
		return 2 * j
	}
	return j + f.Rem
}

// NewRank is the new rank of rank i (an index into Ranks when set), -1
// for one folded away (an even rank of the first 2*Rem).
func (f Fold) NewRank(i int) int {
	switch {
	case i >= 2*f.Rem:
		return i - f.Rem
	case i%2 == 1:
		return i / 2
	}
	return -1
}
