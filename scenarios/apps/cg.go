package apps

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
)

// CGConfig is one run of the conjugate gradient benchmark (thesis figure
// 5.1): solve A x = b for a sparse symmetric positive definite A.
//
// Rows of A and the pieces of b, r and the working part of p are
// distributed cyclically: row i lives on rank (node) i mod Procs. Every
// rank keeps a full copy of p, completed before each matrix-vector product
// by broadcasting every rank's piece (section 5.1.1's "n broadcasts"), and
// a full copy of x, which it updates redundantly from the full p. Each
// iteration reduces three scalars to every rank: p.Ap, r.r and
// |A x - b|^2, the error of figure 5.1. The loop ends when
// |A x - b| / |b| <= Tol or after MaxIter iterations.
type CGConfig struct {
	// Procs is the number of ranks (MPI) or nodes (native), 1..the tiles
	// of the scenario's mesh, and at most N.
	Procs int
	// N is the number of unknowns (rows of A), Procs..100000 (the thesis's
	// largest row, 500,000 nonzeros at 5 a row).
	N int
	// Nonzeros is the total number of nonzero elements of A, diagonal
	// included (as in thesis table 5.1), N..min(N*N, 4194304); 0 means
	// 5*N (at most N*N). A has its N diagonal elements plus (Nonzeros-N)/2 symmetric
	// pairs of off-diagonal elements at distinct random positions, so an
	// odd off-diagonal count is rounded down.
	Nonzeros int
	// Tol is the relative residual to reach, in (0, 1).
	Tol float64
	// MaxIter bounds the iterations, 1..100000.
	MaxIter int
	// Iterations, when > 0, makes every run do exactly that many
	// iterations (at most MaxIter), whatever the error after each: the
	// thesis's Table 5.1 times imply one count for every row (thesis.go).
	// The loop still stops at an exact solution (error 0), and the answer
	// must still be within Tol.
	Iterations int
	// Native selects the native SCMP version (THREAD and DATA messages)
	// instead of the MPI one.
	Native bool
	// Seed makes A and b; the same seed gives the same system.
	Seed uint64
	// Record, when set, makes the MPI version record its communication
	// and gets the trace after a successful run (the native version has
	// no MPI communication to record).
	Record func(*mpi.World)
	// Variant is "" (the default: three Allreduces a iteration) or
	// "thesis" (section 5.1 as written: three Reduces and 4 + P
	// Bcasts a iteration; cg_thesis.go).
	Variant string
	// Distribute is the thesis variant's DistributeP in the MPI version:
	// "" or "bcast" (a loop of packed broadcasts, as written) or
	// "alltoall" (one MPI_Alltoallw with a vector datatype, the thesis's
	// section 6.1 future work).
	Distribute string
}

// goOn is the loop's test after iter iterations with relative error e:
// under Tol and MaxIter, or exactly Iterations when that is set (but never
// past an exact solution, where the next step would divide 0 by 0).
func (cfg CGConfig) goOn(e float64, iter int) bool {
	if cfg.Iterations > 0 {
		return e > 0 && iter < cfg.Iterations
	}
	return e > cfg.Tol && iter < cfg.MaxIter
}

// cgMaxN bounds the unknowns: the thesis's 500,000 nonzeros at 5 a row.
const cgMaxN = 100000

// CGUnknowns is the N a thesis run of nonzeros nonzeros uses: 5 nonzeros
// a row (the five-point stencil of a 2-D Poisson problem, the classic CG
// test matrix, and this benchmark's default density), at least 1.
func CGUnknowns(nonzeros int) int { return max(nonzeros/5, 1) }

// cgSystem is the generated system in compressed sparse rows.
type cgSystem struct {
	n      int
	rowPtr []int
	col    []int
	val    []float64
	b      []float64
}

// nnz is the number of stored nonzeros.
func (s *cgSystem) nnz() int { return len(s.val) }

