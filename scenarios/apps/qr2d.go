package apps

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"nocsim/endpoint"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
)

// qrGrid is one grid process's share on the q x q grid: process (pr, pc)
// holds the elements (i, j) with i mod q = pr and j mod q = pc; local row
// lr is global pr + lr*q, local column lc global pc + lc*q, stored column
// by column: element (lr, lc) at a[lc*rows + lr].
type qrGrid struct {
	q, pr, pc, rows, cols int
	a                     datatype.Buffer
}

func (g *qrGrid) row(lr int) int { return g.pr + lr*g.q }

// partialNorm is this process's share of column k's squared norm (its
// rows from local r0, column data at base) and A[k][k] if it holds that
// row (0 otherwise): the two numbers the grid column sums.
func (g *qrGrid) partialNorm(k, base, r0 int) (norm2, x0 float64) {
	for lr := r0; lr < g.rows; lr++ {
		x := g.a.Float64(base + lr)
		norm2 += x * x
	}
	if g.pr == k%g.q {
		x0 = g.a.Float64(base + r0)
	}
	return norm2, x0
}

// reflect turns this process's piece of column k into its piece of the
// Householder vector at v[off:], given the column's summed norm2 and
// A[k][k], leaves R's diagonal entry in place of A[k][k], and stores beta
// = 2/(v.v) right after the piece.
func (g *qrGrid) reflect(k, base, r0 int, norm2, x0 float64, v datatype.Buffer, off int) {
	alpha := -math.Copysign(math.Sqrt(norm2), x0)
	beta := 0.0
	if d := alpha*alpha - alpha*x0; d > 0 {
		beta = 1 / d
	}
	for lr := r0; lr < g.rows; lr++ {
		x := g.a.Float64(base + lr)
		g.a.SetFloat64(base+lr, 0)
		if g.row(lr) == k {
			x -= alpha
			g.a.SetFloat64(base+lr, alpha)
		}
		v.SetFloat64(off+lr-r0, x)
	}
	v.SetFloat64(off+g.rows-r0, beta)
}
func (g *qrGrid) col(lc int) int { return g.pc + lc*g.q }

// qrFrom returns the first local index whose global index (p + l*q) is at
// least k.
func qrFrom(k, p, q int) int {
	if k <= p {
		return 0
	}
	return (k - p + q - 1) / q
}

func newQRGrid(a *mat.Dense, q, pr, pc int, alloc func(int) datatype.Buffer) *qrGrid {
	n, _ := a.Dims()
	g := &qrGrid{q: q, pr: pr, pc: pc, rows: ownRows(n, q, pr), cols: ownRows(n, q, pc)}
	g.a = alloc(8 * max(g.rows*g.cols, 1))
	for lc := 0; lc < g.cols; lc++ {
		for lr := 0; lr < g.rows; lr++ {
			g.a.SetFloat64(lc*g.rows+lr, a.At(g.row(lr), g.col(lc)))
		}
	}
	return g
}

// qr2DDotOps is step 3's dot products over mr rows of nc columns: per
// element load v and A (4 words), 2 flops, an iteration; per column a
// store (2 words) and an iteration.
func qr2DDotOps(mr, nc int) endpoint.Ops {
	e, c := int64(mr)*int64(nc), int64(nc)
	return endpoint.Ops{Flops: 2 * e, Mem: 4*e + 2*c, Iters: e + c, Calls: 1}
}

// qr2DUpdateOps is the update A_j -= beta d_j v: per column a load (2
// words) and a product; per element load A and v, store A (6 words), 2
// flops, an iteration.
func qr2DUpdateOps(mr, nc int) endpoint.Ops {
	e, c := int64(mr)*int64(nc), int64(nc)
	return endpoint.Ops{Flops: 2*e + c, Mem: 6*e + 2*c, Iters: e + c, Calls: 1}
}

