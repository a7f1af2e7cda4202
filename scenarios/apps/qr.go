package apps

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
)

// QRConfig is one run of the QR decomposition benchmark (thesis section
// 5.2): A = Q R of a square N x N matrix by Householder reflections, one
// column after the other.
//
// Columns are distributed cyclically, column j on rank (node) j mod Procs,
// each stored whole (all N rows) in its rank's memory: the thesis's tiling
// of figure 5.3 with a 1 x Procs processor grid, so the norm and the dot
// products of the pivot column are local to its owner and the per-column
// communication of section 5.2.1 reduces to the owner broadcasting the
// Householder vector and its scalar to every other processor. For every
// column k < N-1 the owner computes the vector v (N-k elements) and
// beta = 2 / v.v, leaves R's column in place (R[k][k] = -sign(A[k][k])
// |A[k:, k]|, zeros below), sends v and beta to everyone, and every
// processor applies I - beta v v^T to its columns right of k (4 (N-k)
// flops per column).
type QRConfig struct {
	// Procs is the number of ranks (MPI) or nodes (native), 1..the tiles
	// of the scenario's mesh, and at most N.
	Procs int
	// N is the order of the square matrix A, Procs..256.
	N int
	// Native selects the native SCMP version (DATA messages: a DMA block
	// to every node and a flag word) instead of the MPI one (MPI_Bcast).
	Native bool
	// Seed draws A, uniform in [-1, 1]; the same seed gives the same A.
	Seed uint64
	// Grid is the processor grid tiled over the matrix (figure 5.3): "1d"
	// (or empty, the default) is the 1 x Procs grid above, columns cyclic
	// and whole; "2d" is a q x q grid (Procs = q*q, N >= q), 2D
	// block-cyclic with block size 1: element (i, j) lives on grid process
	// (i mod q, j mod q), rank (i mod q)*q + j mod q. The 2D grid has the
	// per-column communication of section 5.2.1: on row and column
	// sub-communicators (MPI_Comm_split) in the MPI version, by DATA
	// messages along grid rows and columns in the native one. "thesis" is
	// section 5.2.1 as written on an X x Y grid (qr_thesis.go).
	Grid string
	// GridX and GridY are the thesis variant's grid, X*Y = Procs; 0 and 0
	// take QRThesisGrid(Procs).
	GridX, GridY int
	// onCall, when set, hears every MPI call of the thesis variant's MPI
	// version: the rank, the column and the call (tests check the
	// structure of section 5.2.1 with it).
	onCall func(rank, k int, op string)
	// Record, when set, makes the MPI version record its communication
	// and gets the trace after a successful run (the native version has
	// no MPI communication to record).
	Record func(*mpi.World)
}

// grid2D reports whether cfg asks for the 2D processor grid.
func (cfg QRConfig) grid2D() bool { return cfg.Grid == "2d" }

// qrGridSide returns q with q*q = p, or 0 if p is not a perfect square.
func qrGridSide(p int) int {
	for q := 1; q*q <= p; q++ {
		if q*q == p {
			return q
		}
	}
	return 0
}

// qrMaxN bounds N so that runs stay short and fit a tile's heap.
const qrMaxN = 256

// Validate checks cfg against m before anything runs.
func (cfg QRConfig) Validate(m Machine) error {
	tiles, mesh, err := m.CheckTiles()
	if err != nil {
		return err
	}
	switch {
	case cfg.Grid != "" && cfg.Grid != "1d" && cfg.Grid != "2d" && cfg.Grid != "thesis":
		return fmt.Errorf("qr: Grid = %q: allowed \"1d\" (or empty), \"2d\" and \"thesis\"", cfg.Grid)
	case cfg.Procs < 1 || cfg.Procs > tiles:
		return procsError("qr", cfg.Procs, tiles, mesh)
	case cfg.Grid == "thesis":
		return cfg.validateThesis()
	case cfg.GridX != 0 || cfg.GridY != 0:
		return fmt.Errorf("qr: grid %dx%d: allowed with Grid \"thesis\" only", cfg.GridX, cfg.GridY)
	case cfg.grid2D() && qrGridSide(cfg.Procs) == 0:
		return fmt.Errorf("qr: Procs = %d with Grid = \"2d\": allowed a perfect square q*q (1, 4, 9, 16, ...)", cfg.Procs)
	case cfg.grid2D() && (cfg.N < qrGridSide(cfg.Procs) || cfg.N > qrMaxN):
		q := qrGridSide(cfg.Procs)
		return fmt.Errorf("qr: N = %d with Grid = \"2d\": allowed %d..%d (at least one row and column per grid process)", cfg.N, q, qrMaxN)
	case cfg.grid2D():
	case cfg.N < cfg.Procs || cfg.N > qrMaxN:
		return fmt.Errorf("qr: N = %d: allowed %d..%d (at least one column per processor)", cfg.N, cfg.Procs, qrMaxN)
	}
	return nil
}

