package collgen

import "nocsim/coll"

// The schedule writer as a coll engine: gen runs a coll.Program for one
// rank at a time and writes the operations it posts, with the
// dependencies its waits create (see gen). Data is not moved; a region's
// length is what a message carries, and a region at an offset that is not
// word-aligned costs the copy the chip stages it through.

// run writes rank me's program of prog.
func (g *gen) run(prog coll.Program, me int) {
	// A schedule writer cannot fail: every message is posted and every
	// wait completes in the model, so the program's errors are nil.
	if g.blocks == nil {
		g.blocks = make([]int, g.P)
		for i := range g.blocks {
			g.blocks[i] = int(g.n)
		}
	}
	_ = prog(g, coll.Args{P: g.P, Me: me, Root: g.opt.Root, N: int(g.n), Elem: g.opt.ElemBytes, Blocks: g.blocks, Send: g.blocks, Recv: g.blocks, Tree: g.tree, Grid: g.grid, Ex: g.ex})
}

// framed writes rank me's program of prog inside op's entry and exit:
// the copies the MPI layer makes of the user's data into and out of the
// buffers the algorithm works on (none for a barrier, nor for a
// contiguous broadcast).
func (g *gen) framed(a *coll.Algorithm) func(me int) {
	P, n, prog := g.P, g.n, a.Program
	if a.OptimalTree {
		// Karp et al.'s tree for the options' L, o, g, as mpi builds it
		// from its optimal_L, optimal_o, optimal_g.
		g.tree = coll.OptimalTree(P, g.opt.OptimalL, g.opt.OptimalO, g.opt.OptimalG)
	}
	if a.MeshGrid {
		g.grid = coll.RowMajor(P, g.meshWidth()) // rank i on tile i, as a World places them
	}
	switch a.Op {
	case "reduce_scatter":
		// Rank i's block is k/P of the k elements, the last taking the
		// remainder.
		k, es := int(n)/g.opt.ElemBytes, g.opt.ElemBytes
		g.blocks = make([]int, P)
		for i := range g.blocks {
			g.blocks[i] = k / P * es
		}
		g.blocks[P-1] += k % P * es
	case "allgather":
		// Every rank works on one buffer of the P blocks, each padded to
		// whole words; the user's buffer is that layout when blocks are
		// whole words.
		return func(me int) {
			g.copies(n) // the rank's own block into the working buffer
			g.run(prog, me)
			if n%4 != 0 {
				for range P {
					g.copies(n) // every block out of the working buffer
				}
			}
		}
	case "alltoall":
		if a.Varying != nil {
			break // the program moves the user's blocks itself
		}
		// Blocks go straight from and to the user's buffer when they
		// start on a word, else through packed scratch; the rank's own
		// block is copied.
		staged := func(j int) bool { return n > 0 && int64(j)*n%4 != 0 }
		return func(me int) {
			for j := range P {
				if j != me && staged(j) {
					g.copies(n) // pack outgoing block j
				}
			}
			g.copies(n) // own block
			g.run(prog, me)
			for j := range P {
				if j != me && staged(j) {
					g.copies(n) // unpack incoming block j
				}
			}
		}
	}
	return func(me int) { g.run(prog, me) }
}

// meshWidth is the options' mesh width, or the smallest square's.
func (g *gen) meshWidth() int {
	if g.opt.MeshW == 0 {
		return coll.SquareWidth(g.P)
	}
	return g.opt.MeshW
}

// genStep is a coll.Step of the writer.
type genStep struct {
	g      *gen
	s      step
	staged []int64 // messages received unaligned, each copied out after the wait
}

func (g *gen) Step() coll.Step { return &genStep{g: g} }

// unaligned reports whether r is staged through scratch on the chip. The
// root's blocks of a scatter or gather lie one after the other in the
// user's contiguous buffer, block i at i*n.
func (g *gen) unaligned(r coll.Region) bool {
	off := r.Off
	if r.Buf == coll.RootBlock {
		off += r.Block * int(g.n)
	}
	return r.Len > 0 && off%4 != 0
}

