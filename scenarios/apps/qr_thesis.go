package apps

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"nocsim/endpoint"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
)

// The thesis's QR as written (section 5.2.1): QRConfig.Grid "thesis".
//
// The X x Y processor grid is tiled over the matrix (figure 5.3):
// processor i, at grid column i mod X and grid row i / X, holds the
// elements (row, col) with col mod X = i mod X and row mod Y = i / X.
// (The text writes the row condition as row mod Y = i mod Y; figure 5.3,
// processor (row mod 4)*4 + col mod 4 on a 4 x 4 grid, is i / X.) For
// every column k < N-1, with grid column pk = k mod X owning it and grid
// row k mod Y holding its diagonal element:
//
//  1. the processes of grid column pk reduce their partial sums of
//     A[i][k]^2 (rows i >= k) to the column's top (grid row 0): MPI_Reduce
//     on the column communicator;
//  2. the owner of A[k][k] sends it to the top (MPI_Send; nothing when it
//     is the top);
//  3. the top computes alpha = -sign(A[k][k]) |A[k:, k]|, the Householder
//     vector's first element A[k][k] - alpha and beta = 2 / v.v, and
//     broadcasts the array {alpha, v_k} and the double beta to its column
//     (two MPI_Bcasts); each turns its piece of column k into its piece of
//     v and leaves R's column in place;
//  4. every process enters a global barrier (MPI_Barrier on
//     MPI_COMM_WORLD): the others have waited there meanwhile;
//  5. along every grid row, the process of grid column pk broadcasts its
//     piece of v (an array) and beta (a double): two MPI_Bcasts on the row
//     communicator;
//  6. every process computes v^T A_j over its rows for its columns j > k
//     and MPI_Allreduces them along its grid column, then updates A_j -=
//     beta (v^T A_j) v.
//
// The native version does the same steps with SCMP messages: DATA messages
// into slots and flag words (the partial sums and A[k][k] to the top, its
// three values back); a barrier of flag words to node 0 and a release word
// from it; DMA blocks of v's piece and beta along the rows; each process's
// dot products to every other of its grid column by DMA, summed in grid-row
// order. The global barrier of every column is what lets every slot be
// reused each column (a flag holds the column's number plus one).
//
// Each process keeps its tile in host memory (column by column, so its
// rows >= k of a column are contiguous and gonum's vector kernels do the
// arithmetic) with a block of the same size allocated in its tile's
// memory; what travels goes through simulated memory.

// qrThesisMaxN is the thesis's largest matrix.
const qrThesisMaxN = 1024

// QRThesisGrid is the grid the thesis variant uses for P processors when
// none is given: X x Y with Y the largest divisor of P not above sqrt(P)
// (4: 2x2, 16: 4x4, 32: 8x4, 64: 8x8).
func QRThesisGrid(p int) (x, y int) {
	y = 1
	for d := 1; d*d <= p; d++ {
		if p%d == 0 {
			y = d
		}
	}
	return p / y, y
}

// grid is the configuration's X x Y grid.
func (cfg QRConfig) grid() (x, y int) {
	if cfg.GridX > 0 {
		return cfg.GridX, cfg.GridY
	}
	return QRThesisGrid(cfg.Procs)
}

func (cfg QRConfig) validateThesis() error {
	x, y := cfg.grid()
	switch {
	case cfg.GridX < 0 || cfg.GridY < 0 || (cfg.GridX > 0) != (cfg.GridY > 0) || x*y != cfg.Procs:
		return fmt.Errorf("qr: grid %dx%d with Procs = %d: allowed X x Y = Procs (or none: %dx%d)", cfg.GridX, cfg.GridY, cfg.Procs, x, y)
	case cfg.N < max(x, y) || cfg.N > qrThesisMaxN:
		return fmt.Errorf("qr: N = %d on the %dx%d grid: allowed %d..%d (a row and a column per process)", cfg.N, x, y, max(x, y), qrThesisMaxN)
	}
	return nil
}

// qrTile is one process's share: local row lr is global pr + lr*Y, local
// column lc global pc + lc*X, element (lr, lc) at a[lc*rows + lr].
type qrTile struct {
	X, Y, pr, pc, rows, cols int
	a                        []float64
	v                        []float64 // v's piece on own rows >= k
}

