package coll

import "container/heap"

// The optimal LogP broadcast of Karp, Sahay, Santos and Schauser
// ("Optimal broadcast and summation in the LogP model", SPAA 1993): the
// tree the "optimal" bcast program runs (its engine builds it for the
// call's P from its own optimal_L, optimal_o, optimal_g) and the yardstick
// logp measures the other trees against.

// OptimalBroadcast builds the optimal LogP broadcast of one item from
// processor 0 to processors 1..P-1. A processor that has the item sends
// it to a new processor every max(g, o) cycles (g alone when o <= g, as
// the paper assumes) and a message started at time s is received, its
// overhead paid, at s + L + 2o, when its receiver can start sending in
// turn. Serving the earliest free send slot first is optimal: the arrival
// times it produces are, one by one, the earliest any schedule can reach
// (the paper's argument), so its tree is unbalanced, the fan-out fixed by
// L, o and g.
//
// finish is when the last processor has the item; parent[i] is who sent
// it to i (-1 for the root) and at[i] when i had it. P < 1 gives 0, nil,
// nil. Ties go to the lower-numbered sender.
func OptimalBroadcast(P int, L, o, g float64) (finish float64, parent []int, at []float64) {
	if P < 1 {
		return 0, nil, nil
	}
	iv := max(g, o)
	parent, at = make([]int, P), make([]float64, P)
	parent[0] = -1
	free := &slots{{0, 0}}
	for j := 1; j < P; j++ {
		s := heap.Pop(free).(slot)
		parent[j], at[j] = s.proc, s.t+L+2*o
		finish = max(finish, at[j])
		heap.Push(free, slot{s.t + iv, s.proc})
		heap.Push(free, slot{at[j], j})
	}
	return finish, parent, at
}

// slot is a processor's next free send time.
type slot struct {
	t    float64
	proc int
}

// slots is a min-heap of send slots, earliest first, then lowest processor.
type slots []slot

func (h slots) Len() int { return len(h) }
func (h slots) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].proc < h[j].proc
}
func (h slots) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *slots) Push(x any)   { *h = append(*h, x.(slot)) }
func (h *slots) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Tree is a broadcast tree over relative ranks (the root is 0): Parent[i]
// sent to i (-1 for the root) and Kids[i] are i's children in the order i
// sends to them.
type Tree struct {
	Parent []int
	Kids   [][]int
}

// OptimalTree is OptimalBroadcast's tree, children in the order they are
// informed.
func OptimalTree(P int, L, o, g float64) *Tree {
	_, parent, _ := OptimalBroadcast(P, L, o, g)
	t := &Tree{Parent: parent, Kids: make([][]int, P)}
	for j := 1; j < P; j++ {
		t.Kids[parent[j]] = append(t.Kids[parent[j]], j)
	}
	return t
}