// newCGSystem builds a symmetric, strictly diagonally dominant matrix with
// a positive diagonal (hence positive definite): off-diagonal elements in
// [-1, -0.1], each diagonal element 1 plus its row's absolute sum, and b
// uniform in [-1, 1].
func newCGSystem(n, nonzeros int, seed uint64) *cgSystem {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	pairs := min((nonzeros-n)/2, n*(n-1)/2)
	off := make([]map[int]float64, n)
	for i := range off {
		off[i] = map[int]float64{}
	}
	add := func(i, j int) {
		v := -(0.1 + 0.9*rng.Float64())
		off[i][j], off[j][i] = v, v
	}
	if all := n * (n - 1) / 2; 2*pairs > all {
		// Dense: choose among every pair.
		list := make([][2]int, 0, all)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				list = append(list, [2]int{i, j})
			}
		}
		rng.Shuffle(len(list), func(a, b int) { list[a], list[b] = list[b], list[a] })
		for _, p := range list[:pairs] {
			add(p[0], p[1])
		}
	} else {
		for k := 0; k < pairs; {
			i, j := rng.IntN(n), rng.IntN(n)
			if i == j {
				continue
			}
			if _, dup := off[i][j]; dup {
				continue
			}
			add(i, j)
			k++
		}
	}
	s := &cgSystem{n: n, rowPtr: make([]int, n+1), b: make([]float64, n)}
	for i := 0; i < n; i++ {
		cols := make([]int, 0, len(off[i]))
		for j := range off[i] {
			cols = append(cols, j)
		}
		slices.Sort(cols)
		diag := 1.0
		for _, j := range cols {
			diag += math.Abs(off[i][j])
		}
		// Row i in ascending column order, the diagonal in its place.
		placed := false
		for _, j := range cols {
			if !placed && j > i {
				s.col, s.val = append(s.col, i), append(s.val, diag)
				placed = true
			}
			s.col, s.val = append(s.col, j), append(s.val, off[i][j])
		}
		if !placed {
			s.col, s.val = append(s.col, i), append(s.val, diag)
		}
		s.rowPtr[i+1] = len(s.val)
		s.b[i] = 2*rng.Float64() - 1
	}
	return s
}

// rowDot is row i of A times the full vector v (v.Float64(j) = v_j).
func (s *cgSystem) rowDot(i int, v datatype.Buffer) float64 {
	sum := 0.0
	for k := s.rowPtr[i]; k < s.rowPtr[i+1]; k++ {
		sum += s.val[k] * v.Float64(s.col[k])
	}
	return sum
}

// ownRows is the number of rows of rank k of P (rows k, k+P, ...).
func ownRows(n, P, k int) int { return (n - k + P - 1) / P }

// residual is |b - A x| / |b| computed with gonum.
func (s *cgSystem) residual(x []float64) float64 {
	xv := mat.NewVecDense(s.n, x)
	bv := mat.NewVecDense(s.n, s.b)
	ax := mat.NewVecDense(s.n, nil)
	if s.n <= 2048 {
		a := mat.NewDense(s.n, s.n, nil)
		for i := 0; i < s.n; i++ {
			for k := s.rowPtr[i]; k < s.rowPtr[i+1]; k++ {
				a.Set(i, s.col[k], s.val[k])
			}
		}
		ax.MulVec(a, xv)
	} else {
		for i := 0; i < s.n; i++ {
			sum := 0.0
			for k := s.rowPtr[i]; k < s.rowPtr[i+1]; k++ {
				sum += s.val[k] * x[s.col[k]]
			}
			ax.SetVec(i, sum)
		}
	}
	ax.SubVec(bv, ax)
	return mat.Norm(ax, 2) / mat.Norm(bv, 2)
}

// Validate checks cfg against m before anything runs.
func (cfg *CGConfig) Validate(m Machine) error {
	if err := checkProcs(m, "cg", cfg.Procs); err != nil {
		return err
	}
	switch {
	case cfg.Variant != "" && cfg.Variant != "thesis":
		return fmt.Errorf("cg: Variant = %q: allowed \"\" (Allreduce) and \"thesis\"", cfg.Variant)
	case cfg.Distribute != "" && cfg.Distribute != "bcast" && cfg.Distribute != "alltoall":
		return fmt.Errorf("cg: Distribute = %q: allowed \"bcast\" and \"alltoall\"", cfg.Distribute)
	case cfg.Distribute == "alltoall" && cfg.Variant != "thesis":
		return fmt.Errorf("cg: Distribute = \"alltoall\": allowed with Variant \"thesis\" only")
	case cfg.N < cfg.Procs || cfg.N > cgMaxN:
		return fmt.Errorf("cg: N = %d: allowed %d..%d (at least one row per processor)", cfg.N, cfg.Procs, cgMaxN)
	case cfg.Nonzeros != 0 && (cfg.Nonzeros < cfg.N || cfg.Nonzeros > min(cfg.N*cfg.N, 1<<22)):
		return fmt.Errorf("cg: Nonzeros = %d: allowed 0 (5*N) or %d..%d (N..min(N*N, 4194304))", cfg.Nonzeros, cfg.N, min(cfg.N*cfg.N, 1<<22))
	case !(cfg.Tol > 0 && cfg.Tol < 1):
		return fmt.Errorf("cg: Tol = %g: allowed (0, 1)", cfg.Tol)
	case cfg.MaxIter < 1 || cfg.MaxIter > 100000:
		return fmt.Errorf("cg: MaxIter = %d: allowed 1..100000", cfg.MaxIter)
	case cfg.Iterations < 0 || cfg.Iterations > cfg.MaxIter:
		return fmt.Errorf("cg: Iterations = %d: allowed 0 (until Tol) or 1..MaxIter (%d)", cfg.Iterations, cfg.MaxIter)
	}
	return nil
}

