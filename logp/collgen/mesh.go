package collgen

import (
	"slices"

	"nocsim/coll"
	"nocsim/logp"
)

// The mesh (dimensional) collectives of mpi/coll_mesh.go not yet coll
// programs: the tree along the root's row, then down the columns
// (coll.Grid over the ranks on tiles 0..P-1 of the options' mesh width).

type meshTree struct {
	parent []int
	kids   [][]int
}

// meshWidth is the options' mesh width, or the smallest square's.
func (g *gen) meshWidth() int {
	if g.opt.MeshW == 0 {
		return coll.SquareWidth(g.P)
	}
	return g.opt.MeshW
}

func (g *gen) meshTree(root int) meshTree {
	p, k := coll.RowMajor(g.P, g.meshWidth()).TreeAll(root)
	return meshTree{p, k}
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

// The dimensional allreduce and barrier of mpi/coll_mesh_dims.go (layout:
// logp.MeshDims).

func (g *gen) meshDims() *logp.MeshDims { return logp.NewMeshDims(g.P, g.meshWidth()) }

// meshDimsRun is mpi's meshDimsRun (and, for the allreduce, the copy of
// the input to the result buffer before it).
func (g *gen) meshDimsRun(d *logp.MeshDims, me int, count int64, barrier bool) {
	n := count * g.es()
	if barrier {
		n = 0
	} else {
		g.copies(n)
	}
	y, j := d.Row[me], d.Col[me]
	row := d.Rows[y]
	if h := d.Host[y]; h >= 0 {
		g.meshDim(row, j, count, barrier)
		if j == 0 {
			g.send(d.Rows[h][0], n)
		}
		g.recv(d.Rows[h][j], n)
		return
	}
	if j == 0 {
		for _, gi := range d.Guests[y] {
			g.recv(d.Rows[gi][0], n)
			if !barrier {
				g.flops(count)
			}
		}
	}
	if barrier || n < logp.MeshLongBytes {
		g.meshDim(row, j, count, barrier)
		g.meshDim(d.Cols[j], d.At[y], count, barrier)
	} else {
		g.meshLong(row, j, d.Cols[j], d.At[y], count)
	}
	var s step
	for _, gi := range d.Guests[y] {
		if j < len(d.Rows[gi]) {
			g.isend(&s, d.Rows[gi][j], n)
		}
	}
	g.wait(&s)
}

// meshDim is mpi's meshDim: the allreduce of count elements among list
// (the caller list[i]), or the dissemination barrier.
func (g *gen) meshDim(list []int, i int, count int64, barrier bool) {
	P := len(list)
	if barrier {
		for k := 1; k < P; k <<= 1 {
			g.sendrecv(list[(i+k)%P], 0, list[(i-k+P)%P], 0)
		}
		return
	}
	if P == 1 {
		return
	}
	n := count * g.es()
	f := coll.NewFold(P)
	f.Ranks = list
	nr := g.meshFoldIn(f, list, i, count)
	if nr < 0 {
		return
	}
	if n >= logp.MeshLongBytes {
		bo := split(count, f.Pof2, g.opt.ElemBytes)
		g.halve(0, bo, nr, f)
		g.doubling(bo, nr, f)
	} else {
		for mask := 1; mask < f.Pof2; mask <<= 1 {
			peer := f.Real(nr ^ mask)
			g.sendrecv(peer, n, peer, n)
			g.flops(count)
		}
	}
	if i < 2*f.Rem {
		g.send(list[i-1], n)
	}
}

// meshLong is mpi's meshLong: halving within row, the block's allreduce
// within col, doubling within row.
func (g *gen) meshLong(row []int, i int, col []int, k int, count int64) {
	f := coll.NewFold(len(row))
	f.Ranks = row
	nr := g.meshFoldIn(f, row, i, count)
	if nr < 0 {
		return
	}
	bo := split(count, f.Pof2, g.opt.ElemBytes)
	g.halve(0, bo, nr, f)
	g.meshDim(col, k, bo[nr+1]-bo[nr], false)
	g.doubling(bo, nr, f)
	if i < 2*f.Rem {
		g.send(row[i-1], count*g.es())
	}
}

// meshFoldIn is mpi's foldIn over list.
func (g *gen) meshFoldIn(f coll.Fold, list []int, i int, count int64) int {
	n := count * g.es()
	nr := f.NewRank(i)
	if nr < 0 {
		g.send(list[i+1], n)
		g.recv(list[i+1], n)
		return -1
	}
	if i < 2*f.Rem {
		g.recv(list[i-1], n)
		g.flops(count)
	}
	return nr
}

// doubling is mpi's allgatherRD: the recursive-doubling allgather of
// blocks bo among f's pof2 ranks.
func (g *gen) doubling(bo []int64, nr int, f coll.Fold) {
	es := g.es()
	for mask := 1; mask < f.Pof2; mask <<= 1 {
		pn := nr ^ mask
		lo, plo := nr&^(mask-1), pn&^(mask-1)
		peer := f.Real(pn)
		g.sendrecv(peer, (bo[lo+mask]-bo[lo])*es, peer, (bo[plo+mask]-bo[plo])*es)
	}
}
