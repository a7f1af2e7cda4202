package apps

import (
	"fmt"
	"math"

	"nocsim/endpoint"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
)

// The thesis's conjugate gradient as written (section 5.1, figure 5.1):
// CGConfig.Variant "thesis".
//
// Rows of A and the pieces of b, r and q are cyclic over the ranks; every
// rank keeps a full p and a full x and updates only its rows of p (they
// sit in the full p at stride P). The root (rank or node 0) holds r.r and
// |b| and decides. Per iteration (section 5.1.1: "three reduce operations
// and 4 + n broadcast operations"):
//
//	DistributeP: for each root 0..P-1, the root packs its rows of p into a
//	  contiguous buffer, MPI_Bcast (ownRows doubles), the others unpack it
//	  into p at stride P (P broadcasts);
//	q = A p on own rows and the partial p.q; MPI_Reduce to 0; the root
//	  computes alpha = r.r / p.q; MPI_Bcast alpha;
//	x += alpha p (all of x), r -= alpha q on own rows, partial r.r;
//	  MPI_Reduce; the root computes beta = r.r(new) / r.r; MPI_Bcast beta;
//	p = r + beta p on own rows and the partial |A x - b|^2 of own rows;
//	  MPI_Reduce; the root computes error = |A x - b| / |b|; MPI_Bcast
//	  error; the root decides whether to go on (error > Tol and fewer than
//	  MaxIter iterations); MPI_Bcast that flag (a double, 1 or 0).
//
// The thesis names the count and size of the four one-double broadcasts,
// not their values; alpha, beta, the error and the loop flag are the four
// a port that keeps the decisions on the root needs, and any four cost the
// same. Before the loop, |b|^2 is reduced to the root once.
//
// The native version does the same steps with SCMP messages: DistributeP
// as two strided DMA blocks per destination into its p (no packing) and a
// flag word; a reduce as each node's partial sent to node 0 (a DATA
// message into its slot and a flag), node 0 adding them in node order; a
// broadcast as node 0's DATA message to every node and a flag.
//
// With Distribute "alltoall" (the thesis's section 6.1 future work), the
// MPI version's DistributeP is one MPI_Alltoallw instead: each rank sends
// its packed rows to every rank, and receives the piece of rank s with a
// vector datatype (ownRows(s) doubles at stride P) at byte 8s of p, so
// nothing is unpacked by hand.

// cgThesis is one processor's share in the thesis variant.
type cgThesis struct {
	sys         *cgSystem
	P, k, n     int // processors, this one, its rows
	nz          int64
	pFull, x    datatype.Buffer // full p (own rows at k, k+P, ...) and full x
	r, q, b     datatype.Buffer // own pieces: element j is row k + j*P
	normB, rr   float64         // the root's
	iters       int
	err         float64
	alpha, beta float64
}

func newCGThesis(sys *cgSystem, P, k int, alloc func(int) datatype.Buffer) *cgThesis {
	c := &cgThesis{sys: sys, P: P, k: k, n: ownRows(sys.n, P, k)}
	most := ownRows(sys.n, P, 0)
	// Same sizes in the same order everywhere: native senders name the
	// receiver's p by their own address.
	c.pFull, c.x = alloc(8*sys.n), alloc(8*sys.n)
	c.r, c.q, c.b = alloc(8*most), alloc(8*most), alloc(8*most)
	for j := 0; j < c.n; j++ {
		i := k + j*P
		v := sys.b[i]
		c.b.SetFloat64(j, v)
		c.r.SetFloat64(j, v)
		c.pFull.SetFloat64(i, v)
		c.nz += int64(sys.rowPtr[i+1] - sys.rowPtr[i])
	}
	return c
}

// The kernels below compute on the simulated memory and return what they
// did by operation class. A double is two words; an index (column, row
// pointer) one. Each kernel is one call.

// bNorm is the partial b.b: 2n words, 2n flops, n iterations.
func (c *cgThesis) bNorm() (float64, endpoint.Ops) {
	s := 0.0
	for j := 0; j < c.n; j++ {
		v := c.b.Float64(j)
		s += v * v
	}
	n := int64(c.n)
	return s, endpoint.Ops{Flops: 2 * n, Mem: 2 * n, Iters: n, Calls: 1}
}