// cgOutcome is what every rank reports.
type cgOutcome struct {
	end   []des.Time
	x     [][]float64 // each rank's full copy of x
	iters []int
	err   []float64 // the last error each rank computed
}

// RunCG runs the conjugate gradient benchmark on a fresh machine built
// from sc and checks the answer: the relative residual |b - A x| / |b|,
// computed with gonum from the x the processors computed, must be at most
// Tol (and every processor must hold the same x). Size in the result is N;
// Detail gives the nonzeros, iterations and residual. Times cover the
// solver loop only, as in the thesis: A and b are loaded into each
// processor's memory before cycle 0.
func RunCG(m Machine, cfg CGConfig) (Result, error) {
	if err := cfg.Validate(m); err != nil {
		return Result{}, err
	}
	nz := cfg.Nonzeros
	if nz == 0 {
		nz = min(5*cfg.N, cfg.N*cfg.N)
	}
	sys := newCGSystem(cfg.N, nz, cfg.Seed)
	P := cfg.Procs
	out := &cgOutcome{end: make([]des.Time, P), x: make([][]float64, P), iters: make([]int, P), err: make([]float64, P)}
	res := Result{App: "cg", Version: "mpi", Procs: P, Size: cfg.N}
	mpiRun := func() error { return runCGMPI(m, cfg, sys, out) }
	nativeRun := func() error { return runCGNative(m, cfg, sys, out) }
	if cfg.Variant == "thesis" {
		mpiRun = func() error { return runCGThesisMPI(m, cfg, sys, out) }
		nativeRun = func() error { return runCGThesisNative(m, cfg, sys, out) }
	}
	if err := runVersion(&res, cfg.Native, out.end, mpiRun, nativeRun); err != nil {
		return res, err
	}
	x := out.x[0]
	same := true
	for k := 1; k < P; k++ {
		for i := range x {
			same = same && out.x[k][i] == x[i]
		}
		same = same && out.iters[k] == out.iters[0]
	}
	rel := sys.residual(x)
	res.Correct = same && rel <= cfg.Tol
	res.Detail = fmt.Sprintf("nonzeros=%d iterations=%d residual=%.3g (in-loop error %.3g)", sys.nnz(), out.iters[0], rel, out.err[0])
	if !same {
		res.Detail += "; processors disagree on x"
	}
	return res, nil
}

// cgLocal is one processor's share: its rows and its vectors.
type cgLocal struct {
	sys        *cgSystem
	P, k, n    int // processors, this one, its rows
	pFull, x   datatype.Buffer
	p, r, q, b datatype.Buffer // own pieces: element j is row k + j*P
}

func newCGLocal(sys *cgSystem, P, k int, alloc func(int) datatype.Buffer) *cgLocal {
	c := &cgLocal{sys: sys, P: P, k: k, n: ownRows(sys.n, P, k)}
	// Same sizes, same order on every processor: the blocks sit at the
	// same addresses everywhere, so native senders can name them.
	most := ownRows(sys.n, P, 0)
	c.pFull, c.x = alloc(8*sys.n), alloc(8*sys.n)
	c.p, c.r, c.q, c.b = alloc(8*most), alloc(8*most), alloc(8*most), alloc(8*most)
	for j := 0; j < c.n; j++ {
		v := sys.b[k+j*P]
		c.b.SetFloat64(j, v)
		c.r.SetFloat64(j, v)
		c.p.SetFloat64(j, v)
	}
	return c
}

// ownNonzeros counts the nonzeros of this processor's rows.
func (c *cgLocal) ownNonzeros() int64 {
	t := 0
	for j := 0; j < c.n; j++ {
		i := c.k + j*c.P
		t += c.sys.rowPtr[i+1] - c.sys.rowPtr[i]
	}
	return int64(t)
}

// unpack copies n elements of a contiguous piece of rank src into the
// full p at stride P, returning the words copied.
func (c *cgLocal) unpack(from datatype.Buffer, src int) int64 {
	n := ownRows(c.sys.n, c.P, src)
	for j := 0; j < n; j++ {
		c.pFull.SetFloat64(src+j*c.P, from.Float64(j))
	}
	return int64(2 * n)
}

