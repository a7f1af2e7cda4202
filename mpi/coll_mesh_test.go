package mpi

import (
	"fmt"
	"math/bits"
	"testing"

	"nocsim/mpi/datatype"
	"nocsim/mpi/trace"
)

// meshSends lists the sends rank r recorded from op index from on, as
// (source tile, destination tile) pairs in posting order.
func meshSends(r *Rank, from int) [][2]int {
	var out [][2]int
	for _, op := range r.rec.ops[from:] {
		if op.Kind == trace.Send {
			out = append(out, [2]int{r.node.ID, int(op.Peer)})
		}
	}
	return out
}

// meshCall runs one collective with the mesh algorithm on c, with an
// exact (integer) result check where there is a result.
func meshCall(t *testing.T, r *Rank, c *Comm, op string, root, count int) {
	P, me := c.Size(), c.Rank()
	val := func(i, k int) int64 { return int64(1000*i + k*k + 7) }
	in, out := rtBuf(r, 8*count), rtBuf(r, 8*count)
	defer r.Free(in)
	defer r.Free(out)
	for k := range count {
		putInt64(in.Bytes[8*k:], val(me, k))
	}
	var err error
	wantSum := func(k int) int64 {
		var s int64
		for i := range P {
			s += val(i, k)
		}
		return s
	}
	switch op {
	case "barrier":
		err = r.Barrier(c)
	case "bcast":
		if me != root {
			clear(in.Bytes)
		}
		if err = r.Bcast(in, count, datatype.Int64, root, c); err == nil {
			for k := range count {
				if got := getInt64(in.Bytes[8*k:]); got != val(root, k) {
					t.Errorf("bcast P=%d root=%d rank %d: element %d is %d, want %d", P, root, me, k, got, val(root, k))
				}
			}
		}
	case "reduce", "allreduce":
		if op == "reduce" {
			err = r.Reduce(in, out, count, datatype.Int64, datatype.OpSum, root, c)
		} else {
			err = r.Allreduce(in, out, count, datatype.Int64, datatype.OpSum, c)
		}
		if err == nil && (op == "allreduce" || me == root) {
			for k := range count {
				if got := getInt64(out.Bytes[8*k:]); got != wantSum(k) {
					t.Errorf("%s P=%d root=%d rank %d: element %d is %d, want %d", op, P, root, me, k, got, wantSum(k))
				}
			}
		}
	}
	if err != nil {
		t.Errorf("%s P=%d rank %d: %v", op, P, me, err)
	}
}

