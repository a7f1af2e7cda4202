package coll

import "testing"

// TestBinomialTree checks the tree's shape for every P up to 130: each
// non-root node is listed exactly once among its parent's children, with
// its own subtree's size; a node's subtree is itself plus its children's;
// children come farthest first; and relative ranks round-trip.
func TestBinomialTree(t *testing.T) {
	for P := 1; P <= 130; P++ {
		seen := make([]int, P)
		for rel := range P {
			sum := 1
			last := P + rel + 1
			for _, k := range Kids(rel, P) {
				if Parent(k.Rel) != rel {
					t.Fatalf("P=%d: %d lists child %d, whose parent is %d", P, rel, k.Rel, Parent(k.Rel))
				}
				if k.Size != Subtree(k.Rel, P) || k.Rel >= last {
					t.Fatalf("P=%d: %d's child %d: size %d (subtree %d), after child %d", P, rel, k.Rel, k.Size, Subtree(k.Rel, P), last)
				}
				last = k.Rel
				sum += k.Size
				seen[k.Rel]++
			}
			if sum != Subtree(rel, P) {
				t.Fatalf("P=%d: %d's subtree %d, itself plus children %d", P, rel, Subtree(rel, P), sum)
			}
			for _, root := range []int{0, P / 3, P - 1} {
				if Rel(Abs(rel, root, P), root, P) != rel {
					t.Fatalf("P=%d root %d: relative rank %d does not round-trip", P, root, rel)
				}
			}
		}
		for rel := 1; rel < P; rel++ {
			if seen[rel] != 1 {
				t.Fatalf("P=%d: %d is a child %d times", P, rel, seen[rel])
			}
		}
	}
}

// TestTree4 checks the four-way tree: every rank but 0 is a child of its
// parent, and no rank has more than four children.
func TestTree4(t *testing.T) {
	for P := 1; P <= 70; P++ {
		for me := 1; me < P; me++ {
			found := false
			for _, k := range Tree4Kids(Tree4Parent(me), P) {
				found = found || k == me
			}
			if !found {
				t.Fatalf("P=%d: %d is not among its parent %d's children", P, me, Tree4Parent(me))
			}
		}
		for me := range P {
			if n := len(Tree4Kids(me, P)); n > 4 {
				t.Fatalf("P=%d: %d has %d children", P, me, n)
			}
		}
	}
}

// TestPad4 checks word padding on both sides of a word.
func TestPad4(t *testing.T) {
	for n, want := range map[int]int{0: 0, 1: 4, 3: 4, 4: 4, 5: 8, 1001: 1004} {
		if got := Pad4(n); got != want {
			t.Errorf("Pad4(%d) = %d, want %d", n, got, want)
		}
	}
}
