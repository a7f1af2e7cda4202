package coll

import "slices"

// The mesh family's reduce (the broadcast tree walked up), and its
// dimensional allreduce and barrier: an allreduce (or a dissemination
// barrier) within every mesh row at once, then within every column, as
// Puma's hybrid collectives and Barnett et al.'s InterCom library do on
// the Paragon's mesh. Every rank of a row ends the row phase with the
// row's sum, and the column phase sums the rows, so every rank ends with
// the total, having sent only along its row and its column (with XY
// routing, on that row's or column's links alone).
//
// Short vectors (under MeshLongBytes) and the barrier: recursive doubling
// (the barrier: dissemination, ceil(log2 n) rounds of empty messages)
// within the row, then within the column, on the whole vector. Long
// vectors: Rabenseifner's algorithm split across the dimensions, so that
// the column phase moves only a row's block: a reduce-scatter by
// recursive halving within the row leaves every rank one block of its
// row's sum; the ranks holding the same block (a column) allreduce it, by
// the same rule on the block's size; an allgather by recursive doubling
// within the row brings back the whole vector. Each rank sends about
// 2m(1-1/W) + 2(m/W)(1-1/H) bytes, about Rabenseifner's 2m, in row and
// column messages only. A dimension of n ranks that is not a power of two
// folds its extra ranks in first and hands them the result last (Fold).
// Short rows: see Dims.

func init() {
	Register(
		&Algorithm{Op: "barrier", Name: "mesh", Source: MeshSource, Messages: "W x H mesh: H d(W) + W d(H), d(k) = k ceil(log2 k) (dissemination in each row, then each column); a short row of s: d(s) + 1 + s", Program: meshBarrier, MeshGrid: true},
		&Algorithm{Op: "reduce", Name: "mesh", Source: MeshSource, Messages: "P-1 (non-commutative op: binomial's)", Program: meshReduce, MeshGrid: true, Ordered: "binomial"},
		&Algorithm{Op: "allreduce", Name: "mesh", Source: MeshSource + "; Barnett et al., InterCom (dimensional reduce-scatter/allgather)", Messages: "W x H mesh, under 4 KiB: H a(W) + W a(H), a(k) = p log2 p + 2(k-p), p = 2^floor(log2 k) (recursive doubling in each row, then each column); from 4 KiB: H b(W) + p a'(H), b(k) = 2p log2 p + 2(k-p) (a row's reduce-scatter and allgather), a' the column allreduce of a block by the same rule; a short row of s: its own + 1 + s (non-commutative op: recursive_doubling's)", Program: meshAllreduce, MeshGrid: true, Ordered: "recursive_doubling"},
	)
}

// meshReduce is the broadcast tree walked up (commutative ops only): a
// rank receives its children's partial results one after the other, the
// smallest subtree first, folds each into its own, and sends the result
// to its parent; the root's Result gets it.
func meshReduce(r Rank, a Args) error {
	n := a.N
	parent, kids := a.Grid.Tree(a.Me, a.Root, nil)
	cur := Input.At(0, n)
	bufs, have, which := [2]Buf{Tmp, Tmp2}, [2]bool{}, 0
	for _, k := range slices.Backward(kids) {
		if !have[which] {
			if err := r.Alloc(bufs[which], n); err != nil {
				return err
			}
			have[which] = true
		}
		b := bufs[which].At(0, n)
		if err := r.Recv(k, b); err != nil {
			return err
		}
		if err := r.Combine(b, cur); err != nil {
			return err
		}
		cur, which = b, which^1
	}
	if parent >= 0 {
		return r.Send(parent, cur)
	}
	if out := Result.At(0, n); !sameAt(a, cur, out) {
		return r.Copy(out, cur)
	}
	return nil
}

// meshBarrier is the dimensional dissemination barrier.
func meshBarrier(r Rank, a Args) error { return meshDims{r, a, true}.run(Empty) }

// meshAllreduce is the dimensional allreduce (commutative ops).
func meshAllreduce(r Rank, a Args) error {
	out := Result.At(0, a.N)
	if !same(a, Input, Result) {
		if err := r.Copy(out, Input.At(0, a.N)); err != nil {
			return err
		}
	}
	return meshDims{r, a, false}.run(out)
}

