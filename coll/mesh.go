package coll

import (
	"math"
	"slices"
)

// The mesh ("dimensional") collectives place a communicator's ranks by
// their tiles' coordinates: rows are the mesh rows that hold members (top
// to bottom), and a row's members are ordered by column. A broadcast goes
// along the root's row by a binomial tree, then from each member of that
// row down its column by a binomial tree; with XY routing a row message
// uses only row links and a column message only column links. Column j is
// the j-th member of every row; a row longer than the root's has members
// no column reaches: member j of it gets the data from member j mod (the
// root row's length) of the same row (a third, row-only phase).

// Grid is a communicator's ranks by mesh row: Rows[i] holds the ranks of
// the i-th occupied row, ordered by column (then rank); Row and Col give
// each rank's row and position in it.
type Grid struct {
	Rows     [][]int
	Row, Col []int
	dims     *Dims // built on first use (Dims)
}

// RowMajor is the grid of ranks 0..P-1 on tiles 0..P-1 of a W-wide mesh,
// as a World places them on a whole mesh.
func RowMajor(P, W int) *Grid {
	return GridOf(P, func(i int) (int, int) { return i % W, i / W })
}

// SquareWidth is ceil(sqrt(P)), the width of the smallest square mesh
// holding P ranks (at least 1).
func SquareWidth(P int) int {
	w := max(int(math.Sqrt(float64(P))), 1)
	for w*w < P {
		w++
	}
	for w > 1 && (w-1)*(w-1) >= P {
		w--
	}
	return w
}

// GridOf groups P ranks by row, rank i being at column and row at(i).
func GridOf(P int, at func(i int) (x, y int)) *Grid {
	type pos struct{ x, y, rank int }
	ps := make([]pos, P)
	for i := range P {
		x, y := at(i)
		ps[i] = pos{x, y, i}
	}
	slices.SortFunc(ps, func(a, b pos) int {
		if a.y != b.y {
			return a.y - b.y
		}
		if a.x != b.x {
			return a.x - b.x
		}
		return a.rank - b.rank
	})
	mg := &Grid{Row: make([]int, P), Col: make([]int, P)}
	for i, p := range ps {
		if i == 0 || p.y != ps[i-1].y {
			mg.Rows = append(mg.Rows, nil)
		}
		k := len(mg.Rows) - 1
		mg.Row[p.rank], mg.Col[p.rank] = k, len(mg.Rows[k])
		mg.Rows[k] = append(mg.Rows[k], p.rank)
	}
	return mg
}

// Tree is one rank's place in the broadcast tree from root: its
// parent (-1 at the root) and its children in the order it serves them
// (row children, biggest subtree first, then column children, then the
// third phase's).
func (mg *Grid) Tree(me, root int, kids []int) (parent int, _ []int) {
	kids = kids[:0]
	parent = -1
	R, jr := mg.Row[root], mg.Col[root]
	rowR := mg.Rows[R]
	nR := len(rowR)
	y, j := mg.Row[me], mg.Col[me]
	if y == R { // phase 1: the root's row
		rel := (j - jr + nR) % nR
		if rel != 0 {
			parent = rowR[(Parent(rel)+jr)%nR]
		}
		for _, k := range Kids(rel, nR) {
			kids = append(kids, rowR[(k.Rel+jr)%nR])
		}
	}
	if j < nR { // phase 2: column j, from the root's row
		var col []int
		kR, k := 0, 0
		for i, row := range mg.Rows {
			if j < len(row) {
				if i == R {
					kR = len(col)
				}
				if i == y {
					k = len(col)
				}
				col = append(col, row[j])
			}
		}
		n := len(col)
		rel := (k - kR + n) % n
		if rel != 0 {
			parent = col[(Parent(rel)+kR)%n]
		}
		for _, c := range Kids(rel, n) {
			kids = append(kids, col[(c.Rel+kR)%n])
		}
		for t := j + nR; t < len(mg.Rows[y]); t += nR { // phase 3
			kids = append(kids, mg.Rows[y][t])
		}
	} else {
		parent = mg.Rows[y][j%nR]
	}
	return parent, kids
}

// TreeAll is every rank's place in the tree from root: parent[r] (-1 at
// the root) and kids[r] in the order r sends to them.
func (mg *Grid) TreeAll(root int) (parent []int, kids [][]int) {
	P := len(mg.Row)
	parent, kids = make([]int, P), make([][]int, P)
	for r := range P {
		parent[r], kids[r] = mg.Tree(r, root, nil)
	}
	return parent, kids
}