// matvec computes q = A p on own rows and returns the partial p.q. Per
// nonzero: val (2 words), col (1), p[col] (2), 2 flops, an iteration; per
// row: 2 row pointers, the store of q (2), p[i] (2), 2 flops, an
// iteration: Mem = 5 nz + 6 n, Flops = 2 nz + 2 n, Iters = nz + n.
func (c *cgThesis) matvec() (float64, endpoint.Ops) {
	s := 0.0
	for j := 0; j < c.n; j++ {
		i := c.k + j*c.P
		v := c.sys.rowDot(i, c.pFull)
		c.q.SetFloat64(j, v)
		s += v * c.pFull.Float64(i)
	}
	nz, n := c.nz, int64(c.n)
	return s, endpoint.Ops{Flops: 2*nz + 2*n, Mem: 5*nz + 6*n, Iters: nz + n, Calls: 1}
}

// update does x += alpha p on all N elements (load x, p, store x: 6
// words, 2 flops) and r -= alpha q on own rows with the partial r.r (load
// r, q, store r: 6 words, 4 flops): Mem = 6 N + 6 n, Flops = 2 N + 4 n,
// Iters = N + n.
func (c *cgThesis) update(alpha float64) (float64, endpoint.Ops) {
	N := c.sys.n
	for i := 0; i < N; i++ {
		c.x.SetFloat64(i, c.x.Float64(i)+alpha*c.pFull.Float64(i))
	}
	s := 0.0
	for j := 0; j < c.n; j++ {
		v := c.r.Float64(j) - alpha*c.q.Float64(j)
		c.r.SetFloat64(j, v)
		s += v * v
	}
	NN, n := int64(N), int64(c.n)
	return s, endpoint.Ops{Flops: 2*NN + 4*n, Mem: 6*NN + 6*n, Iters: NN + n, Calls: 1}
}

// newP does p = r + beta p on own rows (load r, p, store p: 6 words, 2
// flops) and returns the partial |A x - b|^2 of own rows (per nonzero as
// matvec; per row 2 row pointers, b (2 words), 3 flops): Mem = 5 nz +
// 10 n, Flops = 2 nz + 5 n, Iters = nz + n.
func (c *cgThesis) newP(beta float64) (float64, endpoint.Ops) {
	e := 0.0
	for j := 0; j < c.n; j++ {
		i := c.k + j*c.P
		c.pFull.SetFloat64(i, c.r.Float64(j)+beta*c.pFull.Float64(i))
		d := c.sys.rowDot(i, c.x) - c.b.Float64(j)
		e += d * d
	}
	nz, n := c.nz, int64(c.n)
	return e, endpoint.Ops{Flops: 2*nz + 5*n, Mem: 5*nz + 10*n, Iters: nz + n, Calls: 1}
}

// pack copies own rows of p into buf (load and store a double each).
func (c *cgThesis) pack(buf datatype.Buffer) endpoint.Ops {
	for j := 0; j < c.n; j++ {
		buf.SetFloat64(j, c.pFull.Float64(c.k+j*c.P))
	}
	n := int64(c.n)
	return endpoint.Ops{Mem: 4 * n, Iters: n, Calls: 1}
}

// unpack copies root's packed rows from buf into p at stride P.
func (c *cgThesis) unpack(buf datatype.Buffer, root int) endpoint.Ops {
	n := ownRows(c.sys.n, c.P, root)
	for j := 0; j < n; j++ {
		c.pFull.SetFloat64(root+j*c.P, buf.Float64(j))
	}
	return endpoint.Ops{Mem: 4 * int64(n), Iters: int64(n), Calls: 1}
}

// cgSteps are the communication steps of one version: distribute
// completes p; reduce sums a partial on the root (its result meaningful
// there only); bcast gives the root's value to every processor.
type cgSteps struct {
	distribute func(iter int)
	reduce     func(v float64) float64
	bcast      func(v float64) float64
	charge     func(endpoint.Ops)
}