// meshDims runs the dimensional phases on one rank: an allreduce, or the
// barrier (empty messages).
type meshDims struct {
	r       Rank
	a       Args
	barrier bool
}

// run reduces acc (holding this rank's vector) into the total.
func (m meshDims) run(acc Region) error {
	r, g := m.r, m.a.Grid
	d := g.Dims()
	me := m.a.Me
	y, j := g.Row[me], g.Col[me]
	row := g.Rows[y]
	tmp := Empty
	if !m.barrier {
		// Work: halve allocates Tmp for itself.
		tmp = Work.At(0, acc.Len)
		if m.a.P > 1 {
			if err := r.Alloc(Work, acc.Len); err != nil {
				return err
			}
		}
	}
	if h := d.Host[y]; h >= 0 { // a short row: its sum to the host row
		if err := m.dim(acc, tmp, row, j); err != nil {
			return err
		}
		if j == 0 {
			if err := r.Send(g.Rows[h][0], acc); err != nil {
				return err
			}
		}
		return r.Recv(g.Rows[h][j], acc)
	}
	if j == 0 {
		for _, gi := range d.Guests[y] {
			if err := r.Recv(g.Rows[gi][0], tmp); err != nil {
				return err
			}
			if !m.barrier {
				if err := r.Combine(acc, tmp); err != nil {
					return err
				}
			}
		}
	}
	var err error
	if m.barrier || acc.Len < MeshLongBytes {
		if err = m.dim(acc, tmp, row, j); err == nil {
			err = m.dim(acc, tmp, d.Cols[j], d.At[y])
		}
	} else {
		err = m.long(acc, tmp, row, j, d.Cols[j], d.At[y])
	}
	if err != nil {
		return err
	}
	s := r.Step()
	for _, gi := range d.Guests[y] {
		if j < len(g.Rows[gi]) {
			s.Send(g.Rows[gi][j], acc)
		}
	}
	return s.Wait()
}

// long is the long-vector allreduce of a main row's rank (row[i],
// position k in column col): reduce-scatter within the row, allreduce of
// its block within the column, allgather within the row.
func (m meshDims) long(acc, tmp Region, row []int, i int, col []int, k int) error {
	r := m.r
	f := NewFold(len(row))
	f.Ranks = row
	nr, err := foldIn(r, acc, tmp, f, row, i)
	if err != nil || nr < 0 {
		return err
	}
	bo := Split(acc.Len, f.Pof2, m.a.Elem)
	if err := halve(r, acc, bo, nr, f); err != nil {
		return err
	}
	blk := acc.Sub(bo[nr], bo[nr+1]-bo[nr])
	if err := m.dim(blk, tmp.Sub(0, blk.Len), col, k); err != nil {
		return err
	}
	if err := allgatherRD(r, acc, bo, nr, f); err != nil {
		return err
	}
	if i < 2*f.Rem {
		return r.Send(row[i-1], acc)
	}
	return nil
}

// dim is the allreduce (the barrier: dissemination) among the ranks of
// list, the caller being list[i]: acc is its vector and gets the list's
// sum; tmp is scratch of acc's size.
func (m meshDims) dim(acc, tmp Region, list []int, i int) error {
	r, P := m.r, len(list)
	if m.barrier {
		for k := 1; k < P; k <<= 1 {
			if err := r.SendRecv(list[(i+k)%P], Empty, list[(i-k+P)%P], Empty); err != nil {
				return err
			}
		}
		return nil
	}
	if P == 1 {
		return nil
	}
	f := NewFold(P)
	f.Ranks = list
	nr, err := foldIn(r, acc, tmp, f, list, i)
	if err != nil || nr < 0 {
		return err
	}
	if acc.Len >= MeshLongBytes {
		bo := Split(acc.Len, f.Pof2, m.a.Elem)
		if err := halve(r, acc, bo, nr, f); err != nil {
			return err
		}
		if err := allgatherRD(r, acc, bo, nr, f); err != nil {
			return err
		}
	} else {
		for mask := 1; mask < f.Pof2; mask <<= 1 {
			peer := f.Real(nr ^ mask)
			if err := r.SendRecv(peer, acc, peer, tmp); err != nil {
				return err
			}
			if err := r.Combine(acc, tmp); err != nil {
				return err
			}
		}
	}
	if i < 2*f.Rem {
		return r.Send(list[i-1], acc)
	}
	return nil
}