func newQRTile(a *mat.Dense, X, Y, me int) *qrTile {
	n, _ := a.Dims()
	t := &qrTile{X: X, Y: Y, pr: me / X, pc: me % X}
	t.rows, t.cols = ownRows(n, Y, t.pr), ownRows(n, X, t.pc)
	t.a = make([]float64, t.rows*t.cols)
	for lc := 0; lc < t.cols; lc++ {
		for lr := 0; lr < t.rows; lr++ {
			t.a[lc*t.rows+lr] = a.At(t.pr+lr*Y, t.pc+lc*X)
		}
	}
	t.v = make([]float64, t.rows)
	return t
}

// step is column k's local extent: first own row >= k, own rows >= k,
// first own column > k, own columns > k.
func (t *qrTile) step(k int) (r0, mr, c0, nc int) {
	r0, c0 = qrFrom(k, t.pr, t.Y), qrFrom(k+1, t.pc, t.X)
	return r0, t.rows - r0, c0, t.cols - c0
}

// colK is this process's part of column k (rows >= k); it holds column k.
func (t *qrTile) colK(k, r0 int) []float64 {
	base := (k / t.X) * t.rows
	return t.a[base+r0 : base+t.rows]
}

// norm2 is step 1's partial sum: 2 mr words, 2 mr flops, mr iterations.
func (t *qrTile) norm2(k int) (float64, endpoint.Ops) {
	r0, mr, _, _ := t.step(k)
	c := t.colK(k, r0)
	m := int64(mr)
	return floats.Dot(c, c), endpoint.Ops{Flops: 2 * m, Mem: 2 * m, Iters: m, Calls: 1}
}

// house is the top's step 3: alpha, v_k and beta from |A[k:, k]|^2 and
// A[k][k] (a square root, a sign, 2 subtractions, 2 products, a
// division: 7 flops).
func house(norm2, x0 float64) (alpha, vk, beta float64, ops endpoint.Ops) {
	alpha = -math.Copysign(math.Sqrt(norm2), x0)
	vk = x0 - alpha
	if d := alpha*alpha - alpha*x0; d > 0 {
		beta = 1 / d // 2 / v.v, since v.v = 2 (alpha^2 - alpha x0)
	}
	return alpha, vk, beta, endpoint.Ops{Flops: 7, Calls: 1}
}

// reflect turns own rows >= k of column k into v's piece and leaves R's
// column (alpha at row k, zeros below): load and store A, store v: 6 words
// and an iteration a row.
func (t *qrTile) reflect(k int, alpha, vk float64) endpoint.Ops {
	r0, mr, _, _ := t.step(k)
	c := t.colK(k, r0)
	copy(t.v, c)
	for i := range c {
		c[i] = 0
	}
	if t.pr == k%t.Y {
		t.v[0], c[0] = vk, alpha
	}
	m := int64(mr)
	return endpoint.Ops{Mem: 6 * m, Iters: m, Calls: 1}
}

// dots writes v^T A_j for own columns j > k into d: per element load v
// and A (4 words), 2 flops, an iteration; per column a store (2 words) and
// an iteration.
func (t *qrTile) dots(k int, d []float64) endpoint.Ops {
	r0, mr, c0, nc := t.step(k)
	v := t.v[:mr]
	for lc := c0; lc < t.cols; lc++ {
		base := lc*t.rows + r0
		d[lc-c0] = floats.Dot(v, t.a[base:base+mr])
	}
	e, c := int64(mr)*int64(nc), int64(nc)
	return endpoint.Ops{Flops: 2 * e, Mem: 4*e + 2*c, Iters: e + c, Calls: 1}
}

// update does A_j -= beta d_j v for own columns j > k: per column load d
// (2 words) and a product; per element load A and v, store A (6 words), 2
// flops, an iteration.
func (t *qrTile) update(k int, beta float64, d []float64) endpoint.Ops {
	r0, mr, c0, nc := t.step(k)
	v := t.v[:mr]
	for lc := c0; lc < t.cols; lc++ {
		base := lc*t.rows + r0
		floats.AddScaled(t.a[base:base+mr], -beta*d[lc-c0], v)
	}
	e, c := int64(mr)*int64(nc), int64(nc)
	return endpoint.Ops{Flops: 2*e + c, Mem: 6*e + 2*c, Iters: e + c, Calls: 1}
}