func (st *genStep) Send(peer int, r coll.Region) {
	g := st.g
	if g.unaligned(r) {
		g.copies(int64(r.Len))
	}
	g.isend(&st.s, peer, int64(r.Len))
	if g.answer >= 0 {
		// An Asks answer: it goes out once its request is in.
		g.b.Require(g.me, st.s[len(st.s)-1].op, g.answer)
		g.answer = -1
	}
}

func (st *genStep) Recv(peer int, r coll.Region) {
	if st.g.unaligned(r) {
		st.staged = append(st.staged, int64(r.Len))
	}
	st.g.irecv(&st.s, peer, int64(r.Len))
}

func (st *genStep) Wait() error {
	g := st.g
	st.s = append(st.s, g.asked...)
	g.asked = g.asked[:0]
	g.wait(&st.s)
	for _, n := range st.staged {
		g.copies(n) // each copy is charged in whole words
	}
	st.staged = st.staged[:0]
	return nil
}

// WaitAll is Wait: a schedule has no call overheads.
func (st *genStep) WaitAll() error { return st.Wait() }

// blocking is a step for one blocking call, on the writer's reused
// storage (done hands it back).
func (g *gen) blocking() genStep { return genStep{g: g, s: g.spare[:0], staged: g.staged[:0]} }

func (g *gen) done(st *genStep) { g.spare, g.staged = st.s[:0], st.staged[:0] }

func (g *gen) Send(peer int, r coll.Region) error {
	st := g.blocking()
	defer g.done(&st)
	st.Send(peer, r)
	return st.Wait()
}

func (g *gen) Recv(peer int, r coll.Region) error {
	st := g.blocking()
	defer g.done(&st)
	st.Recv(peer, r)
	return st.Wait()
}

// SendRecv stages an unaligned send first, then posts the receive and
// the send, as the MPI layer's exchange does.
func (g *gen) SendRecv(dst int, s coll.Region, src int, r coll.Region) error {
	if g.unaligned(s) {
		g.copies(int64(s.Len))
	}
	st := g.blocking()
	defer g.done(&st)
	st.Recv(src, r)
	g.isend(&st.s, dst, int64(s.Len))
	return st.Wait()
}

// Alloc allocates nothing: a schedule moves no data.
func (g *gen) Alloc(coll.Buf, int) error { return nil }

// Copy charges the copy (or the pack or unpack of a user's block).
func (g *gen) Copy(_, src coll.Region) error {
	g.copies(int64(src.Len))
	return nil
}

// Combine charges combining the elements dst holds.
func (g *gen) Combine(dst, _ coll.Region) error {
	g.flops(int64(dst.Len / g.opt.ElemBytes))
	return nil
}

// Charge charges writing n bytes.
func (g *gen) Charge(n int) { g.copies(int64(n)) }

// PutSizes writes nothing; Sizes gives every block n bytes, as a schedule
// is generated for the regular (not vector) operations.
func (g *gen) PutSizes(coll.Region, []int) {}

func (g *gen) Sizes(src coll.Region) []int {
	sz := make([]int, src.Len/4)
	for j := range sz {
		sz[j] = int(g.n)
	}
	return sz
}

// Own charges the root's copy of its own block.
func (g *gen) Own() error {
	g.copies(g.n)
	return nil
}

// RootTree: the root's contiguous buffer holds block i at i*n, which is
// the tree layout when the root is 0 and blocks are whole words (or
// empty).
func (g *gen) RootTree([]int) bool { return g.opt.Root == 0 && g.n%4 == 0 || g.n == 0 }

// genAsks answers requests in the order they were posted; each answer
// requires its request (Send), and the next wait completes them all.
type genAsks struct {
	g   *gen
	ops []int32
	k   int
}

func (g *gen) Asks(peers []int) (coll.Asks, error) {
	a := &genAsks{g: g}
	for _, p := range peers {
		var s step
		g.irecv(&s, p, 0)
		a.ops = append(a.ops, s[0].op)
	}
	return a, nil
}

func (a *genAsks) Next() (int, error) {
	g := a.g
	g.answer = a.ops[a.k]
	g.asked = append(g.asked, pend{a.ops[a.k], -1})
	a.k++
	return a.k - 1, nil
}
