package apps

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
)

// MatMulConfig is a dense matrix multiply C = A x B of N x N float64
// matrices whose entries are small integers drawn from Seed, so that the
// product is exact and checked element by element against gonum.
type MatMulConfig struct {
	// Procs is the number of ranks (MPI) or nodes (native), 1..tiles.
	Procs int
	// N is the matrix order, 1..256.
	N int
	// Decomp is the data decomposition:
	//   "1d": row slices. Each rank holds N/Procs rows of A and of B and
	//         computes its N/Procs rows of C; the B slices circulate
	//         around a ring of all ranks in Procs steps (N must be a
	//         multiple of Procs).
	//   "2d": blocks on a sqrt(Procs) x sqrt(Procs) grid, Cannon's
	//         algorithm: an initial skew (A row i left by i, B column j up
	//         by j), then sqrt(Procs) steps of multiply, shift A left and
	//         B up (Procs must be a perfect square and N a multiple of
	//         sqrt(Procs)).
	Decomp string
	// Native runs the native SCMP version (DMA blocks and flag words)
	// instead of the MPI one.
	Native bool
	// Seed draws the matrices.
	Seed uint64
	// Record, when set, makes the MPI version record its communication
	// and gets the trace after a successful run (the native version has
	// no MPI communication to record).
	Record func(*mpi.World)
}

// mmMaxN bounds N so that the pieces fit a tile's heap.
const mmMaxN = 256

// Check validates cfg against m and returns the grid side (2d) or 0.
func (cfg MatMulConfig) Check(m Machine) (int, error) {
	if err := checkProcs(m, "matmul", cfg.Procs); err != nil {
		return 0, err
	}
	switch {
	case cfg.N < 1 || cfg.N > mmMaxN:
		return 0, fmt.Errorf("matmul: N = %d: allowed 1..%d", cfg.N, mmMaxN)
	}
	switch cfg.Decomp {
	case "1d":
		if cfg.N%cfg.Procs != 0 {
			return 0, fmt.Errorf("matmul: N = %d: allowed a multiple of Procs (%d) for the 1d decomposition", cfg.N, cfg.Procs)
		}
		return 0, nil
	case "2d":
		q := int(math.Round(math.Sqrt(float64(cfg.Procs))))
		if q*q != cfg.Procs {
			return 0, fmt.Errorf("matmul: Procs = %d: allowed a perfect square (1, 4, 9, 16, ...) for the 2d decomposition", cfg.Procs)
		}
		if cfg.N%q != 0 {
			return 0, fmt.Errorf("matmul: N = %d: allowed a multiple of sqrt(Procs) = %d for the 2d decomposition", cfg.N, q)
		}
		return q, nil
	}
	return 0, fmt.Errorf("matmul: Decomp = %q: allowed \"1d\", \"2d\"", cfg.Decomp)
}

// mmMatrices draws A and B: integers in -4..4.
func mmMatrices(n int, seed uint64) (a, b *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 0x6d61746d756c))
	draw := func() *mat.Dense {
		d := make([]float64, n*n)
		for i := range d {
			d[i] = float64(rng.IntN(9) - 4)
		}
		return mat.NewDense(n, n, d)
	}
	return draw(), draw()
}

func mmGet(b []byte, i int) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
}

func mmSet(b []byte, i int, v float64) {
	binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
}

// mmLoad stores the rows x cols sub-matrix of m at (r0, c0) row-major in b.
func mmLoad(b []byte, m *mat.Dense, r0, c0, rows, cols int) {
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			mmSet(b, i*cols+j, m.At(r0+i, c0+j))
		}
	}
}

// mmMulAdd is C += A[:, aoff:aoff+inner] x B for a row-major C (rows x
// cols), A (rows x lda) and B (inner x cols), read from and written to
// simulated memory. It returns the flops it performed.
func mmMulAdd(c, a, b []byte, rows, inner, cols, lda, aoff int) int64 {
	for i := 0; i < rows; i++ {
		for k := 0; k < inner; k++ {
			aik := mmGet(a, i*lda+aoff+k)
			if aik == 0 {
				continue
			}
			for j := 0; j < cols; j++ {
				mmSet(c, i*cols+j, mmGet(c, i*cols+j)+aik*mmGet(b, k*cols+j))
			}
		}
	}
	return 2 * int64(rows) * int64(inner) * int64(cols)
}

// mmPiece is where one rank's part of C lives: rows x cols at (r0, c0).
type mmPiece struct {
	r0, c0, rows, cols int
	c                  []byte
}