// runQR2DMPI is the MPI version on the q x q grid (section 5.2.1). Rank
// pr*q + pc is grid process (pr, pc); MPI_Comm_split gives each rank its
// grid row (the q ranks with its pr, ordered by pc) and grid column (its
// pc, ordered by pr). For every column k < N-1, with pk = k mod q the grid
// column owning it:
//
//  1. the ranks of grid column pk sum their rows' squares of A[k:, k] and
//     A[k][k] (on grid row k mod q, 0 elsewhere) by MPI_Allreduce on their
//     column communicator (2 doubles): each then knows alpha =
//     -sign(A[k][k]) |A[k:, k]| and beta = 2 / v.v = 1 / (alpha^2 -
//     alpha A[k][k]), turns its piece of column k into its piece of v
//     (A[k][k] - alpha at row k, A[i][k] below) and leaves R's column in
//     place (alpha at row k, zeros below);
//  2. each rank of grid column pk MPI_Bcasts its piece of v (its rows from
//     k on) and beta along its grid row, rooted at column pk;
//  3. every rank computes the partial dot products v^T A_j over its rows
//     for its columns j > k, and MPI_Allreduces them on its grid column
//     (the column reduce and the broadcast back in one call), then updates
//     A_j -= beta (v^T A_j) v on its rows.
func runQR2DMPI(m Machine, cfg QRConfig, a *mat.Dense, out *qrOutcome) error {
	P, n := cfg.Procs, cfg.N
	q := qrGridSide(P)
	return runAppMPI(m, cfg.Procs, cfg.Record, func(r *mpi.Rank, must func(error)) {
		me, world := r.Rank(), r.CommWorld()
		pr, pc := me/q, me%q
		g := newQRGrid(a, q, pr, pc, r.MustAlloc)
		out.grid[me] = g
		rowComm, err := r.CommSplit(world, pr, pc)
		must(err)
		colComm, err := r.CommSplit(world, pc, pr)
		must(err)
		v := r.MustAlloc(8 * (g.rows + 1)) // v on own rows >= k, then beta
		nrm := r.MustAlloc(16)
		nrmSum := r.MustAlloc(16)
		dot := r.MustAlloc(8 * max(g.cols, 1))
		dotSum := r.MustAlloc(8 * max(g.cols, 1))
		for k := 0; k < n-1; k++ {
			pk := k % q
			r0 := qrFrom(k, pr, q)   // first own row >= k
			c0 := qrFrom(k+1, pc, q) // first own column > k
			mr := g.rows - r0        // own rows >= k
			if pc == pk {
				// 1: column reduce of the norm and the diagonal element.
				base := (k / q) * g.rows
				norm2, x0 := g.partialNorm(k, base, r0)
				nrm.SetFloat64(0, norm2)
				nrm.SetFloat64(1, x0)
				r.Thread().Charge(endpoint.Ops{Flops: 2 * int64(mr), Mem: 2 * int64(mr), Iters: int64(mr), Calls: 1})
				must(r.Allreduce(nrm, nrmSum, 2, datatype.Float64, datatype.OpSum, colComm))
				g.reflect(k, base, r0, nrmSum.Float64(0), nrmSum.Float64(1), v, 0)
				r.Thread().Charge(endpoint.Ops{Flops: 6, Mem: 6 * int64(mr), Iters: int64(mr), Calls: 1})
			}
			// 2: v's pieces and beta along the grid rows.
			must(r.Bcast(v, mr+1, datatype.Float64, pk, rowComm))
			nc := g.cols - c0
			if nc == 0 {
				continue // the whole grid column is done
			}
			// 3: partial dot products, column reduce and broadcast back.
			for lc := c0; lc < g.cols; lc++ {
				s, base := 0.0, lc*g.rows
				for lr := r0; lr < g.rows; lr++ {
					s += v.Float64(lr-r0) * g.a.Float64(base+lr)
				}
				dot.SetFloat64(lc-c0, s)
			}
			r.Thread().Charge(qr2DDotOps(mr, nc))
			must(r.Allreduce(dot, dotSum, nc, datatype.Float64, datatype.OpSum, colComm))
			beta := v.Float64(mr)
			for lc := c0; lc < g.cols; lc++ {
				s, base := beta*dotSum.Float64(lc-c0), lc*g.rows
				for lr := r0; lr < g.rows; lr++ {
					g.a.SetFloat64(base+lr, g.a.Float64(base+lr)-s*v.Float64(lr-r0))
				}
			}
			r.Thread().Charge(qr2DUpdateOps(mr, nc))
		}
		out.end[me] = r.Now()
	})
}