// loop is figure 5.1 with the steps of section 5.1.1.
func (c *cgThesis) loop(cfg CGConfig, s cgSteps) {
	root := c.k == 0
	bb, ops := c.bNorm()
	s.charge(ops)
	bb = s.reduce(bb)
	if root {
		c.normB, c.rr = math.Sqrt(bb), bb
		s.charge(endpoint.Ops{Flops: 1})
	}
	for more := true; more; {
		s.distribute(c.iters)
		pq, ops := c.matvec()
		s.charge(ops)
		pq = s.reduce(pq)
		if root {
			c.alpha = c.rr / pq
			s.charge(endpoint.Ops{Flops: 1})
		}
		c.alpha = s.bcast(c.alpha)
		rr, ops := c.update(c.alpha)
		s.charge(ops)
		rr = s.reduce(rr)
		if root {
			c.beta = rr / c.rr
			c.rr = rr
			s.charge(endpoint.Ops{Flops: 1})
		}
		c.beta = s.bcast(c.beta)
		e, ops := c.newP(c.beta)
		s.charge(ops)
		e = s.reduce(e)
		flag := 0.0
		if root {
			c.err = math.Sqrt(e) / c.normB
			if cfg.goOn(c.err, c.iters+1) {
				flag = 1
			}
			s.charge(endpoint.Ops{Flops: 3})
		}
		c.err = s.bcast(c.err)
		more = s.bcast(flag) != 0
		c.iters++
	}
}

func (c *cgThesis) fullX() []float64 {
	x := make([]float64, c.sys.n)
	for i := range x {
		x[i] = c.x.Float64(i)
	}
	return x
}

// runCGThesisMPI is the MPI version of the thesis variant.
func runCGThesisMPI(m Machine, cfg CGConfig, sys *cgSystem, out *cgOutcome) error {
	P := cfg.Procs
	return runAppMPI(m, cfg.Procs, cfg.Record, func(r *mpi.Rank, must func(error)) {
		k := r.Rank()
		c := newCGThesis(sys, P, k, r.MustAlloc)
		comm := r.CommWorld()
		piece := r.MustAlloc(8 * ownRows(sys.n, P, 0))
		send, recv := r.MustAlloc(8), r.MustAlloc(8)
		steps := cgSteps{charge: r.Thread().Charge}
		steps.distribute = func(int) {
			for root := 0; root < P; root++ {
				if root == k {
					steps.charge(c.pack(piece))
				}
				must(r.Bcast(piece, ownRows(sys.n, P, root), datatype.Float64, root, comm))
				if root != k {
					steps.charge(c.unpack(piece, root))
				}
			}
		}
		if cfg.Distribute == "alltoall" {
			steps.distribute = cgAlltoall(r, c, piece, must)
		}
		steps.reduce = func(v float64) float64 {
			send.SetFloat64(0, v)
			must(r.Reduce(send, recv, 1, datatype.Float64, datatype.OpSum, 0, comm))
			return recv.Float64(0)
		}
		steps.bcast = func(v float64) float64 {
			send.SetFloat64(0, v)
			must(r.Bcast(send, 1, datatype.Float64, 0, comm))
			return send.Float64(0)
		}
		c.loop(cfg, steps)
		out.iters[k], out.err[k] = c.iters, c.err
		out.end[k] = r.Now()
		out.x[k] = c.fullX()
	})
}

// cgAlltoall is DistributeP as one MPI_Alltoallw: the packed own rows to
// every rank (the same block, displacement 0), rank s's rows received
// with a vector type (ownRows(s) doubles at stride P) at byte 8s of p.
func cgAlltoall(r *mpi.Rank, c *cgThesis, piece datatype.Buffer, must func(error)) func(int) {
	P, N := c.P, c.sys.n
	scounts, sdispls := make([]int, P), make([]int, P)
	rcounts, rdispls := make([]int, P), make([]int, P)
	sdts, rdts := make([]*datatype.Datatype, P), make([]*datatype.Datatype, P)
	types := map[int]*datatype.Datatype{}
	for s := 0; s < P; s++ {
		n := ownRows(N, P, s)
		if types[n] == nil {
			t, err := datatype.TypeVector(n, 1, P, datatype.Float64)
			must(err)
			must(t.Commit())
			types[n] = t
		}
		scounts[s], sdts[s] = c.n, datatype.Float64
		rcounts[s], rdispls[s], rdts[s] = 1, 8*s, types[n]
	}
	return func(int) {
		r.Thread().Charge(c.pack(piece))
		must(r.Alltoallw(piece, scounts, sdispls, sdts, c.pFull, rcounts, rdispls, rdts, r.CommWorld()))
	}
}

