package collgen

import (
	"nocsim/logp"
)

// Barrier, broadcast, scatter and gather: the patterns of mpi/coll_rooted*.go,
// function by function (rtBarrierCentral is barrierCentral here, and so on).

// barrier writes the barrier algorithms that are not coll programs yet.
func (g *gen) barrier(alg string) func(me int) {
	d := g.meshDims() // mesh
	return func(me int) { g.meshDimsRun(d, me, 0, true) }
}

// bcast writes the broadcasts that are not coll programs yet.
func (g *gen) bcast(alg string) func(me int) {
	P, n, root := g.P, g.n, g.opt.Root
	if alg == "mesh" {
		t := g.meshTree(root)
		return func(me int) { g.meshBcast(t, me, n) }
	}
	// optimal
	// Karp et al.'s tree for the options' L, o, g (logp builds it as
	// mpi does): receive from the parent, then send to the children in
	// the order the tree informs them, and wait for all.
	_, parent, _ := logp.OptimalBroadcast(P, g.opt.OptimalL, g.opt.OptimalO, g.opt.OptimalG)
	kids := make([][]int, P)
	for j := 1; j < P; j++ {
		kids[parent[j]] = append(kids[parent[j]], j)
	}
	return func(me int) {
		rel := (me - root + P) % P
		if rel != 0 {
			g.recv((parent[rel]+root)%P, n)
		}
		var s step
		for _, k := range kids[rel] {
			g.isend(&s, (k+root)%P, n)
		}
		g.wait(&s)
	}
}
