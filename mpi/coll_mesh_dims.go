package mpi

import (
	sched "nocsim/coll"
	"nocsim/mpi/datatype"
)

// The dimensional allreduce and barrier of the mesh family: an allreduce
// (or a dissemination barrier) within every mesh row at once, then within
// every column, as Puma's hybrid collectives and Barnett et al.'s
// InterCom library do on the Paragon's mesh. Every rank of a row ends the
// row phase with the row's sum, and the column phase sums the rows, so
// every rank ends with the total, having sent only along its row and its
// column (with XY routing, on that row's or column's links alone).
//
// Short vectors (under meshLongBytes) and the barrier: recursive
// doubling (the barrier: dissemination, ceil(log2 n) rounds of empty
// messages) within the row, then within the column, on the whole vector.
// Long vectors: Rabenseifner's algorithm split across the dimensions, so
// that the column phase moves only a row's block: a reduce-scatter by
// recursive halving within the row leaves every rank one block of its
// row's sum; the ranks holding the same block (a column) allreduce it, by
// the same rule on the block's size; an allgather by recursive doubling
// within the row brings back the whole vector. Each rank sends about
// 2m(1-1/W) + 2(m/W)(1-1/H) bytes, about Rabenseifner's 2m, in row and
// column messages only. A dimension of n ranks that is not a power of two
// folds its extra ranks in first and hands them the result last, as the
// whole-communicator algorithms do (coll.Fold).
//
// Rows of different lengths (a ragged last row, a split communicator):
// the column phase runs over the "main" rows, those of the greatest
// length L, column j being their j-th members. A shorter row first
// allreduces within itself, then its first member hands the row's sum to
// the first member of the nearest main row (the upper one at a tie),
// which adds it in before its own row phase; at the end, member j of that
// main row sends the total to the short row's member j.

// meshLongBytes is the vector size from which a dimension uses
// Rabenseifner's algorithm instead of recursive doubling (coll_long_bytes'
// default; a fixed part of the algorithm, so that its LogGP form and
// GOAL schedule, which know no configuration, are the same algorithm).
const meshLongBytes = 4096

// meshDims is the layout of the dimensional phases over a meshGrid.
// logp.MeshDims builds the same layout for the algorithm's LogGP form; the
// two cannot share code, as logp imports nothing of the simulator and mpi
// nothing of logp (cmd/nocsim/layout_test.go), so a scenarios test checks
// that their schedules agree.
type meshDims struct {
	host   []int   // per row: the main row it folds into, -1 for a main row
	guests [][]int // per main row: the rows that fold into it, top to bottom
	cols   [][]int // per position j < L: the main rows' j-th members, top to bottom
	at     []int   // per row: its index among the main rows (its place in cols[j])
}

// dims builds (once) the layout of the dimensional phases.
func (mg *meshGrid) dims() *meshDims {
	if mg.dim != nil {
		return mg.dim
	}
	L := 0
	for _, row := range mg.Rows {
		L = max(L, len(row))
	}
	d := &meshDims{host: make([]int, len(mg.Rows)), guests: make([][]int, len(mg.Rows)), cols: make([][]int, L), at: make([]int, len(mg.Rows))}
	var main []int
	for i, row := range mg.Rows {
		d.at[i] = -1
		if len(row) == L {
			d.at[i] = len(main)
			main = append(main, i)
			for j, r := range row {
				d.cols[j] = append(d.cols[j], r)
			}
		}
	}
	for i, row := range mg.Rows {
		d.host[i] = -1
		if len(row) == L {
			continue
		}
		h := main[0]
		for _, k := range main {
			if abs(k-i) < abs(h-i) {
				h = k
			}
		}
		d.host[i] = h
		d.guests[h] = append(d.guests[h], i)
	}
	mg.dim = d
	return d
}

// meshDimsRun runs the dimensional phases on the calling rank. With rd
// nil it is the barrier (empty messages); else it reduces acc (count
// elements, holding this rank's vector) into the total.
func (x *coll) meshDimsRun(rd *redColl, acc datatype.Buffer, count int) error {
	mg := x.r.w.meshGridOf(x.c.group)
	d := mg.dims()
	me := x.c.Rank()
	y, j := mg.Row[me], mg.Col[me]
	row := mg.Rows[y]
	n := 0
	var tmp datatype.Buffer
	if rd != nil {
		n = count * rd.es
		if x.c.Size() > 1 {
			b, err := rd.newBuf(n)
			if err != nil {
				return err
			}
			tmp = b
		}
	}
	if h := d.host[y]; h >= 0 { // a short row: its sum to the host row
		if err := x.meshDim(rd, acc, tmp, count, row, j); err != nil {
			return err
		}
		if j == 0 {
			if err := x.send(acc, n, mg.Rows[h][0]); err != nil {
				return err
			}
		}
		return x.recv(acc, n, mg.Rows[h][j])
	}
	if j == 0 {
		for _, gi := range d.guests[y] {
			if err := x.recv(tmp, n, mg.Rows[gi][0]); err != nil {
				return err
			}
			if rd != nil {
				if err := rd.combine(tmp, acc, count); err != nil {
					return err
				}
			}
		}
	}
	var err error
	if rd == nil || n < meshLongBytes {
		if err = x.meshDim(rd, acc, tmp, count, row, j); err == nil {
			err = x.meshDim(rd, acc, tmp, count, d.cols[j], d.at[y])
		}
	} else {
		err = rd.meshLong(acc, tmp, count, row, j, d.cols[j], d.at[y])
	}
	if err != nil {
		return err
	}
	st := x.rtStep()
	for _, gi := range d.guests[y] {
		if j < len(mg.Rows[gi]) {
			st.send(acc, 0, n, mg.Rows[gi][j])
		}
	}
	return st.wait()
}

