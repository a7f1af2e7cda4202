package mpi

import (
	"container/heap"

	sched "nocsim/coll"
	"nocsim/mpi/datatype"
)

// The LogP-optimal broadcast of Karp, Sahay, Santos and Schauser ("Optimal
// broadcast and summation in the LogP model", SPAA 1993) as a runnable
// bcast algorithm: a rank that has the data sends it to a new rank every
// max(g, o) cycles, and a rank sent to at time s has it at s + L + 2o and
// starts sending in turn; serving the earliest free send slot first (ties
// to the lower rank) is optimal in LogP. The tree depends only on P and the
// Config keys optimal_L, optimal_o and optimal_g.
//
// Why keys rather than a tree passed in by the caller: a run is then fully
// described by its scenario (a file can select `bcast = "optimal"` with its
// own L, o, g, and sweeps can vary them like any key), recorded
// configurations reproduce it, and every communicator size gets its tree
// without the caller knowing which communicators the program creates. mpi
// must not import logp, so the greedy construction (a dozen lines) is
// repeated here with the same arithmetic and tie-break as
// logp.OptimalBroadcast; a test in scenarios checks that both give the
// same tree, message for message.

func init() {
	register(algEntry{Algorithm: Algorithm{Op: "bcast", Name: "optimal",
		Source:   "Karp, Sahay, Santos & Schauser, SPAA 1993: the optimal LogP tree for optimal_L, optimal_o, optimal_g",
		Messages: "P-1"}, run: bcastRun((*coll).rtBcastOptimal)})
}

// optTree is the optimal broadcast tree over relative ranks (the root is
// 0): parent[i] sends to i, kids[i] are i's children in the order i sends
// to them.
type optTree struct {
	parent []int
	kids   [][]int
}

// optimalTree builds the tree for P ranks, once per size and World: the
// parameters are the World's, and building costs no simulated time, as a
// real library would build it when the communicator is created.
func (w *World) optimalTree(P int) *optTree {
	if t := w.optTrees[P]; t != nil {
		return t
	}
	L, o, g := w.Cfg.OptimalL, w.Cfg.OptimalO, w.Cfg.OptimalG
	t := &optTree{parent: make([]int, P), kids: make([][]int, P)}
	t.parent[0] = -1
	iv := max(g, o)
	free := &optSlots{{0, 0}}
	for j := 1; j < P; j++ {
		s := heap.Pop(free).(optSlot)
		t.parent[j] = s.rank
		t.kids[s.rank] = append(t.kids[s.rank], j)
		heap.Push(free, optSlot{s.t + iv, s.rank})
		heap.Push(free, optSlot{s.t + L + 2*o, j})
	}
	if w.optTrees == nil {
		w.optTrees = map[int]*optTree{}
	}
	w.optTrees[P] = t
	return t
}

// optSlot is a rank's next free send time.
type optSlot struct {
	t    float64
	rank int
}

// optSlots is a min-heap of send slots, earliest first, then lowest rank.
type optSlots []optSlot

func (h optSlots) Len() int { return len(h) }
func (h optSlots) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].rank < h[j].rank
}
func (h optSlots) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *optSlots) Push(x any)   { *h = append(*h, x.(optSlot)) }
func (h *optSlots) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// rtBcastOptimal: receive from the parent, then send to every child in
// tree order, all posted at once (as the binomial tree does).
func (x *coll) rtBcastOptimal(b datatype.Buffer, n, root int) error {
	P := x.c.Size()
	t := x.r.w.optimalTree(P)
	rel := sched.Rel(x.c.Rank(), root, P)
	if rel != 0 {
		if err := x.recv(b, n, sched.Abs(t.parent[rel], root, P)); err != nil {
			return err
		}
	}
	s := x.rtStep()
	for _, k := range t.kids[rel] {
		s.send(b, 0, n, sched.Abs(k, root, P))
	}
	return s.wait()
}