// runQR2DNative is the native SCMP version on the q x q grid: the same
// three steps per column as runQR2DMPI, with DATA messages into slots
// that sit at the same word addresses on every node (every node allocates
// the same sizes in the same order) and are never reused, one slot per
// column (and per sender where several send), so no acknowledgement is
// needed; a flag word written after the data (delivery between two tiles
// is ordered) tells the receiver it is there. For column k, pk = k mod q:
//
//  1. each node of grid column pk SendFloats its partial sum of squares
//     and A[k][k] (0 off grid row k mod q) to every other node of its
//     grid column into its sender slot, then a flag; each sums the q
//     pairs in grid-row order (the same sum everywhere) and forms alpha,
//     beta and its piece of v as the MPI version does;
//  2. each node of grid column pk starts a DMA block of its piece of v and
//     beta to the same slot on every other node of its grid row, then a
//     flag word; the others Poll it;
//  3. every node with columns right of k DMA-sends its partial dot
//     products to every other node of its grid column into its sender
//     slot, then a flag; each waits for the others' flags, sums the q
//     vectors in grid-row order and updates its columns.
func runQR2DNative(mc Machine, cfg QRConfig, a *mat.Dense, out *qrOutcome) error {
	m := mc.NewMachine()
	defer m.Close()
	P, n := cfg.Procs, cfg.N
	q := qrGridSide(P)
	maxR := ownRows(n, q, 0) // the most rows (and columns) of any node
	// Column k's slots: v (the most own rows >= k, then beta) at vOff[k],
	// the q senders' dot products (the most own columns > k each) at
	// dOff[k] + s*dW(k).
	vOff, dOff := make([]int, n+1), make([]int, n+1)
	dW := func(k int) int { return (n - k - 1 + q - 1) / q }
	for k := 0; k < n; k++ {
		vOff[k+1] = vOff[k] + (n-k+q-1)/q + 1
		dOff[k+1] = dOff[k] + q*dW(k)
	}
	for me := 0; me < P; me++ {
		node := m.Nodes[me]
		pr, pc := me/q, me%q
		al := &allocator{node: node}
		alloc := al.alloc
		// The same sizes on every node, so the slots after A line up.
		g := newQRGrid(a, q, pr, pc, func(int) datatype.Buffer { return alloc(8 * maxR * maxR) })
		x := &qr2DNode{g: g, q: q, pr: pr, pc: pc, vOff: vOff, dOff: dOff, dW: dW}
		x.nrm = alloc(8 * 2 * n * q)       // (k, sender) -> norm2, x0
		x.nrmFlag = alloc(4 * n * q)       // (k, sender)
		x.v = alloc(8 * max(vOff[n], 1))   // column k's v piece and beta
		x.vFlag = alloc(4 * n)             // k
		x.dot = alloc(8 * max(dOff[n], 1)) // (k, sender) dot products
		x.dotFlag = alloc(4 * n * q)       // (k, sender)
		if al.err != nil {
			return fmt.Errorf("node %d: %w", me, al.err)
		}
		out.grid[me] = g
		node.Start(fmt.Sprintf("qr2d %d", me), func(t *endpoint.Thread) {
			x.t = t
			for k := 0; k < n-1; k++ {
				x.column(k)
			}
			out.end[me] = t.Now()
		})
	}
	if err := m.Run(-1); err != nil {
		return err
	}
	return m.CheckQuiescent()
}

// qr2DNode is one node's thread of the native 2d QR: its piece of the
// grid, its place (pr, pc) on the q x q grid, and the slots and flags,
// laid out per column by vOff, dOff and dW.
type qr2DNode struct {
	t                      *endpoint.Thread
	g                      *qrGrid
	q, pr, pc              int
	vOff, dOff             []int
	dW                     func(k int) int
	nrm, nrmFlag, v, vFlag datatype.Buffer
	dot, dotFlag           datatype.Buffer
}

// word is the word address of double dbl of b.
func word(b datatype.Buffer, dbl int) uint32 { return b.Addr + uint32(2*dbl) }

// column runs the three steps for column k.
func (x *qr2DNode) column(k int) {
	g, q := x.g, x.q
	pk := k % q
	r0 := qrFrom(k, x.pr, q)
	c0 := qrFrom(k+1, x.pc, q)
	mr := g.rows - r0
	if x.pc == pk {
		x.householder(k, r0, mr)
	} else {
		x.t.Poll(x.vFlag.Addr+uint32(k), 1)
	}
	if g.cols-c0 == 0 {
		return // the whole grid column is done
	}
	x.update(k, r0, c0, mr)
}

