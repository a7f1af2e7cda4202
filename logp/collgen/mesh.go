package collgen

import (
	"slices"

	"nocsim/logp"
)

// The mesh (dimensional) collectives of mpi/coll_mesh.go: the tree along
// the root's row, then down the columns (logp.MeshTree, which mpi builds
// the same from the tiles' coordinates).

type meshTree struct {
	parent []int
	kids   [][]int
}

func (g *gen) meshTree(root int) meshTree {
	W := g.opt.MeshW
	if W == 0 {
		W = logp.SquareWidth(g.P)
	}
	p, k := logp.MeshTree(g.P, W, root)
	return meshTree{p, k}
}

// meshBcast is mpi's meshBcast: receive from the parent, then send to
// every child, all posted at once.
func (g *gen) meshBcast(t meshTree, me int, n int64) {
	if p := t.parent[me]; p >= 0 {
		g.recv(p, n)
	}
	var s step
	for _, k := range t.kids[me] {
		g.isend(&s, k, n)
	}
	g.wait(&s)
}

// meshReduce is mpi's meshReduce: the children's vectors received one
// after the other, last child first, each folded in; then the result to
// the parent, or (the root) copied to the result buffer.
func (g *gen) meshReduce(t meshTree, me int, count int64) {
	n := count * g.es()
	for _, k := range slices.Backward(t.kids[me]) {
		g.recv(k, n)
		g.flops(count)
	}
	if p := t.parent[me]; p >= 0 {
		g.send(p, n)
		return
	}
	g.copies(n)
}
