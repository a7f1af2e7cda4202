package logp

import "nocsim/coll"

// The dimensional allreduce and barrier of nocsim's mesh family
// (mpi/coll_mesh_dims.go): an allreduce within every mesh row, then within
// every column. Short vectors (under MeshLongBytes) and the barrier:
// recursive doubling (barrier: dissemination) within the row, then within
// the column. Long vectors: a reduce-scatter by recursive halving within
// the row, an allreduce of the rank's block within its column (by the
// same rule on the block's size), an allgather by recursive doubling
// within the row. A dimension that is not a power of two folds (coll.Fold). A short row (the ragged last one) allreduces within itself,
// its first member hands the sum to the first member of the nearest full
// row before that row's phases, and gets the total back from it at the
// end (member j from member j).
//
// Every rank's program is replayed under LogGOPS's rules (xprogs.finish,
// as Rabenseifner's form) with each message's latency over its own hop
// count: the form equals the LogGOPS tier with per-hop latency on
// collgen's schedule.

// MeshLongBytes is the vector size from which the dimensional allreduce
// uses the reduce-scatter/allgather form within a dimension (mpi's
// meshLongBytes).
const MeshLongBytes = 4096

// MeshDims is the layout of the dimensional allreduce and barrier, ranks
// 0..P-1 on tiles 0..P-1 of a W-wide mesh: Rows[i] are row i's ranks,
// Row and Col each rank's row and place in it; the main rows are the
// longest (length L), Cols[j] (j < L) their j-th members top to bottom
// and At[i] row i's place among them (-1: a short row); a short row folds
// into main row Host[i] (-1 for a main row), and Guests[i] are the short
// rows folding into main row i. mpi builds the same from the tiles'
// coordinates (a test in scenarios checks the schedules agree).
type MeshDims struct {
	Rows     [][]int
	Row, Col []int
	Host     []int
	Guests   [][]int
	Cols     [][]int
	At       []int
}

// NewMeshDims lays P ranks on a W-wide mesh, row-major.
func NewMeshDims(P, W int) *MeshDims {
	d := &MeshDims{Row: make([]int, P), Col: make([]int, P)}
	for lo := 0; lo < P; lo += W {
		row := make([]int, 0, W)
		for r := lo; r < min(lo+W, P); r++ {
			d.Row[r], d.Col[r] = len(d.Rows), len(row)
			row = append(row, r)
		}
		d.Rows = append(d.Rows, row)
	}
	L := 0
	for _, row := range d.Rows {
		L = max(L, len(row))
	}
	nr := len(d.Rows)
	d.Host, d.Guests, d.Cols, d.At = make([]int, nr), make([][]int, nr), make([][]int, L), make([]int, nr)
	var main []int
	for i, row := range d.Rows {
		d.At[i] = -1
		if len(row) == L {
			d.At[i] = len(main)
			main = append(main, i)
			for j, r := range row {
				d.Cols[j] = append(d.Cols[j], r)
			}
		}
	}
	for i, row := range d.Rows {
		d.Host[i] = -1
		if len(row) == L {
			continue
		}
		h := main[0]
		for _, k := range main {
			if abs(k-i) < abs(h-i) {
				h = k
			}
		}
		d.Host[i] = h
		d.Guests[h] = append(d.Guests[h], i)
	}
	return d
}

// meshDimsProgs builds every rank's program of the dimensional allreduce
// of m bytes (barrier: m < 0, empty messages).
func meshDimsProgs(P, W, m int) xprogs {
	d := NewMeshDims(P, W)
	x := newXprogs(P)
	barrier := m < 0
	n := max(m, 0)
	es := elemBytes(n)
	for r := range P {
		y, j := d.Row[r], d.Col[r]
		row := d.Rows[y]
		if h := d.Host[y]; h >= 0 {
			x.meshDim(r, row, j, n, es, barrier)
			if j == 0 {
				x.send(r, d.Rows[h][0], n)
			}
			x.recv(r, d.Rows[h][j], n)
			continue
		}
		if j == 0 {
			for _, gi := range d.Guests[y] {
				x.recv(r, d.Rows[gi][0], n)
			}
		}
		if barrier || n < MeshLongBytes {
			x.meshDim(r, row, j, n, es, barrier)
			x.meshDim(r, d.Cols[j], d.At[y], n, es, barrier)
		} else {
			x.meshLong(r, row, j, d.Cols[j], d.At[y], n, es)
		}
		var to []xdest
		for _, gi := range d.Guests[y] {
			if j < len(d.Rows[gi]) {
				to = append(to, xdest{d.Rows[gi][j], n})
			}
		}
		if len(to) > 0 {
			x[r].steps = append(x[r].steps, xout{to: to[0].to, sb: n, from: -1, more: to[1:]})
		}
	}
	return x
}