// meshLong is the long-vector allreduce of a main row's rank (row[i],
// position k in column col): reduce-scatter within the row, allreduce of
// its block within the column, allgather within the row.
func (rd *redColl) meshLong(acc, tmp datatype.Buffer, count int, row []int, i int, col []int, k int) error {
	n, es := count*rd.es, rd.es
	f := sched.NewFold(len(row))
	f.Ranks = row
	nr, err := rd.foldIn(acc, tmp, count, f, row, i)
	if err != nil || nr < 0 {
		return err
	}
	bo := redSplit(count, f.Pof2, es)
	if err := rd.halve(acc, bo, nr, f); err != nil {
		return err
	}
	c := bo[nr+1] - bo[nr]
	blk, err := acc.Slice(bo[nr]*es, c*es)
	if err != nil {
		return err
	}
	if err := rd.meshDim(rd, blk, tmp, c, col, k); err != nil {
		return err
	}
	if err := rd.allgatherRD(acc, bo, nr, f); err != nil {
		return err
	}
	if i < 2*f.Rem {
		return rd.send(acc, n, row[i-1])
	}
	return nil
}

// foldIn starts a folded exchange among list on list[i], holding acc: an
// even rank below 2 rem hands its vector to the odd one above it and gets
// the result back (it returns -1: nothing else to do); the odd one adds it
// in (tmp: scratch of the vector's size). It returns i's new rank.
func (rd *redColl) foldIn(acc, tmp datatype.Buffer, count int, f sched.Fold, list []int, i int) (int, error) {
	n := count * rd.es
	nr := f.NewRank(i)
	if nr < 0 {
		if err := rd.send(acc, n, list[i+1]); err != nil {
			return -1, err
		}
		return -1, rd.recv(acc, n, list[i+1])
	}
	if i < 2*f.Rem {
		if err := rd.recv(tmp, n, list[i-1]); err != nil {
			return -1, err
		}
		if err := rd.combine(tmp, acc, count); err != nil {
			return -1, err
		}
	}
	return nr, nil
}

// meshDim is the allreduce (rd nil: the dissemination barrier) among the
// ranks of list, the caller being list[i]: acc is its vector and gets the
// list's sum; tmp is scratch of the vector's size.
func (x *coll) meshDim(rd *redColl, acc, tmp datatype.Buffer, count int, list []int, i int) error {
	P := len(list)
	if rd == nil {
		for k := 1; k < P; k <<= 1 {
			if err := x.sendrecv(datatype.Buffer{}, 0, list[(i+k)%P], datatype.Buffer{}, 0, list[(i-k+P)%P]); err != nil {
				return err
			}
		}
		return nil
	}
	if P == 1 {
		return nil
	}
	n := count * rd.es
	f := sched.NewFold(P)
	f.Ranks = list
	nr, err := rd.foldIn(acc, tmp, count, f, list, i)
	if err != nil || nr < 0 {
		return err
	}
	if n >= meshLongBytes {
		bo := redSplit(count, f.Pof2, rd.es)
		if err := rd.halve(acc, bo, nr, f); err != nil {
			return err
		}
		if err := rd.allgatherRD(acc, bo, nr, f); err != nil {
			return err
		}
	} else {
		for mask := 1; mask < f.Pof2; mask <<= 1 {
			peer := f.Real(nr ^ mask)
			if err := x.sendrecv(acc, n, peer, tmp, n, peer); err != nil {
				return err
			}
			if err := rd.combine(tmp, acc, count); err != nil {
				return err
			}
		}
	}
	if i < 2*f.Rem {
		return x.send(acc, n, list[i-1])
	}
	return nil
}

// allgatherRD is the allgather half of Rabenseifner's allreduce among the
// pof2 ranks of fold f, this one being new rank nr and holding block nr
// (elements bo[nr]..bo[nr+1]) of acc: before the round of mask it holds
// blocks lo..lo+mask-1 (lo = nr with its low bits cleared) and its
// partner the neighbouring run; they swap them, doubling the run.
func (rd *redColl) allgatherRD(acc datatype.Buffer, bo []int, nr int, f sched.Fold) error {
	es := rd.es
	span := func(lo, k int) (datatype.Buffer, error) { return acc.Slice(bo[lo]*es, (bo[lo+k]-bo[lo])*es) }
	for mask := 1; mask < f.Pof2; mask <<= 1 {
		pn := nr ^ mask
		sb, err := span(nr&^(mask-1), mask)
		if err != nil {
			return err
		}
		rb, err := span(pn&^(mask-1), mask)
		if err != nil {
			return err
		}
		peer := f.Real(pn)
		if err := rd.sendrecv(sb, sb.Len(), peer, rb, rb.Len(), peer); err != nil {
			return err
		}
	}
	return nil
}

// meshAllreduce is the dimensional allreduce (commutative ops) of count
// elements from in into out (which may be in).
func (rd *redColl) meshAllreduce(in, out datatype.Buffer, count int, _ bool) error {
	if n := count * rd.es; !redSame(in, out) {
		rd.copy(out, in, n)
	}
	return rd.meshDimsRun(rd, out, count)
}

// abs is the absolute value of a.
func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}