// RunMatMul multiplies two N x N matrices on Procs ranks (or nodes) of a
// fresh machine built from m, with the 1d or 2d decomposition, and checks
// C exactly against gonum. Cycles is when the last rank finished; Size is
// N. The matrices are placed in each rank's memory before the run; C stays
// distributed and is read from the simulated memories for the check.
func RunMatMul(m Machine, cfg MatMulConfig) (Result, error) {
	q, err := cfg.Check(m)
	if err != nil {
		return Result{}, err
	}
	a, b := mmMatrices(cfg.N, cfg.Seed)
	res := Result{App: "matmul-" + cfg.Decomp, Version: "mpi", Procs: cfg.Procs, Size: cfg.N}
	var pieces []mmPiece
	if cfg.Native {
		res.Version = "native"
		pieces, res.Cycles, err = mmNative(m, cfg, q, a, b)
	} else {
		pieces, res.Cycles, err = mmMPI(m, cfg, q, a, b)
	}
	if err != nil {
		return res, err
	}
	var want mat.Dense
	want.Mul(a, b)
	bad, maxErr := 0, 0.0
	for _, p := range pieces {
		for i := 0; i < p.rows; i++ {
			for j := 0; j < p.cols; j++ {
				d := math.Abs(mmGet(p.c, i*p.cols+j) - want.At(p.r0+i, p.c0+j))
				if d != 0 {
					bad++
					maxErr = max(maxErr, d)
				}
			}
		}
	}
	res.Correct = bad == 0
	res.Detail = fmt.Sprintf("%d of %d elements of C differ from gonum (max error %g)", bad, cfg.N*cfg.N, maxErr)
	return res, nil
}

// mmMPI runs the MPI version.
func mmMPI(m Machine, cfg MatMulConfig, q int, a, b *mat.Dense) ([]mmPiece, des.Time, error) {
	P, n := cfg.Procs, cfg.N
	pieces := make([]mmPiece, P)
	var last des.Time
	err := runAppMPI(m, P, cfg.Record, func(r *mpi.Rank, must func(error)) {
		me, comm := r.Rank(), r.CommWorld()
		// shift sends buf to dst and receives the same amount from src into
		// tmp, then swaps them.
		shift := func(buf, tmp *datatype.Buffer, count, dst, src, tag int) {
			_, err := r.Sendrecv(*buf, count, datatype.Float64, dst, tag, *tmp, count, datatype.Float64, src, tag, comm)
			must(err)
			*buf, *tmp = *tmp, *buf
		}
		if cfg.Decomp == "1d" {
			nb := n / P
			A, B, T, C := r.MustAlloc(8*nb*n), r.MustAlloc(8*nb*n), r.MustAlloc(8*nb*n), r.MustAlloc(8*nb*n)
			mmLoad(A.Bytes, a, me*nb, 0, nb, n)
			mmLoad(B.Bytes, b, me*nb, 0, nb, n)
			for s := 0; s < P; s++ {
				owner := (me + s) % P // whose rows of B this rank holds
				r.Flops(mmMulAdd(C.Bytes, A.Bytes, B.Bytes, nb, nb, n, n, owner*nb))
				if s < P-1 {
					shift(&B, &T, nb*n, (me-1+P)%P, (me+1)%P, 0)
				}
			}
			pieces[me] = mmPiece{me * nb, 0, nb, n, C.Bytes}
		} else {
			bs := n / q
			i, j := me/q, me%q
			at := func(i, j int) int { return ((i+q)%q)*q + (j+q)%q }
			A, B, T, C := r.MustAlloc(8*bs*bs), r.MustAlloc(8*bs*bs), r.MustAlloc(8*bs*bs), r.MustAlloc(8*bs*bs)
			mmLoad(A.Bytes, a, i*bs, j*bs, bs, bs)
			mmLoad(B.Bytes, b, i*bs, j*bs, bs, bs)
			// Initial skew: row i of A left by i, column j of B up by j.
			if i > 0 {
				shift(&A, &T, bs*bs, at(i, j-i), at(i, j+i), 1)
			}
			if j > 0 {
				shift(&B, &T, bs*bs, at(i-j, j), at(i+j, j), 2)
			}
			for s := 0; s < q; s++ {
				r.Flops(mmMulAdd(C.Bytes, A.Bytes, B.Bytes, bs, bs, bs, bs, 0))
				if s < q-1 {
					shift(&A, &T, bs*bs, at(i, j-1), at(i, j+1), 1)
					shift(&B, &T, bs*bs, at(i-1, j), at(i+1, j), 2)
				}
			}
			pieces[me] = mmPiece{i * bs, j * bs, bs, bs, C.Bytes}
		}
		last = max(last, r.Now())
	})
	if err != nil {
		return nil, 0, err
	}
	return pieces, last, nil
}

// Static-memory flag words of the native version, written by neighbours
// with DATA messages. Values are generations: 1 for the skew, s+2 for the
// shift after step s, so a flag only ever grows.
const (
	mmReadyA   = 64 // the node this one sends A to is ready for the next block
	mmArrivedA = 65 // the next A block has arrived here
	mmReadyB   = 66
	mmArrivedB = 67
)

// mmRing is one circulating matrix of the native version: a double buffer
// at the same address on every node, sent to node to and received from
// node from at every step.
type mmRing struct {
	to, from        int
	buf             [2]uint32 // word addresses
	bytes           [2][]byte
	words           int
	ready, arrived  uint32
	pendingTransfer *endpoint.Transfer
	pendingGen      uint32
}