// putV and getV move v's piece between the host slice and a buffer.
func (t *qrTile) putV(b datatype.Buffer, mr int) {
	for i := 0; i < mr; i++ {
		b.SetFloat64(i, t.v[i])
	}
}

func (t *qrTile) getV(b datatype.Buffer, mr int) {
	for i := 0; i < mr; i++ {
		t.v[i] = b.Float64(i)
	}
}

// runQRThesisMPI is the MPI version of the thesis variant.
func runQRThesisMPI(m Machine, cfg QRConfig, a *mat.Dense, out *qrOutcome) error {
	n := cfg.N
	X, Y := cfg.grid()
	return runAppMPI(m, cfg.Procs, cfg.Record, func(r *mpi.Rank, must func(error)) {
		me, world := r.Rank(), r.CommWorld()
		t := newQRTile(a, X, Y, me)
		out.tile[me] = t
		r.MustAlloc(8 * max(t.rows*t.cols, 1)) // the tile's place in memory
		rowComm, err := r.CommSplit(world, t.pr, t.pc)
		must(err)
		colComm, err := r.CommSplit(world, t.pc, t.pr)
		must(err)
		charge := r.Thread().Charge
		v := r.MustAlloc(8 * max(t.rows, 1))
		one, sum := r.MustAlloc(8), r.MustAlloc(8)
		pair := r.MustAlloc(16)
		d := make([]float64, t.cols)
		dot, dotSum := r.MustAlloc(8*max(t.cols, 1)), r.MustAlloc(8*max(t.cols, 1))
		for k := 0; k < n-1; k++ {
			note := func(op string) {
				if cfg.onCall != nil {
					cfg.onCall(me, k, op)
				}
			}
			pk, rk := k%X, k%Y
			r0, mr, _, nc := t.step(k)
			var beta float64
			if t.pc == pk {
				// 1, 2: the norm to the top, then A[k][k].
				s, ops := t.norm2(k)
				charge(ops)
				one.SetFloat64(0, s)
				note("reduce col")
				must(r.Reduce(one, sum, 1, datatype.Float64, datatype.OpSum, 0, colComm))
				if rk != 0 && t.pr == rk {
					one.SetFloat64(0, t.colK(k, r0)[0])
					note("send")
					must(r.Send(one, 1, datatype.Float64, 0, k, colComm))
				}
				// 3: the top's array and double to the column.
				if t.pr == 0 {
					x0 := 0.0
					if rk == 0 {
						x0 = t.colK(k, r0)[0]
					} else {
						note("recv")
						_, err := r.Recv(one, 1, datatype.Float64, rk, k, colComm)
						must(err)
						x0 = one.Float64(0)
					}
					alpha, vk, b, ops := house(sum.Float64(0), x0)
					charge(ops)
					pair.SetFloat64(0, alpha)
					pair.SetFloat64(1, vk)
					one.SetFloat64(0, b)
				}
				note("bcast col")
				must(r.Bcast(pair, 2, datatype.Float64, 0, colComm))
				note("bcast col")
				must(r.Bcast(one, 1, datatype.Float64, 0, colComm))
				charge(t.reflect(k, pair.Float64(0), pair.Float64(1)))
				beta = one.Float64(0)
				t.putV(v, mr)
			}
			// 4: everyone.
			note("barrier world")
			must(r.Barrier(world))
			// 5: v's piece and beta along the rows.
			note("bcast row")
			must(r.Bcast(v, mr, datatype.Float64, pk, rowComm))
			one.SetFloat64(0, beta)
			note("bcast row")
			must(r.Bcast(one, 1, datatype.Float64, pk, rowComm))
			beta = one.Float64(0)
			if t.pc != pk {
				t.getV(v, mr)
			}
			// 6: dot products along the column, then the update.
			charge(t.dots(k, d))
			for j := 0; j < nc; j++ {
				dot.SetFloat64(j, d[j])
			}
			note("allreduce col")
			must(r.Allreduce(dot, dotSum, nc, datatype.Float64, datatype.OpSum, colComm))
			for j := 0; j < nc; j++ {
				d[j] = dotSum.Float64(j)
			}
			charge(t.update(k, beta, d))
		}
		out.end[me] = r.Now()
	})
}