// matvecDot computes q = A p for the own rows and returns p.q (its piece).
func (c *cgLocal) matvecDot() float64 {
	s := 0.0
	for j := 0; j < c.n; j++ {
		v := c.sys.rowDot(c.k+j*c.P, c.pFull)
		c.q.SetFloat64(j, v)
		s += v * c.p.Float64(j)
	}
	return s
}

// update does x += alpha p (all of x), r -= alpha q, and returns r.r.
func (c *cgLocal) update(alpha float64) float64 {
	for i := 0; i < c.sys.n; i++ {
		c.x.SetFloat64(i, c.x.Float64(i)+alpha*c.pFull.Float64(i))
	}
	s := 0.0
	for j := 0; j < c.n; j++ {
		v := c.r.Float64(j) - alpha*c.q.Float64(j)
		c.r.SetFloat64(j, v)
		s += v * v
	}
	return s
}

// newP does p = r + beta p on the own piece and returns the piece of
// |A x - b|^2.
func (c *cgLocal) newP(beta float64) float64 {
	e := 0.0
	for j := 0; j < c.n; j++ {
		c.p.SetFloat64(j, c.r.Float64(j)+beta*c.p.Float64(j))
		d := c.sys.rowDot(c.k+j*c.P, c.x) - c.b.Float64(j)
		e += d * d
	}
	return e
}

// Operation counts of the steps, as the thesis variant's kernels count
// them (cg_thesis.go); the flops include the division forming alpha
// (update) and beta (newP), as they always have.
func (c *cgLocal) opsMatvec() endpoint.Ops {
	nz, n := c.ownNonzeros(), int64(c.n)
	return endpoint.Ops{Flops: 2*nz + 2*n, Mem: 5*nz + 6*n, Iters: nz + n, Calls: 1}
}

func (c *cgLocal) opsUpdate() endpoint.Ops {
	N, n := int64(c.sys.n), int64(c.n)
	return endpoint.Ops{Flops: 2*N + 4*n + 1, Mem: 6*N + 6*n, Iters: N + n, Calls: 1}
}

func (c *cgLocal) opsNewP() endpoint.Ops {
	nz, n := c.ownNonzeros(), int64(c.n)
	return endpoint.Ops{Flops: 2*nz + 5*n + 1, Mem: 5*nz + 10*n, Iters: nz + n, Calls: 1}
}

func (c *cgLocal) fullX() []float64 {
	x := make([]float64, c.sys.n)
	for i := range x {
		x[i] = c.x.Float64(i)
	}
	return x
}

// cgLoop is figure 5.1 with the communication steps supplied by the
// version: distribute completes pFull, allsum sums a scalar over every
// processor, charge charges computation.
func (c *cgLocal) cgLoop(cfg CGConfig, distribute func(iter int), allsum func(float64) float64, charge func(endpoint.Ops)) (int, float64) {
	var bb float64
	for j := 0; j < c.n; j++ {
		bb += c.b.Float64(j) * c.b.Float64(j)
	}
	charge(endpoint.Ops{Flops: 2 * int64(c.n), Mem: 2 * int64(c.n), Iters: int64(c.n), Calls: 1})
	bb = allsum(bb)
	normB := math.Sqrt(bb)
	rr := bb
	e, iter := 1.0, 0
	for cfg.goOn(e, iter) {
		distribute(iter)
		pq := c.matvecDot()
		charge(c.opsMatvec())
		alpha := rr / allsum(pq)
		rrNew := c.update(alpha)
		charge(c.opsUpdate())
		rrNew = allsum(rrNew)
		beta := rrNew / rr
		rr = rrNew
		ee := c.newP(beta)
		charge(c.opsNewP())
		e = math.Sqrt(allsum(ee)) / normB
		charge(endpoint.Ops{Flops: 2})
		iter++
	}
	return iter, e
}

