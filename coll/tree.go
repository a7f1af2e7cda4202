package coll

import "slices"

// Ranks relative to a root: relative rank 0 is the root. The rooted
// algorithms build their trees over relative ranks so any root works.

// Rel is rank me relative to root among P ranks.
func Rel(me, root, P int) int { return (me - root + P) % P }

// Abs is the rank of relative rank rel.
func Abs(rel, root, P int) int { return (rel + root) % P }

// The binomial tree over relative ranks: a node's parent clears its lowest
// set bit; its children add the lower powers of two.

// Parent is relative rank rel's parent in the binomial tree.
func Parent(rel int) int { return rel & (rel - 1) }

// Subtree is the number of ranks under relative rank rel (itself
// included) in the binomial tree of P ranks.
func Subtree(rel, P int) int {
	if rel == 0 {
		return P
	}
	return min(rel&-rel, P-rel)
}

// Kid is a child in the binomial tree: its relative rank and the size of
// its subtree.
type Kid struct{ Rel, Size int }

// Kids lists relative rank rel's children farthest first (the child
// 2^k away heads the deepest branch), so the longest branch starts
// earliest.
func Kids(rel, P int) []Kid {
	var out []Kid
	for m := 1; m < P && (rel == 0 || m < rel&-rel); m <<= 1 {
		if c := rel + m; c < P {
			out = append(out, Kid{c, min(m, P-c)})
		}
	}
	slices.Reverse(out)
	return out
}

// Tree4Kids lists rank me's children in the four-way tree rooted at rank
// 0 (ranks 4me+1..4me+4 below P); Tree4Parent is its parent.
func Tree4Kids(me, P int) []int {
	var kids []int
	for k := 4*me + 1; k <= 4*me+4 && k < P; k++ {
		kids = append(kids, k)
	}
	return kids
}

// Tree4Parent is rank me's parent in the four-way tree (me > 0).
func Tree4Parent(me int) int { return (me - 1) / 4 }

// Pad4 rounds n bytes up to whole 4-byte words: the DMA engine moves
// words from word addresses, so blocks that are sent on are word-aligned.
func Pad4(n int) int { return (n + 3) &^ 3 }