// cgThesisSyncWords is the native version's synchronisation block.
func cgThesisSyncWords(P int) int { return 4*P + 6 }

// runCGThesisNative is the native version of the thesis variant.
func runCGThesisNative(mc Machine, cfg CGConfig, sys *cgSystem, out *cgOutcome) error {
	m := mc.NewMachine()
	defer m.Close()
	P := cfg.Procs
	// The synchronisation block (same address on every node): pFlag[P],
	// part[2P] and partFlag[P] (node 0's slots for the partials), val[4]
	// and valFlag[2]: two slots for broadcast values, used in turn, since
	// the error and the flag follow each other with no reduce between.
	for k := 0; k < P; k++ {
		node := m.Nodes[k]
		al := &allocator{node: node}
		c := newCGThesis(sys, P, k, al.alloc)
		syn := al.alloc(4 * cgThesisSyncWords(P))
		if al.err != nil {
			return fmt.Errorf("node %d: %w", k, al.err)
		}
		pFlag := syn.Addr
		part := pFlag + uint32(P)
		partFlag := part + uint32(2*P)
		val := partFlag + uint32(P)
		valFlag := val + 4
		node.Start(fmt.Sprintf("cg %d", k), func(t *endpoint.Thread) {
			readF := func(a uint32) float64 {
				return math.Float64frombits(uint64(t.Read(a)) | uint64(t.Read(a+1))<<32)
			}
			steps := cgSteps{charge: t.Charge}
			steps.distribute = func(iter int) {
				seq := uint32(iter + 1)
				lo := c.pFull.Addr + uint32(2*k)
				for d := 1; d < P; d++ {
					dst := (k + d) % P
					_, err := t.SendBlockNB(dst, lo, uint32(2*P), lo, uint32(2*P), c.n)
					mustOK(err)
					_, err = t.SendBlockNB(dst, lo+1, uint32(2*P), lo+1, uint32(2*P), c.n)
					mustOK(err)
					mustOK(t.SendInt(dst, pFlag+uint32(k), seq))
				}
				for d := 1; d < P; d++ {
					t.Poll(pFlag+uint32((k+d)%P), seq)
				}
			}
			var rseq, bseq uint32
			steps.reduce = func(v float64) float64 {
				rseq++
				if k != 0 {
					mustOK(t.SendFloat(0, part+uint32(2*k), v))
					mustOK(t.SendInt(0, partFlag+uint32(k), rseq))
					return 0
				}
				for src := 1; src < P; src++ {
					t.Poll(partFlag+uint32(src), rseq)
					v += readF(part + uint32(2*src))
				}
				t.Charge(endpoint.Ops{Flops: int64(P - 1), Mem: 2 * int64(P-1), Iters: int64(P - 1)})
				return v
			}
			steps.bcast = func(v float64) float64 {
				bseq++
				slot := bseq % 2
				if k != 0 {
					t.Poll(valFlag+slot, bseq)
					return readF(val + 2*slot)
				}
				for d := 1; d < P; d++ {
					mustOK(t.SendFloat(d, val+2*slot, v))
					mustOK(t.SendInt(d, valFlag+slot, bseq))
				}
				return v
			}
			c.loop(cfg, steps)
			out.iters[k], out.err[k] = c.iters, c.err
			out.end[k] = t.Now()
			out.x[k] = c.fullX()
		})
	}
	if err := m.Run(-1); err != nil {
		return err
	}
	return m.CheckQuiescent()
}
