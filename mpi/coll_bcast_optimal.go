package mpi

import sched "nocsim/coll"

// The LogP-optimal broadcast (coll's "optimal" bcast) runs on the tree
// Karp, Sahay, Santos and Schauser's greedy schedule builds for the
// communicator's size from the Config keys optimal_L, optimal_o and
// optimal_g (coll.OptimalTree).
//
// Why keys rather than a tree passed in by the caller: a run is then fully
// described by its scenario (a file can select `bcast = "optimal"` with its
// own L, o, g, and sweeps can vary them like any key), recorded
// configurations reproduce it, and every communicator size gets its tree
// without the caller knowing which communicators the program creates.

// optimalTree is the tree for P ranks, built once per size and World: the
// parameters are the World's, and building costs no simulated time, as a
// real library would build it when the communicator is created.
func (w *World) optimalTree(P int) *sched.Tree {
	if t := w.optTrees[P]; t != nil {
		return t
	}
	t := sched.OptimalTree(P, w.Cfg.OptimalL, w.Cfg.OptimalO, w.Cfg.OptimalG)
	if w.optTrees == nil {
		w.optTrees = map[int]*sched.Tree{}
	}
	w.optTrees[P] = t
	return t
}