// start begins the shift after step s: it tells the node that sends here
// that buffer (s+1)%2 is free, waits until the receiving node's is, and
// starts the DMA, which runs while the processor computes.
func (g *mmRing) start(t *endpoint.Thread, s int) {
	gen := uint32(s + 2)
	mustOK(t.SendInt(g.from, g.ready, gen))
	t.Poll(g.ready, gen)
	x, err := t.SendBlockNB(g.to, g.buf[(s+1)%2], 1, g.buf[s%2], 1, g.words)
	mustOK(err)
	g.pendingTransfer, g.pendingGen = x, gen
}

// finish waits for the DMA to have read the block, raises the receiver's
// flag behind it (delivery is ordered), and waits for this node's block.
func (g *mmRing) finish(t *endpoint.Thread) {
	x := g.pendingTransfer
	t.WaitUntil("matmul block DMA", func() bool { return x.Sent })
	mustOK(t.SendInt(g.to, g.arrived, g.pendingGen))
	t.Poll(g.arrived, g.pendingGen)
}

// mmNative runs the native SCMP version: every node's main thread shifts
// its blocks with SendBlockNB DMAs into a neighbour's double buffer,
// overlapped with its computation, synchronised by flag words.
func mmNative(mc Machine, cfg MatMulConfig, q int, a, b *mat.Dense) ([]mmPiece, des.Time, error) {
	m := mc.NewMachine()
	defer m.Close()
	P, n := cfg.Procs, cfg.N
	pieces := make([]mmPiece, P)
	var last des.Time
	alloc := func(node *endpoint.Node, words int) (uint32, []byte) {
		addr, buf, err := node.Alloc(4 * words)
		mustOK(err)
		return addr, buf
	}
	for id := 0; id < P; id++ {
		node := m.Nodes[id]
		if cfg.Decomp == "1d" {
			nb := n / P
			words := 2 * nb * n
			_, A := alloc(node, words)
			_, C := alloc(node, words)
			gb := &mmRing{to: (id - 1 + P) % P, from: (id + 1) % P, words: words, ready: mmReadyB, arrived: mmArrivedB}
			for k := range 2 {
				gb.buf[k], gb.bytes[k] = alloc(node, words)
			}
			mmLoad(A, a, id*nb, 0, nb, n)
			mmLoad(gb.bytes[0], b, id*nb, 0, nb, n)
			pieces[id] = mmPiece{id * nb, 0, nb, n, C}
			node.Start("matmul", func(t *endpoint.Thread) {
				for s := 0; s < P; s++ {
					if s < P-1 {
						gb.start(t, s)
					}
					owner := (id + s) % P
					t.Flops(mmMulAdd(C, A, gb.bytes[s%2], nb, nb, n, n, owner*nb))
					if s < P-1 {
						gb.finish(t)
					}
				}
				last = max(last, t.Now())
			})
			continue
		}
		bs := n / q
		words := 2 * bs * bs
		i, j := id/q, id%q
		at := func(i, j int) int { return ((i+q)%q)*q + (j+q)%q }
		origA, oa := alloc(node, words)
		origB, ob := alloc(node, words)
		_, C := alloc(node, words)
		ga := &mmRing{to: at(i, j-1), from: at(i, j+1), words: words, ready: mmReadyA, arrived: mmArrivedA}
		gb := &mmRing{to: at(i-1, j), from: at(i+1, j), words: words, ready: mmReadyB, arrived: mmArrivedB}
		for k := range 2 {
			ga.buf[k], ga.bytes[k] = alloc(node, words)
			gb.buf[k], gb.bytes[k] = alloc(node, words)
		}
		// A block that the skew leaves in place starts in buffer 0.
		if at(i, j-i) == id {
			oa = ga.bytes[0]
		}
		if at(i-j, j) == id {
			ob = gb.bytes[0]
		}
		mmLoad(oa, a, i*bs, j*bs, bs, bs)
		mmLoad(ob, b, i*bs, j*bs, bs, bs)
		pieces[id] = mmPiece{i * bs, j * bs, bs, bs, C}
		node.Start("matmul", func(t *endpoint.Thread) {
			// Initial skew into buffer 0 (free everywhere): A_ij goes to
			// (i, j-i), B_ij to (i-j, j); a block that stays is there.
			skew := func(orig uint32, g *mmRing, dst int) {
				if dst == id {
					mustOK(t.Write(g.arrived, 1))
					return
				}
				mustOK(t.SendBlock(dst, g.buf[0], 1, orig, 1, g.words))
				mustOK(t.SendInt(dst, g.arrived, 1))
			}
			skew(origA, ga, at(i, j-i))
			skew(origB, gb, at(i-j, j))
			t.Poll(mmArrivedA, 1)
			t.Poll(mmArrivedB, 1)
			for s := 0; s < q; s++ {
				if s < q-1 {
					ga.start(t, s)
					gb.start(t, s)
				}
				t.Flops(mmMulAdd(C, ga.bytes[s%2], gb.bytes[s%2], bs, bs, bs, bs, 0))
				if s < q-1 {
					ga.finish(t)
					gb.finish(t)
				}
			}
			last = max(last, t.Now())
		})
	}
	if err := m.Run(-1); err != nil {
		return nil, 0, err
	}
	return pieces, last, m.CheckQuiescent()
}