// meshDim adds rank r's (list[i]'s) allreduce of n bytes among list:
// recursive doubling, or from MeshLongBytes on recursive halving then
// doubling; the barrier's dissemination.
func (x xprogs) meshDim(r int, list []int, i, n, es int, barrier bool) {
	P := len(list)
	if barrier {
		for k := 1; k < P; k <<= 1 {
			x.exch2(r, list[(i+k)%P], 0, list[(i-k+P)%P], 0)
		}
		return
	}
	if P == 1 {
		return
	}
	f := coll.NewFold(P)
	f.Ranks = list
	nr := x.meshFoldIn(f, r, list, i, n)
	if nr < 0 {
		return
	}
	if n >= MeshLongBytes {
		bo := redSplit(n/es, f.Pof2, es)
		x.halving(f, r, nr, bo, es)
		x.doubling(f, r, nr, bo, es)
	} else {
		for mask := 1; mask < f.Pof2; mask <<= 1 {
			x.exch(r, f.Real(nr^mask), n, n)
		}
	}
	if i < 2*f.Rem {
		x.send(r, list[i-1], n)
	}
}

// meshLong adds a main row's rank's long-vector allreduce: halving within
// row, its block's allreduce within col, doubling within row.
func (x xprogs) meshLong(r int, row []int, i int, col []int, k, n, es int) {
	f := coll.NewFold(len(row))
	f.Ranks = row
	nr := x.meshFoldIn(f, r, row, i, n)
	if nr < 0 {
		return
	}
	bo := redSplit(n/es, f.Pof2, es)
	x.halving(f, r, nr, bo, es)
	x.meshDim(r, col, k, (bo[nr+1]-bo[nr])*es, es, false)
	x.doubling(f, r, nr, bo, es)
	if i < 2*f.Rem {
		x.send(r, row[i-1], n)
	}
}

// meshFoldIn is foldIn over list: it returns list[i]'s new rank, -1 for a
// folded one (which then has its whole program: send, receive back).
func (x xprogs) meshFoldIn(f coll.Fold, r int, list []int, i, n int) int {
	switch {
	case i >= 2*f.Rem:
		return i - f.Rem
	case i%2 == 0:
		x.send(r, list[i+1], n)
		x.recv(r, list[i+1], n)
		return -1
	}
	x.recv(r, list[i-1], n)
	return i / 2
}

// doubling adds new rank nr's recursive-doubling allgather steps among
// f's p ranks over blocks bo.
func (x xprogs) doubling(f coll.Fold, r, nr int, bo []int, es int) {
	for mask := 1; mask < f.Pof2; mask <<= 1 {
		pn := nr ^ mask
		lo, plo := nr&^(mask-1), pn&^(mask-1)
		x.exch(r, f.Real(pn), (bo[lo+mask]-bo[lo])*es, (bo[plo+mask]-bo[plo])*es)
	}
}

// meshDimsFinish replays the programs with each message's latency over
// its hops on the W-wide mesh.
func meshDimsFinish(e *env, m int) float64 {
	W := e.p.MeshWidth(e.P)
	x := meshDimsProgs(e.P, W, m)
	e.hops = func(a, b int) int { return abs(a%W-b%W) + abs(a/W-b/W) }
	defer func() { e.hops = nil }()
	return x.finish(e)
}

func allreduceMesh(e *env) {
	e.xterms("row then column phases (exact recurrence, hops per message)", meshDimsFinish(e, e.m))
}

func barrierMesh(e *env) {
	e.add("row then column dissemination (exact recurrence, hops per message)", meshDimsFinish(e, -1))
}