// qrMatrix draws A: uniform in [-1, 1].
func qrMatrix(n int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 0x7172))
	d := make([]float64, n*n)
	for i := range d {
		d[i] = 2*rng.Float64() - 1
	}
	return mat.NewDense(n, n, d)
}

// qrLocal is one processor's share: its columns j = me, me+P, ...; local
// column l (global me + l*P) is stored whole at a[l*n : (l+1)*n].
type qrLocal struct {
	n, P, me, cols int
	a              datatype.Buffer
}

func newQRLocal(a *mat.Dense, P, me int, alloc func(int) datatype.Buffer) *qrLocal {
	n, _ := a.Dims()
	q := &qrLocal{n: n, P: P, me: me, cols: ownRows(n, P, me)}
	// Room for the most columns on every processor, so the blocks after it
	// sit at the same addresses everywhere and native senders can name them.
	q.a = alloc(8 * n * ownRows(n, P, 0))
	for l := 0; l < q.cols; l++ {
		for i := 0; i < n; i++ {
			q.a.SetFloat64(l*n+i, a.At(i, me+l*P))
		}
	}
	return q
}

// house computes the Householder vector of column k (owned here) into
// v[off : off+n-k] and beta into v[off+n-k], and leaves R's column k in
// place. It returns what it did: 4m+4 flops, 8m+4 words loaded or
// stored, 2m iterations (m = N-k).
func (q *qrLocal) house(k int, v datatype.Buffer, off int) endpoint.Ops {
	n, base := q.n, (k/q.P)*q.n
	m := n - k
	norm2 := 0.0
	for i := k; i < n; i++ {
		x := q.a.Float64(base + i)
		norm2 += x * x
	}
	x0 := q.a.Float64(base + k)
	alpha := -math.Copysign(math.Sqrt(norm2), x0)
	vv := 0.0
	for i := k; i < n; i++ {
		x := q.a.Float64(base + i)
		if i == k {
			x -= alpha
		}
		v.SetFloat64(off+i-k, x)
		vv += x * x
		q.a.SetFloat64(base+i, 0)
	}
	q.a.SetFloat64(base+k, alpha)
	beta := 0.0
	if vv > 0 {
		beta = 2 / vv
	}
	v.SetFloat64(off+m, beta)
	mm := int64(m)
	return endpoint.Ops{Flops: 4*mm + 4, Mem: 8*mm + 4, Iters: 2 * mm, Calls: 1}
}

// apply applies I - beta v v^T (v at v[off:], beta after it) to every own
// column right of k and returns what it did: per column 4m flops, 10m
// words (the dot product loads v and A, the update loads both and stores
// A), 2m + 1 iterations (m = N-k).
func (q *qrLocal) apply(k int, v datatype.Buffer, off int) endpoint.Ops {
	n, m := q.n, q.n-k
	beta := v.Float64(off + m)
	var ops endpoint.Ops
	for l := 0; l < q.cols; l++ {
		if q.me+l*q.P <= k {
			continue
		}
		base := l * n
		s := 0.0
		for i := k; i < n; i++ {
			s += v.Float64(off+i-k) * q.a.Float64(base+i)
		}
		s *= beta
		for i := k; i < n; i++ {
			q.a.SetFloat64(base+i, q.a.Float64(base+i)-s*v.Float64(off+i-k))
		}
		mm := int64(m)
		ops = ops.Add(endpoint.Ops{Flops: 4 * mm, Mem: 10 * mm, Iters: 2*mm + 1})
	}
	ops.Calls = 1
	return ops
}