// householder is steps 1 and 2 on column k's grid column: the column
// all-to-all of the norm and the diagonal, the reflection, and v's piece
// (mr rows from r0) and beta along the grid row.
func (x *qr2DNode) householder(k, r0, mr int) {
	t, g, q, pr, pc := x.t, x.g, x.q, x.pr, x.pc
	vo := x.vOff[k]
	// 1: column all-to-all of the norm and the diagonal.
	base := (k / q) * g.rows
	norm2, x0 := g.partialNorm(k, base, r0)
	t.Charge(endpoint.Ops{Flops: 2 * int64(mr), Mem: 2 * int64(mr), Iters: int64(mr), Calls: 1})
	slot := (k*q + pr) * 2
	x.nrm.SetFloat64(slot, norm2)
	x.nrm.SetFloat64(slot+1, x0)
	for d := 1; d < q; d++ {
		dst := ((pr+d)%q)*q + pc
		mustOK(t.SendFloat(dst, word(x.nrm, slot), norm2))
		mustOK(t.SendFloat(dst, word(x.nrm, slot+1), x0))
		mustOK(t.SendInt(dst, x.nrmFlag.Addr+uint32(k*q+pr), 1))
	}
	norm2, x0 = 0, 0
	for s := 0; s < q; s++ {
		if s != pr {
			t.Poll(x.nrmFlag.Addr+uint32(k*q+s), 1)
		}
		norm2 += x.nrm.Float64((k*q + s) * 2)
		x0 += x.nrm.Float64((k*q+s)*2 + 1)
	}
	t.Charge(endpoint.Ops{Flops: 2 * int64(q-1), Mem: 4 * int64(q), Iters: int64(q)})
	g.reflect(k, base, r0, norm2, x0, x.v, vo)
	t.Charge(endpoint.Ops{Flops: 6, Mem: 6 * int64(mr), Iters: int64(mr), Calls: 1})
	// 2: v's piece and beta along the grid row.
	for d := 1; d < q; d++ {
		dst := pr*q + (pc+d)%q
		_, err := t.SendBlockNB(dst, word(x.v, vo), 1, word(x.v, vo), 1, 2*(mr+1))
		mustOK(err)
		mustOK(t.SendInt(dst, x.vFlag.Addr+uint32(k), 1))
	}
}

// update is step 3: the partial dot products of the node's columns from
// c0 to the rest of its grid column, their sums in grid-row order, and
// the update of those columns' rows from r0.
func (x *qr2DNode) update(k, r0, c0, mr int) {
	t, g, q, pr, pc, v, dot := x.t, x.g, x.q, x.pr, x.pc, x.v, x.dot
	vo, nc := x.vOff[k], g.cols-c0
	w := x.dW(k)
	own := x.dOff[k] + pr*w
	for lc := c0; lc < g.cols; lc++ {
		s, base := 0.0, lc*g.rows
		for lr := r0; lr < g.rows; lr++ {
			s += v.Float64(vo+lr-r0) * g.a.Float64(base+lr)
		}
		dot.SetFloat64(own+lc-c0, s)
	}
	t.Charge(qr2DDotOps(mr, nc))
	for d := 1; d < q; d++ {
		dst := ((pr+d)%q)*q + pc
		_, err := t.SendBlockNB(dst, word(dot, own), 1, word(dot, own), 1, 2*nc)
		mustOK(err)
		mustOK(t.SendInt(dst, x.dotFlag.Addr+uint32(k*q+pr), 1))
	}
	for s := 0; s < q; s++ {
		if s != pr {
			t.Poll(x.dotFlag.Addr+uint32(k*q+s), 1)
		}
	}
	t.Charge(endpoint.Ops{Flops: int64((q - 1) * nc), Mem: 2*int64(q*nc) + 2*int64(nc), Iters: int64(q*nc) + int64(nc)})
	beta := v.Float64(vo + mr)
	for lc := c0; lc < g.cols; lc++ {
		sum := 0.0
		for s := 0; s < q; s++ {
			sum += dot.Float64(x.dOff[k] + s*w + lc - c0)
		}
		f, base := beta*sum, lc*g.rows
		for lr := r0; lr < g.rows; lr++ {
			g.a.SetFloat64(base+lr, g.a.Float64(base+lr)-f*v.Float64(vo+lr-r0))
		}
	}
	t.Charge(qr2DUpdateOps(mr, nc))
}