// runCGMPI is the MPI version: DistributeP is a loop of MPI_Bcast calls,
// one per root, each root's piece packed contiguously and unpacked by the
// others into p at stride P (as the thesis's port did), and each dot
// product is an MPI_Allreduce of one double.
func runCGMPI(m Machine, cfg CGConfig, sys *cgSystem, out *cgOutcome) error {
	P := cfg.Procs
	copyCycles := m.CPU().CopyCyclesPerWord
	return runAppMPI(m, P, cfg.Record, func(r *mpi.Rank, must func(error)) {
		k := r.Rank()
		c := newCGLocal(sys, P, k, r.MustAlloc)
		comm := r.CommWorld()
		piece := r.MustAlloc(8 * ownRows(sys.n, P, 0))
		send, recv := r.MustAlloc(8), r.MustAlloc(8)
		distribute := func(int) {
			for root := 0; root < P; root++ {
				buf := piece
				if root == k {
					buf = c.p
				}
				must(r.Bcast(buf, ownRows(sys.n, P, root), datatype.Float64, root, comm))
				r.Compute(copyCycles * c.unpack(buf, root))
			}
		}
		allsum := func(v float64) float64 {
			send.SetFloat64(0, v)
			must(r.Allreduce(send, recv, 1, datatype.Float64, datatype.OpSum, comm))
			return recv.Float64(0)
		}
		out.iters[k], out.err[k] = c.cgLoop(cfg, distribute, allsum, r.Thread().Charge)
		out.end[k] = r.Now()
		out.x[k] = c.fullX()
	})
}

// runCGNative is the native SCMP version. Every node pushes its piece of p
// to every other node with two strided DMA blocks (the low and the high
// words of its doubles, source stride 2, destination stride 2P into p at
// its first row), then a DATA word with the iteration number as a flag;
// receivers Poll the flags. A dot product's pieces go to node 0 by
// sendDataFloatValue, each followed by a flag word; node 0 adds them in
// node order and sends the sum back to every node the same way.
func runCGNative(mc Machine, cfg CGConfig, sys *cgSystem, out *cgOutcome) error {
	m := mc.NewMachine()
	defer m.Close()
	P := cfg.Procs
	// Words of the synchronisation block (same address on every node):
	// pFlag[P], part[2P] (node 0's slots for the pieces of a sum),
	// partFlag[P], sum[2], sumFlag.
	syncWords := 4*P + 3
	for k := 0; k < P; k++ {
		node := m.Nodes[k]
		al := &allocator{node: node}
		alloc := al.alloc
		c := newCGLocal(sys, P, k, alloc)
		syn := alloc(4 * syncWords)
		if al.err != nil {
			return fmt.Errorf("node %d: %w", k, al.err)
		}
		pFlag := syn.Addr
		part := pFlag + uint32(P)
		partFlag := part + uint32(2*P)
		sum := partFlag + uint32(P)
		sumFlag := sum + 2
		node.Start(fmt.Sprintf("cg %d", k), func(t *endpoint.Thread) {
			check := func(err error) {
				if err != nil {
					panic(err)
				}
			}
			distribute := func(iter int) {
				seq := uint32(iter + 1)
				for d := 1; d < P; d++ {
					dst := (k + d) % P
					lo := c.pFull.Addr + uint32(2*k)
					_, err := t.SendBlockNB(dst, lo, uint32(2*P), c.p.Addr, 2, c.n)
					check(err)
					_, err = t.SendBlockNB(dst, lo+1, uint32(2*P), c.p.Addr+1, 2, c.n)
					check(err)
					check(t.SendInt(dst, pFlag+uint32(k), seq))
				}
				t.Compute(m.CPU.CopyCyclesPerWord * c.unpack(c.p, k))
				for d := 1; d < P; d++ {
					t.Poll(pFlag+uint32((k+d)%P), seq)
				}
			}
			var seq uint32
			allsum := func(v float64) float64 {
				seq++
				if k != 0 {
					check(t.SendFloat(0, part+uint32(2*k), v))
					check(t.SendInt(0, partFlag+uint32(k), seq))
					t.Poll(sumFlag, seq)
					return math.Float64frombits(uint64(t.Read(sum)) | uint64(t.Read(sum+1))<<32)
				}
				for src := 1; src < P; src++ {
					t.Poll(partFlag+uint32(src), seq)
				}
				total := v
				for src := 1; src < P; src++ {
					a := part + uint32(2*src)
					total += math.Float64frombits(uint64(t.Read(a)) | uint64(t.Read(a+1))<<32)
				}
				t.Charge(endpoint.Ops{Flops: int64(P - 1), Mem: 2 * int64(P-1), Iters: int64(P - 1)})
				for d := 1; d < P; d++ {
					check(t.SendFloat(d, sum, total))
					check(t.SendInt(d, sumFlag, seq))
				}
				return total
			}
			out.iters[k], out.err[k] = c.cgLoop(cfg, distribute, allsum, t.Charge)
			out.end[k] = t.Now()
			out.x[k] = c.fullX()
		})
	}
	if err := m.Run(-1); err != nil {
		return err
	}
	return m.CheckQuiescent()
}