// qrOutcome is what the processors leave behind.
type qrOutcome struct {
	end   []des.Time
	local []*qrLocal // Grid "1d"
	grid  []*qrGrid  // Grid "2d"
	tile  []*qrTile  // Grid "thesis"
}

// RunQR decomposes an N x N matrix on Procs ranks (or nodes) of a fresh
// machine built from m and checks R, read back from the simulated
// memories: it must be upper triangular, match gonum's mat.QR R up to the
// sign of each row, and satisfy A^T A = R^T R, each within 1e-9 relative.
// Size in the result is N; Cycles is when the last processor finished; A
// is placed in each processor's memory before cycle 0.
//
// Grid "2d" runs on the q x q grid (see QRConfig.Grid), MPI or native;
// the answer is checked the same way.
func RunQR(m Machine, cfg QRConfig) (Result, error) {
	res, _, err := runQR(m, cfg)
	return res, err
}

// runQR is RunQR also returning R as read back from the simulated memories.
func runQR(m Machine, cfg QRConfig) (Result, *mat.Dense, error) {
	if err := cfg.Validate(m); err != nil {
		return Result{}, nil, err
	}
	a := qrMatrix(cfg.N, cfg.Seed)
	P := cfg.Procs
	out := &qrOutcome{end: make([]des.Time, P), local: make([]*qrLocal, P), grid: make([]*qrGrid, P), tile: make([]*qrTile, P)}
	res := Result{App: "qr", Version: "mpi", Procs: P, Size: cfg.N}
	mpiRun := func() error { return runQRMPI(m, cfg, a, out) }
	if cfg.grid2D() {
		mpiRun = func() error { return runQR2DMPI(m, cfg, a, out) }
	}
	nativeRun := func() error { return runQRNative(m, cfg, a, out) }
	if cfg.grid2D() {
		nativeRun = func() error { return runQR2DNative(m, cfg, a, out) }
	}
	if cfg.Grid == "thesis" {
		mpiRun = func() error { return runQRThesisMPI(m, cfg, a, out) }
		nativeRun = func() error { return runQRThesisNative(m, cfg, a, out) }
	}
	if err := runVersion(&res, cfg.Native, out.end, mpiRun, nativeRun); err != nil {
		return res, nil, err
	}
	n := cfg.N
	r := mat.NewDense(n, n, nil)
	lower := 0.0 // largest element below the diagonal
	put := func(i, j int, x float64) {
		if i > j {
			lower = max(lower, math.Abs(x))
			return
		}
		r.Set(i, j, x)
	}
	if cfg.Grid == "thesis" {
		for _, t := range out.tile {
			for lc := 0; lc < t.cols; lc++ {
				for lr := 0; lr < t.rows; lr++ {
					put(t.pr+lr*t.Y, t.pc+lc*t.X, t.a[lc*t.rows+lr])
				}
			}
		}
	} else if cfg.grid2D() {
		for _, g := range out.grid {
			for lc := 0; lc < g.cols; lc++ {
				for lr := 0; lr < g.rows; lr++ {
					put(g.row(lr), g.col(lc), g.a.Float64(lc*g.rows+lr))
				}
			}
		}
	} else {
		for _, q := range out.local {
			for l := 0; l < q.cols; l++ {
				for i := 0; i < n; i++ {
					put(i, q.me+l*P, q.a.Float64(l*n+i))
				}
			}
		}
	}
	errR, errG := qrCheck(a, r)
	const tol = 1e-9
	res.Correct = lower == 0 && errR <= tol && errG <= tol
	res.Detail = fmt.Sprintf("R vs gonum (up to row signs) %.3g, |A^T A - R^T R| / |A^T A| %.3g, below diagonal %.3g", errR, errG, lower)
	return res, r, nil
}

