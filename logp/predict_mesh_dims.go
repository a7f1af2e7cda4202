package logp

import "nocsim/coll"

// The dimensional allreduce and barrier of nocsim's mesh family
// (coll/mesh_dims.go): an allreduce within every mesh row, then within
// every column. Short vectors (under coll.MeshLongBytes) and the barrier:
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

// meshDimsProgs builds every rank's program of the dimensional allreduce
// of m bytes (barrier: m < 0, empty messages).
func meshDimsProgs(P, W, m int) xprogs {
	g := coll.RowMajor(P, W) // rank i on tile i, as a World places them
	d := g.Dims()
	x := newXprogs(P)
	barrier := m < 0
	n := max(m, 0)
	es := elemBytes(n)
	for r := range P {
		y, j := g.Row[r], g.Col[r]
		row := g.Rows[y]
		if h := d.Host[y]; h >= 0 {
			x.meshDim(r, row, j, n, es, barrier)
			if j == 0 {
				x.send(r, g.Rows[h][0], n)
			}
			x.recv(r, g.Rows[h][j], n)
			continue
		}
		if j == 0 {
			for _, gi := range d.Guests[y] {
				x.recv(r, g.Rows[gi][0], n)
			}
		}
		if barrier || n < coll.MeshLongBytes {
			x.meshDim(r, row, j, n, es, barrier)
			x.meshDim(r, d.Cols[j], d.At[y], n, es, barrier)
		} else {
			x.meshLong(r, row, j, d.Cols[j], d.At[y], n, es)
		}
		var to []xdest
		for _, gi := range d.Guests[y] {
			if j < len(g.Rows[gi]) {
				to = append(to, xdest{g.Rows[gi][j], n})
			}
		}
		if len(to) > 0 {
			x[r].steps = append(x[r].steps, xout{to: to[0].to, sb: n, from: -1, more: to[1:]})
		}
	}
	return x
}

// meshDim adds rank r's (list[i]'s) allreduce of n bytes among list:
// recursive doubling, or from coll.MeshLongBytes on recursive halving then
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
	if n >= coll.MeshLongBytes {
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