// TestMeshFollowsDimensions runs the four mesh collectives on whole
// meshes, leading rows (P=12 on 4x4), a ragged last row (P=13, root in
// it) and on the two halves of a split by column parity, and checks from
// the recording that every message joins two tiles of one mesh row or
// one mesh column (so XY routing keeps it on that row's or column's
// links), that a broadcast's and a reduction's row messages are the root
// row's W-1 on whole rows (the rest being column messages), that a rank
// in the root's row sends its row messages before its column ones (rows
// first, then columns), and that the counts are the registered ones.
func TestMeshFollowsDimensions(t *testing.T) {
	type tc struct {
		W, H, P int
		split   bool // two communicators: even and odd columns
		root    int
		count   int // int64 elements
	}
	cases := []tc{{4, 4, 16, false, 0, 5}, {4, 4, 16, false, 6, 5}, {4, 4, 12, false, 5, 5}, {4, 4, 13, false, 12, 5}, {8, 8, 64, false, 0, 5}, {4, 4, 16, true, 1, 5},
		{5, 4, 19, false, 0, 5}, {6, 3, 18, false, 0, 5}}
	// Long vectors (8 KiB): the row reduce-scatter, column allreduce of a
	// block, row allgather.
	for _, c := range []tc{{4, 4, 16, false, 0, 1024}, {4, 4, 13, false, 0, 1024}, {6, 3, 17, false, 0, 1024}, {4, 4, 16, true, 0, 1024}, {8, 4, 32, false, 0, 4096}} {
		cases = append(cases, c)
	}
	for _, c := range cases {
		ops := []string{"bcast", "reduce", "allreduce", "barrier"}
		if c.count != 5 {
			ops = []string{"allreduce"}
		}
		for _, op := range ops {
			t.Run(fmt.Sprintf("%dx%d/P=%d/split=%v/%s/%d", c.W, c.H, c.P, c.split, op, c.count), func(t *testing.T) {
				t.Parallel()
				cfg := DefaultConfig()
				cfg.Procs = c.P
				cfg.SetAlgorithm(op, "mesh")
				w := job(t, c.W, c.H, cfg, nil)
				w.Record()
				sends := make([][][2]int, c.P)
				sizes := make([]int, c.P)
				w.Launch(func(r *Rank) {
					comm := r.CommWorld()
					if c.split {
						var err error
						if comm, err = r.CommSplit(comm, r.Rank()%2, r.Rank()); err != nil {
							t.Error(err)
							return
						}
					}
					from := len(r.rec.ops)
					meshCall(t, r, comm, op, c.root, c.count)
					sends[r.Rank()], sizes[r.Rank()] = meshSends(r, from), comm.Size()
				})
				if err := w.Run(); err != nil {
					t.Fatal(err)
				}
				rtNoLeaks(t, w)
				total, row, col := 0, 0, 0
				rootRow := -1
				if !c.split {
					rootRow = c.root / c.W
				}
				for me, ss := range sends {
					colSeen, colDone := false, false
					for _, s := range ss {
						if ay, by := s[0]/c.W, s[1]/c.W; ay == by && colSeen {
							colDone = true
						} else if ay != by && colDone && c.P%c.W == 0 {
							t.Errorf("rank %d: a second column phase: %v", me, ss)
						}
						if c.P%c.W == 0 && (op == "barrier" || op == "allreduce" && c.count == 5) && colSeen && s[0]/c.W == s[1]/c.W {
							t.Errorf("rank %d sends along its row after its column phase: %v", me, ss)
						}
						ax, ay, bx, by := s[0]%c.W, s[0]/c.W, s[1]%c.W, s[1]/c.W
						switch {
						case ay == by:
							row++
							if colSeen && ay == rootRow && op == "bcast" {
								t.Errorf("rank %d sends along its row after down its column: %v", me, ss)
							}
						case ax == bx:
							col++
							colSeen = true
						default:
							t.Errorf("message %d (%d,%d) -> %d (%d,%d) crosses row and column", s[0], ax, ay, s[1], bx, by)
						}
						total++
					}
				}
				per := c.P - 1
				if c.split {
					per = c.P - 2 // two communicators of P/2
				}
				if op == "allreduce" || op == "barrier" {
					per = 0
					for parity := range 2 {
						var tiles []int
						for i := range c.P {
							if !c.split || i%2 == parity {
								tiles = append(tiles, i)
							}
						}
						if len(tiles) > 0 && (c.split || parity == 0) {
							per += meshDimsMessages(c.W, tiles, 8*c.count, op == "barrier")
						}
					}
				}
				if total != per {
					t.Errorf("%d messages, want %d", total, per)
				}
				if !c.split && c.P%c.W == 0 && (op == "bcast" || op == "reduce") {
					if row != c.W-1 || col != c.P-c.W {
						t.Errorf("%d row and %d column messages, want %d and %d", row, col, c.W-1, c.P-c.W)
					}
				}
			})
		}
	}
}

// meshDimsMessages counts the messages of the dimensional allreduce of
// n bytes (or barrier) on ranks at tiles of a W-wide mesh, from the
// algorithm's definition: per dimension of k ranks (p = 2^floor(log2 k)),
// recursive doubling sends p log2 p + 2(k-p), Rabenseifner (from 4 KiB)
// 2p log2 p + 2(k-p), dissemination k ceil(log2 k); a short row adds one
// message to its host row and its length back.
func meshDimsMessages(W int, tiles []int, n int, barrier bool) int {
	lg := func(k int) int { return bits.Len(uint(k)) - 1 }
	pof2 := func(k int) int { return 1 << lg(k) }
	dim := func(k, n int) int {
		p := pof2(k)
		switch {
		case barrier:
			return k * bits.Len(uint(k-1))
		case n >= 4096:
			return 2*p*lg(p) + 2*(k-p)
		}
		return p*lg(p) + 2*(k-p)
	}
	rowLen := map[int]int{}
	for _, tile := range tiles {
		rowLen[tile/W]++
	}
	L := 0
	for _, l := range rowLen {
		L = max(L, l)
	}
	M, total := 0, 0
	for _, l := range rowLen {
		if l == L {
			M++
		} else {
			total += dim(l, n) + 1 + l
		}
	}
	if barrier || n < 4096 {
		return total + M*dim(L, n) + L*dim(M, n)
	}
	// Long: a row's reduce-scatter and allgather are Rabenseifner's
	// messages; each of its p non-folded places allreduces a block of
	// about n/p bytes in its column.
	p := pof2(L)
	total += M * dim(L, n)
	for j := range p {
		blk := 8 * ((n/8)*(j+1)/p - (n/8)*j/p)
		total += dim(M, blk)
	}
	return total
}

// seqTiles is tiles 0..P-1, where World places ranks 0..P-1.
func seqTiles(P int) []int {
	out := make([]int, P)
	for i := range out {
		out[i] = i
	}
	return out
}

func putInt64(b []byte, v int64) { le.PutUint64(b, uint64(v)) }
func getInt64(b []byte) int64    { return int64(le.Uint64(b)) }
