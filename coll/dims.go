package coll

// The layout of the mesh family's dimensional allreduce and barrier
// (mesh_dims.go): an exchange within every mesh row at once, then within
// every column. Rows of different lengths (a ragged last row, a split
// communicator): the column phase runs over the "main" rows, those of the
// greatest length L, column j being their j-th members. A shorter row
// first reduces within itself, then its first member hands the row's sum
// to the first member of the nearest main row (the upper one at a tie),
// which adds it in before its own row phase; at the end, member j of that
// main row sends the total to the short row's member j.

// MeshLongBytes is the vector size from which a dimension of the mesh
// allreduce uses Rabenseifner's algorithm instead of recursive doubling:
// a fixed part of the algorithm (the default of the chip's
// coll_long_bytes), so that the schedule and the LogGP form, which know no
// configuration, are the same algorithm.
const MeshLongBytes = 4096

// Dims is the layout of the dimensional phases over a Grid: Host[i] is
// the main row short row i folds into (-1 for a main row), Guests[i] the
// short rows folding into main row i (top to bottom), Cols[j] (j < L) the
// main rows' j-th members top to bottom, At[i] row i's place among the
// main rows (its place in Cols[j]; -1 for a short row).
type Dims struct {
	Host   []int
	Guests [][]int
	Cols   [][]int
	At     []int
}

// Dims builds (once) the layout of the dimensional phases.
func (mg *Grid) Dims() *Dims {
	if mg.dims != nil {
		return mg.dims
	}
	L := 0
	for _, row := range mg.Rows {
		L = max(L, len(row))
	}
	nr := len(mg.Rows)
	d := &Dims{Host: make([]int, nr), Guests: make([][]int, nr), Cols: make([][]int, L), At: make([]int, nr)}
	var main []int
	for i, row := range mg.Rows {
		d.At[i] = -1
		if len(row) == L {
			d.At[i] = len(main)
			main = append(main, i)
			for j, r := range row {
				d.Cols[j] = append(d.Cols[j], r)
			}
		}
	}
	for i, row := range mg.Rows {
		d.Host[i] = -1
		if len(row) == L {
			continue
		}
		h := main[0]
		for _, k := range main {
			if max(k-i, i-k) < max(h-i, i-h) {
				h = k
			}
		}
		d.Host[i] = h
		d.Guests[h] = append(d.Guests[h], i)
	}
	mg.dims = d
	return d
}
