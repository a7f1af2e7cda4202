package collgen

// Barrier, broadcast, scatter and gather: the patterns of mpi/coll_rooted*.go,
// function by function (rtBarrierCentral is barrierCentral here, and so on).

// barrier writes the barrier algorithms that are not coll programs yet.
func (g *gen) barrier(alg string) func(me int) {
	d := g.meshDims() // mesh
	return func(me int) { g.meshDimsRun(d, me, 0, true) }
}