// qrCheck returns the largest difference between r and gonum's R (each
// row's sign matched), relative to gonum's largest element, and the
// Frobenius norm of A^T A - R^T R relative to that of A^T A.
func qrCheck(a, r *mat.Dense) (errR, errG float64) {
	n, _ := a.Dims()
	var qr mat.QR
	qr.Factorize(a)
	var want mat.Dense
	qr.RTo(&want)
	scale := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			scale = max(scale, math.Abs(want.At(i, j)))
		}
	}
	for i := 0; i < n; i++ {
		s := 1.0
		if (want.At(i, i) < 0) != (r.At(i, i) < 0) {
			s = -1
		}
		for j := 0; j < n; j++ {
			errR = max(errR, math.Abs(r.At(i, j)-s*want.At(i, j)))
		}
	}
	if scale > 0 {
		errR /= scale
	}
	var ata, rtr mat.Dense
	ata.Mul(a.T(), a)
	rtr.Mul(r.T(), r)
	den := mat.Norm(&ata, 2)
	rtr.Sub(&ata, &rtr)
	errG = mat.Norm(&rtr, 2)
	if den > 0 {
		errG /= den
	}
	return errR, errG
}

// runQRMPI is the MPI version: for every column the owner computes the
// Householder vector and MPI_Bcasts it with beta (N-k+1 doubles) to every
// rank, which applies it to its columns.
func runQRMPI(m Machine, cfg QRConfig, a *mat.Dense, out *qrOutcome) error {
	P, n := cfg.Procs, cfg.N
	return runAppMPI(m, P, cfg.Record, func(r *mpi.Rank, must func(error)) {
		me, comm := r.Rank(), r.CommWorld()
		q := newQRLocal(a, P, me, r.MustAlloc)
		out.local[me] = q
		v := r.MustAlloc(8 * (n + 1))
		for k := 0; k < n-1; k++ {
			root := k % P
			if root == me {
				r.Thread().Charge(q.house(k, v, 0))
			}
			must(r.Bcast(v, n-k+1, datatype.Float64, root, comm))
			r.Thread().Charge(q.apply(k, v, 0))
		}
		out.end[me] = r.Now()
	})
}

// qrSlot is where column k's vector and beta live in the native version's
// vector area: N-k+1 doubles after those of the columns before it, so no
// slot is ever overwritten and no acknowledgement is needed.
func qrSlot(n, k int) int { return k*(n+1) - k*(k-1)/2 }

// runQRNative is the native SCMP version. The owner of column k computes
// its vector into its own slot of the vector area (same address on every
// node), then for every other node starts a DMA block of the slot to the
// same slot there followed by a DATA word raising that column's flag
// (delivery is ordered, so the flag arrives after the block); the others
// Poll the flag and apply the vector in place.
func runQRNative(mc Machine, cfg QRConfig, a *mat.Dense, out *qrOutcome) error {
	m := mc.NewMachine()
	defer m.Close()
	P, n := cfg.Procs, cfg.N
	for me := 0; me < P; me++ {
		node := m.Nodes[me]
		al := &allocator{node: node}
		alloc := al.alloc
		q := newQRLocal(a, P, me, alloc)
		v := alloc(8 * max(qrSlot(n, n-1), 1))
		flags := alloc(4 * n)
		if al.err != nil {
			return fmt.Errorf("node %d: %w", me, al.err)
		}
		out.local[me] = q
		node.Start(fmt.Sprintf("qr %d", me), func(t *endpoint.Thread) {
			for k := 0; k < n-1; k++ {
				off := qrSlot(n, k)
				if k%P == me {
					t.Charge(q.house(k, v, off))
					addr := v.Addr + uint32(2*off)
					for d := 1; d < P; d++ {
						dst := (me + d) % P
						_, err := t.SendBlockNB(dst, addr, 1, addr, 1, 2*(n-k+1))
						mustOK(err)
						mustOK(t.SendInt(dst, flags.Addr+uint32(k), 1))
					}
				} else {
					t.Poll(flags.Addr+uint32(k), 1)
				}
				t.Charge(q.apply(k, v, off))
			}
			out.end[me] = t.Now()
		})
	}
	if err := m.Run(-1); err != nil {
		return err
	}
	return m.CheckQuiescent()
}
