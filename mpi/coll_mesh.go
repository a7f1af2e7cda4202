package mpi

import (
	"slices"

	sched "nocsim/coll"
	"nocsim/mesh"
	"nocsim/mpi/datatype"
	"nocsim/mpi/group"
)

// Dimensional ("mesh") collectives: broadcast, reduce, allreduce and
// barrier that follow the physical mesh, rows first, then columns. They
// are the hybrid collectives of Puma (Brightwell & Shuler, after the
// InterCom work at the University of Texas), which use the physical
// dimensions of the Paragon's mesh, and the topology-aware collectives the
// SCMP thesis leaves as future work (§6.4).
//
// The communicator's ranks are placed by their tiles' actual coordinates,
// not by rank order: rows are the mesh rows that hold members (top to
// bottom), and a row's members are ordered by column. A broadcast goes
// along the root's row by a binomial tree, then from each member of that
// row down its column by a binomial tree; with XY routing a row message
// uses only row links and a column message only column links, so the
// phases of different rows (or columns) never share a link. Column j is
// the j-th member of every row, which is the physical column whenever the
// rows hold the same columns (a whole mesh, whole rows, a split by
// column). A row longer than the root's has members no column reaches:
// member j of it gets the data from member j mod (root row's length) of
// the same row (a third, row-only phase). Reduce is the same tree walked
// up. Allreduce and barrier are dimensional exchanges, every row at once
// then every column (coll_mesh_dims.go).

func init() {
	for _, a := range []algEntry{
		{Algorithm: Algorithm{Op: "barrier", Name: "mesh", Source: sched.MeshSource, Messages: "W x H mesh: H d(W) + W d(H), d(k) = k ceil(log2 k) (dissemination in each row, then each column); a short row of s: d(s) + 1 + s"}, run: barrierRun((*coll).meshBarrier)},
		{Algorithm: Algorithm{Op: "reduce", Name: "mesh", Source: sched.MeshSource, Messages: "P-1 (non-commutative op: binomial's)"}, run: reduceRun((*redColl).meshReduce), reorders: true},
		{Algorithm: Algorithm{Op: "allreduce", Name: "mesh", Source: sched.MeshSource + "; Barnett et al., InterCom (dimensional reduce-scatter/allgather)", Messages: "W x H mesh, under 4 KiB: H a(W) + W a(H), a(k) = p log2 p + 2(k-p), p = 2^floor(log2 k) (recursive doubling in each row, then each column); from 4 KiB: H b(W) + p a'(H), b(k) = 2p log2 p + 2(k-p) (a row's reduce-scatter and allgather), a' the column allreduce of a block by the same rule; a short row of s: its own + 1 + s (non-commutative op: recursive_doubling's)"}, run: allreduceRun((*redColl).meshAllreduce), reorders: true},
	} {
		register(a)
	}
}

// meshGrid is a communicator's ranks by mesh row: rows[i] holds the ranks
// of the i-th occupied row, ordered by column (then rank); row and col
// give each rank's row and position in it.
type meshGrid struct {
	*sched.Grid
	dim *meshDims // the dimensional phases' layout (coll_mesh_dims.go), built on first use
}

// meshGridOf builds the grid of group g once per World: groups are
// immutable and placement never changes, as a library would work it out
// when the communicator is created (no simulated time).
func (w *World) meshGridOf(g *group.Group) *meshGrid {
	if mg := w.meshGrids[g]; mg != nil {
		return mg
	}
	mg := &meshGrid{Grid: sched.GridOf(g.Size(), func(i int) (int, int) {
		// Rank i runs on tile g.WorldRank(i); offsets from tile 0 are its
		// column and row.
		node := w.Ranks[g.WorldRank(i)].node.ID
		if _, ok := w.M.Topo.(mesh.Mesh); !ok {
			// A ring or a bus has no rows: the whole communicator is
			// one row in station order, and the family runs as its row
			// phase's tree alone.
			return node, 0
		}
		return w.M.Topo.Offsets(0, node)
	})}
	if w.meshGrids == nil {
		w.meshGrids = map[*group.Group]*meshGrid{}
	}
	w.meshGrids[g] = mg
	return mg
}

// meshTree is the calling rank's place in the tree from root on its
// communicator.
func (x *coll) meshTree(root int) (int, []int) {
	return x.r.w.meshGridOf(x.c.group).Tree(x.c.Rank(), root, nil)
}

// meshBarrier is the dimensional dissemination barrier
// (coll_mesh_dims.go).
func (x *coll) meshBarrier() error { return x.meshDimsRun(nil, datatype.Buffer{}, 0) }

// meshReduce is the broadcast tree walked up (commutative ops only): a
// rank receives its children's partial results one after the other, the
// smallest subtree first, folds each into its own, and sends the result
// to its parent. out (which may be in) gets the result at root.
func (rd *redColl) meshReduce(in, out datatype.Buffer, count, root int) error {
	n := count * rd.es
	parent, kids := rd.meshTree(root)
	cur := in
	var bufs [2]datatype.Buffer
	which := 0
	for _, k := range slices.Backward(kids) {
		if bufs[which].Bytes == nil {
			b, err := rd.newBuf(n)
			if err != nil {
				return err
			}
			bufs[which] = b
		}
		b := bufs[which]
		if err := rd.recv(b, n, k); err != nil {
			return err
		}
		if err := rd.combine(cur, b, count); err != nil {
			return err
		}
		cur, which = b, which^1
	}
	if parent >= 0 {
		return rd.send(cur, n, parent)
	}
	if !redSame(cur, out) {
		rd.copy(out, cur, n)
	}
	return nil
}
