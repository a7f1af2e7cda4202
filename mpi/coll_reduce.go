package mpi

import (
	"fmt"
	"math/bits"
)

// Reductions: MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter(_block),
// MPI_Scan and MPI_Exscan. Every algorithm works on packed bytes; a
// non-commutative op is always combined in rank order (x_0 op x_1 op ...),
// and the algorithms that cannot keep that order fall back to one that can.

func init() {
	for _, a := range []Algorithm{
		{Op: "reduce", Name: "binomial", Source: "after Poole 2004 figure 4.3 (ranks renumbered around the root)", Messages: "P-1 (+1 if non-commutative and root != 0)"},
		{Op: "reduce", Name: "flat", Source: "standard (MPICH linear)", Messages: "P-1"},
		{Op: "reduce", Name: "reduce_scatter_gather", Source: "standard (MPICH): Rabenseifner reduce-scatter + gather", Messages: "P log2 P + P-1 (P a power of two)"},
		{Op: "allreduce", Name: "reduce_bcast", Source: "Poole 2004 (SCMP thesis) §4.2.4; Nicholson & Goozen, Cray X1 MPI", Messages: "2(P-1)"},
		{Op: "allreduce", Name: "recursive_doubling", Source: "standard (MPICH)", Messages: "P log2 P (P a power of two)"},
		{Op: "allreduce", Name: "ring", Source: "standard (MPICH): ring reduce-scatter + ring allgather", Messages: "2P(P-1)"},
		{Op: "reduce_scatter", Name: "reduce_scatterv", Source: "Nicholson & Goozen, Cray X1 MPI", Messages: "2(P-1)"},
		{Op: "reduce_scatter", Name: "ring", Source: "standard (MPICH)", Messages: "P(P-1)"},
		{Op: "reduce_scatter", Name: "recursive_halving", Source: "standard (MPICH)", Messages: "P log2 P (P a power of two)"},
		{Op: "scan", Name: "chain", Source: "Poole 2004 (SCMP thesis) §4.2.4; Nicholson & Goozen, Cray X1 MPI", Messages: "P-1"},
		{Op: "scan", Name: "recursive_doubling", Source: "standard (MPICH)", Messages: "P log2 P - P + 1 (P a power of two)"},
	} {
		register(a)
	}
}

// Reduce is MPI_Reduce: rbuf at root gets the reduction of every rank's
// sbuf. sbuf may be InPlace at the root, which then reduces rbuf.
func (r *Rank) Reduce(sbuf, rbuf Buffer, count int, dt *Datatype, op *Op, root int, c *Comm) error {
	bytes := count * dt.Size()
	x, err := r.beginColl("MPI_Reduce", c, argsIS("root=%d, %d bytes, %s", redOpName(op), root, bytes))
	if err != nil {
		return err
	}
	defer x.end(bytes)
	P, me := c.Size(), c.Rank()
	if root < 0 || root >= P {
		return errorf(ErrRank, x.name, "root %d outside 0..%d", root, P-1)
	}
	inPlace := isInPlace(sbuf)
	if inPlace && me != root {
		return errorf(ErrArg, x.name, "MPI_IN_PLACE is only allowed at the root")
	}
	rd, err := x.newRed(op, dt)
	if err != nil {
		return err
	}
	defer rd.release()
	if !inPlace {
		if err := x.check("send buffer", sbuf, count, dt); err != nil {
			return err
		}
	}
	var in, out Buffer
	if me == root {
		if err := x.check("receive buffer", rbuf, count, dt); err != nil {
			return err
		}
		b, done, err := x.contig(rbuf, count, dt)
		if err != nil {
			return err
		}
		defer done()
		out = b
	}
	if inPlace {
		in = out
	} else {
		b, done, err := x.contig(sbuf, count, dt)
		if err != nil {
			return err
		}
		defer done()
		in = b
	}
	alg := x.pick("reduce", r.w.Cfg.Reduce, bytes, "binomial", "reduce_scatter_gather")
	if (alg == "reduce_scatter_gather" || alg == "ring" || alg == "mesh") && !op.Commutative() {
		alg = rd.fallback("binomial") // recursive halving, the ring and the mesh's tree reorder operands
	}
	switch alg {
	case "thesis":
		// Figure 4.3: halving to rank 0, which forwards to another root.
		err = rd.reduceTree(in, out, count, root, 0)
	case "binomial":
		err = rd.reduceBinomial(in, out, count, root)
	case "flat":
		err = rd.reduceFlat(in, out, count, root)
	case "reduce_scatter_gather":
		err = rd.reduceRSG(in, out, count, root)
	case "ring":
		err = rd.reduceRing(in, out, count, root)
	case "mesh":
		err = rd.meshReduce(in, out, count, root)
	default:
		err = errorf(ErrArg, x.name, "unknown reduce algorithm %q", alg)
	}
	if err != nil || me != root {
		return err
	}
	return x.scatterBack(out, rbuf, count, dt)
}

// Allreduce is MPI_Allreduce: every rank's rbuf gets the reduction of every
// rank's sbuf (InPlace: of every rank's rbuf).
func (r *Rank) Allreduce(sbuf, rbuf Buffer, count int, dt *Datatype, op *Op, c *Comm) error {
	bytes := count * dt.Size()
	x, err := r.beginColl("MPI_Allreduce", c, argsIS("%d bytes, %s", redOpName(op), bytes))
	if err != nil {
		return err
	}
	defer x.end(bytes)
	rd, err := x.newRed(op, dt)
	if err != nil {
		return err
	}
	defer rd.release()
	in, out, inPlace, done, err := rd.buffers(sbuf, rbuf, count, count)
	if err != nil {
		return err
	}
	defer done()
	alg := x.pick("allreduce", r.w.Cfg.Allreduce, bytes, "recursive_doubling", "ring")
	if (alg == "ring" || alg == "reduce_scatter_allgather" || alg == "mesh") && !op.Commutative() {
		alg = rd.fallback("recursive_doubling") // all three reorder the operands
	}
	switch alg {
	case "thesis":
		// Section 6.4: MPI_Allreduce calls MPI_Reduce and MPI_Bcast.
		r.thesisCall()
		if err = rd.reduceTree(in, out, count, 0, 0); err == nil {
			r.thesisCall()
			err = rd.rtBcastFlat(out, bytes, 0)
		}
	case "reduce_bcast":
		if err = rd.reduceBinomial(in, out, count, 0); err == nil {
			err = rd.bcastBinomial(out, bytes, 0)
		}
	case "recursive_doubling":
		err = rd.allreduceRD(in, out, count)
	case "ring":
		err = rd.allreduceRing(in, out, count, inPlace)
	case "reduce_scatter_allgather":
		err = rd.allreduceRSAG(in, out, count)
	case "mesh":
		err = rd.meshAllreduce(in, out, count)
	default:
		err = errorf(ErrArg, x.name, "unknown allreduce algorithm %q", alg)
	}
	if err != nil {
		return err
	}
	return x.scatterBack(out, rbuf, count, dt)
}

// ReduceScatter is MPI_Reduce_scatter: the reduction of every rank's
// sbuf (sum(rcounts) elements) is split in blocks of rcounts[i] elements,
// block i going to rank i's rbuf. With InPlace the input is rbuf and the
// result lands at its start.
func (r *Rank) ReduceScatter(sbuf, rbuf Buffer, rcounts []int, dt *Datatype, op *Op, c *Comm) error {
	bytes := make([]int, len(rcounts))
	for i, n := range rcounts {
		bytes[i] = n * dt.Size()
	}
	return r.reduceScatter("MPI_Reduce_scatter", argsIS("%s", fmt.Sprintf("%v bytes, %s", bytes, redOpName(op))), sbuf, rbuf, rcounts, dt, op, c)
}

// ReduceScatterBlock is MPI_Reduce_scatter_block: ReduceScatter with
// rcount elements for every rank.
func (r *Rank) ReduceScatterBlock(sbuf, rbuf Buffer, rcount int, dt *Datatype, op *Op, c *Comm) error {
	if err := r.checkComm("MPI_Reduce_scatter_block", c); err != nil {
		return err
	}
	rcounts := make([]int, c.Size())
	for i := range rcounts {
		rcounts[i] = rcount
	}
	return r.reduceScatter("MPI_Reduce_scatter_block", argsIS("%d bytes each, %s", redOpName(op), rcount*dt.Size()), sbuf, rbuf, rcounts, dt, op, c)
}

func (r *Rank) reduceScatter(name string, key collArgs, sbuf, rbuf Buffer, rcounts []int, dt *Datatype, op *Op, c *Comm) error {
	x, err := r.beginColl(name, c, key)
	if err != nil {
		return err
	}
	P, me := c.Size(), c.Rank()
	if len(rcounts) != P {
		defer x.end(0)
		return errorf(ErrArg, name, "%d receive counts for %d ranks", len(rcounts), P)
	}
	offs := make([]int, P+1)
	for i, n := range rcounts {
		if n < 0 {
			defer x.end(0)
			return errorf(ErrCount, name, "receive count %d of rank %d must be >= 0", n, i)
		}
		offs[i+1] = offs[i] + n
	}
	total := offs[P]
	defer x.end(total * dt.Size())
	rd, err := x.newRed(op, dt)
	if err != nil {
		return err
	}
	defer rd.release()
	in, out, inPlace, done, err := rd.buffers(sbuf, rbuf, total, rcounts[me])
	if err != nil {
		return err
	}
	defer done()
	alg := x.pick("reduce_scatter", r.w.Cfg.ReduceScatter, total*dt.Size(), "recursive_halving", "ring")
	if (alg == "ring" || alg == "recursive_halving") && !op.Commutative() {
		alg = rd.fallback("reduce_scatterv") // both reorder operands
	}
	switch alg {
	case "thesis":
		// A Reduce to rank 0 (the halving tree: its root is 0) and a
		// Scatterv from it, each a call of its own.
		r.thesisCall()
		r.thesisCall()
		err = rd.reduceScatterv(in, out, offs, inPlace)
	case "reduce_scatterv":
		err = rd.reduceScatterv(in, out, offs, inPlace)
	case "ring":
		err = rd.ringRS(in, offs, out, inPlace)
	case "recursive_halving":
		err = rd.reduceScatterHalving(in, out, offs)
	default:
		err = errorf(ErrArg, name, "unknown reduce_scatter algorithm %q", alg)
	}
	if err != nil {
		return err
	}
	return x.scatterBack(out, rbuf, rcounts[me], dt)
}

// Scan is MPI_Scan: rank i's rbuf gets x_0 op ... op x_i.
func (r *Rank) Scan(sbuf, rbuf Buffer, count int, dt *Datatype, op *Op, c *Comm) error {
	return r.scan("MPI_Scan", false, sbuf, rbuf, count, dt, op, c)
}

// Exscan is MPI_Exscan: rank i > 0 gets x_0 op ... op x_{i-1}; rank 0's
// rbuf is left unchanged (MPI leaves it undefined).
func (r *Rank) Exscan(sbuf, rbuf Buffer, count int, dt *Datatype, op *Op, c *Comm) error {
	return r.scan("MPI_Exscan", true, sbuf, rbuf, count, dt, op, c)
}

func (r *Rank) scan(name string, ex bool, sbuf, rbuf Buffer, count int, dt *Datatype, op *Op, c *Comm) error {
	bytes := count * dt.Size()
	x, err := r.beginColl(name, c, argsIS("%d bytes, %s", redOpName(op), bytes))
	if err != nil {
		return err
	}
	defer x.end(bytes)
	rd, err := x.newRed(op, dt)
	if err != nil {
		return err
	}
	defer rd.release()
	in, out, _, done, err := rd.buffers(sbuf, rbuf, count, count)
	if err != nil {
		return err
	}
	defer done()
	switch alg := x.pick("scan", r.w.Cfg.Scan, bytes, "recursive_doubling", "recursive_doubling"); alg {
	case "chain":
		err = rd.scanChain(in, out, count, ex)
	case "recursive_doubling":
		err = rd.scanRD(in, out, count, ex)
	default:
		err = errorf(ErrArg, name, "unknown scan algorithm %q", alg)
	}
	if err != nil || ex && c.Rank() == 0 {
		return err
	}
	return x.scatterBack(out, rbuf, count, dt)
}

func redOpName(o *Op) string {
	if o == nil {
		return "<nil op>"
	}
	return o.Name()
}

// redColl is a reduction in progress: the collective, its op and the type
// of its elements, which the algorithms handle packed, es bytes each.
type redColl struct {
	*coll
	o       *Op
	t       *Datatype
	es      int
	scratch []Buffer // freed by release
}

// newRed checks that op can combine elements of t.
func (x *coll) newRed(o *Op, t *Datatype) (*redColl, error) {
	switch {
	case o == nil:
		return nil, errorf(ErrArg, x.name, "op is nil")
	case t == nil || !t.Committed():
		return nil, errorf(ErrType, x.name, "datatype not committed")
	case o.user != nil:
	case o.loc != 0:
		if t != Float64Int32 && t != Float32Int32 && t != TwoInt32 {
			return nil, errorf(ErrType, x.name, "%s needs Float64Int32, Float32Int32 or TwoInt32", o.name)
		}
	case !t.predef || len(t.runs) != 1:
		return nil, errorf(ErrType, x.name, "%s needs a predefined datatype", o.name)
	}
	r := x.r
	var rd *redColl
	if k := len(r.freeRed); k > 0 {
		rd = r.freeRed[k-1]
		r.freeRed[k-1] = nil
		r.freeRed = r.freeRed[:k-1]
	} else {
		rd = &redColl{}
	}
	*rd = redColl{coll: x, o: o, t: t, es: t.Size(), scratch: rd.scratch[:0]}
	return rd, nil
}

func (rd *redColl) fallback(alg string) string {
	rd.alg = alg
	return alg
}

// buffers checks and packs the arguments of an operation whose every rank
// has an input of n elements and a result of m: sbuf, or rbuf with InPlace.
// The result goes to the start of out.
func (rd *redColl) buffers(sbuf, rbuf Buffer, n, m int) (in, out Buffer, inPlace bool, done func(), err error) {
	x := rd.coll
	inPlace = isInPlace(sbuf)
	if inPlace {
		if err = x.check("receive buffer", rbuf, n, rd.t); err != nil {
			return
		}
		if in, done, err = x.contig(rbuf, n, rd.t); err != nil {
			return
		}
		out, err = in.Slice(0, m*rd.es)
		return
	}
	if err = x.check("send buffer", sbuf, n, rd.t); err == nil {
		err = x.check("receive buffer", rbuf, m, rd.t)
	}
	if err != nil {
		return
	}
	in, d1, err := x.contig(sbuf, n, rd.t)
	if err != nil {
		return
	}
	out, d2, err := x.contig(rbuf, m, rd.t)
	if err != nil {
		d1()
		return
	}
	if rd.t.Contiguous() {
		return in, out, false, noop, nil // nothing was packed
	}
	return in, out, false, func() { d2(); d1() }, nil
}

func noop() {}

// newBuf is scratch of n bytes, freed when the operation ends.
func (rd *redColl) newBuf(n int) (Buffer, error) {
	b, err := rd.alloc(n)
	if err != nil {
		return Buffer{}, err
	}
	rd.scratch = append(rd.scratch, b)
	return b, nil
}

// release frees the scratch and hands the record back to its rank.
func (rd *redColl) release() {
	for _, b := range rd.scratch {
		rd.free(b)
	}
	clear(rd.scratch)
	r := rd.r
	*rd = redColl{scratch: rd.scratch[:0]}
	r.freeRed = append(r.freeRed, rd)
}

// combine computes inout = in op inout over count packed elements.
func (rd *redColl) combine(in, inout Buffer, count int) error {
	if count == 0 {
		return nil
	}
	if rd.o.user == nil || rd.t.Contiguous() {
		return rd.reduce(rd.o, in, inout, count, rd.t)
	}
	// A user function works on its datatype's layout, not on packed bytes.
	span := rd.t.Span(count)
	a, err := rd.alloc(span)
	if err != nil {
		return err
	}
	defer rd.free(a)
	b, err := rd.alloc(span)
	if err != nil {
		return err
	}
	defer rd.free(b)
	p, q := 0, 0
	if err := Unpack(in.Bytes, &p, a.Bytes, count, rd.t); err != nil {
		return err
	}
	if err := Unpack(inout.Bytes, &q, b.Bytes, count, rd.t); err != nil {
		return err
	}
	if err := rd.reduce(rd.o, a, b, count, rd.t); err != nil {
		return err
	}
	p = 0
	rd.r.t.Compute(3 * rd.r.w.M.CPU.CopyCyclesPerWord * int64((count*rd.es+3)/4))
	return Pack(b.Bytes, count, rd.t, inout.Bytes, &p)
}

// redAt is n bytes of b from byte off, for local work only: off need not
// be a word boundary, which the DMA engine needs.
func redAt(b Buffer, off, n int) Buffer {
	return Buffer{Addr: b.Addr + uint32(off/4), Bytes: b.Bytes[off : off+n]}
}

// redSame reports whether a and b start at the same byte.
func redSame(a, b Buffer) bool {
	return len(a.Bytes) > 0 && len(b.Bytes) > 0 && &a.Bytes[0] == &b.Bytes[0]
}

// msg is n bytes of b from byte off ready to send: a slice when off is a
// word boundary, else a copy in *scr (grown as needed).
func (rd *redColl) msg(b Buffer, off, n int, scr *Buffer) (Buffer, error) {
	if off%4 == 0 {
		return b.Slice(off, n)
	}
	if scr.Len() < n {
		s, err := rd.newBuf(n)
		if err != nil {
			return Buffer{}, err
		}
		*scr = s
	}
	rd.copy(*scr, redAt(b, off, n), n)
	return scr.Slice(0, n)
}

// redSplit cuts count elements of es bytes into parts blocks, block i
// being elements off[i]..off[i+1], every block starting on a word.
func redSplit(count, parts, es int) []int {
	g := 1
	for g*es%4 != 0 {
		g++
	}
	units := count / g
	off := make([]int, parts+1)
	for i := range parts {
		off[i] = g * (units * i / parts)
	}
	off[parts] = count
	return off
}

// absorbFolded is the fold's first step on an odd rank below 2*rem: it
// takes its even partner's vector and combines it into acc.
func (rd *redColl) absorbFolded(acc Buffer, n, count, me int, f redFold) error {
	if me >= 2*f.rem {
		return nil
	}
	tmp, err := rd.newBuf(n)
	if err != nil {
		return err
	}
	if err := rd.recv(tmp, n, me-1); err != nil {
		return err
	}
	return rd.combine(tmp, acc, count)
}

// redFold describes how a non-power-of-two P folds onto pof2 ranks: the
// first 2*rem ranks pair up, the even one of each pair handing its data
// to the odd one; new rank j stands for ranks of the same order. With
// ranks set, the P ranks are ranks[0..P-1] of the communicator (a mesh
// row or column, coll_mesh_dims.go), and real gives communicator ranks.
type redFold struct {
	pof2, rem int
	ranks     []int
}

func newRedFold(P int) redFold {
	pof2 := 1 << (bits.Len(uint(P)) - 1)
	return redFold{pof2: pof2, rem: P - pof2}
}

// real is the rank acting as new rank j.
func (f redFold) real(j int) int {
	i := j + f.rem
	if j < f.rem {
		i = 2*j + 1
	}
	if f.ranks != nil {
		return f.ranks[i]
	}
	return i
}

// newRank is rank i's new rank, or -1 for the even rank of a folded pair.
func (f redFold) newRank(i int) int {
	switch {
	case i >= 2*f.rem:
		return i - f.rem
	case i%2 == 1:
		return i / 2
	}
	return -1
}

// reduceBinomial is the thesis's halving reduction (figure 4.3): in round
// k the ranks (relative to the root) with bit k set send their partial
// result to the partner with it clear. out, which may be in, gets the
// result at root. Relabelling the ranks about the root would reorder a
// non-commutative op, so that reduces to rank 0, which forwards the result.
func (rd *redColl) reduceBinomial(in, out Buffer, count, root int) error {
	r0 := root
	if !rd.o.Commutative() {
		r0 = 0
	}
	return rd.reduceTree(in, out, count, root, r0)
}

// reduceTree is the halving reduction to rank r0 (every rank relabelled
// about it), which forwards the result to root if that is another rank.
// The thesis profile always reduces to r0 = 0, as figure 4.3 does.
func (rd *redColl) reduceTree(in, out Buffer, count, root, r0 int) error {
	P, me, n := rd.c.Size(), rd.c.Rank(), count*rd.es
	vr := (me - r0 + P) % P
	cur := in // the partial result over virtual ranks vr..vr+mask-1
	var bufs [2]Buffer
	which := 0
	for mask := 1; mask < P; mask <<= 1 {
		if vr&mask != 0 {
			if err := rd.send(cur, n, (vr-mask+r0)%P); err != nil {
				return err
			}
			break
		}
		if vr+mask >= P {
			continue
		}
		if bufs[which].Bytes == nil {
			b, err := rd.newBuf(n)
			if err != nil {
				return err
			}
			bufs[which] = b
		}
		b := bufs[which]
		if err := rd.recv(b, n, (vr+mask+r0)%P); err != nil {
			return err
		}
		// The received partial covers higher ranks: b = cur op b.
		if err := rd.combine(cur, b, count); err != nil {
			return err
		}
		cur, which = b, which^1
	}
	switch me {
	case r0:
		if r0 != root {
			return rd.send(cur, n, root)
		}
		if !redSame(cur, out) {
			rd.copy(out, cur, n)
		}
	case root:
		return rd.recv(out, n, r0)
	}
	return nil
}

// bcastBinomial broadcasts n bytes of buf from root, as Bcast's binomial
// tree does.
func (rd *redColl) bcastBinomial(buf Buffer, n, root int) error {
	return rd.rtBcastBinomial(buf, n, root)
}

// reduceFlat: every rank sends to the root, which folds the vectors in
// rank order as they come, receiving the next one while it reduces.
func (rd *redColl) reduceFlat(in, out Buffer, count, root int) error {
	P, me, n := rd.c.Size(), rd.c.Rank(), count*rd.es
	if me != root {
		return rd.send(in, n, root)
	}
	var spare []Buffer
	get := func() (Buffer, error) {
		if k := len(spare); k > 0 {
			b := spare[k-1]
			spare = spare[:k-1]
			return b, nil
		}
		return rd.newBuf(n)
	}
	type pending struct {
		q *Request
		b Buffer
	}
	reqs := make([]pending, P)
	post := func(i int) error {
		if i == root {
			i++
		}
		if i >= P {
			return nil
		}
		b, err := get()
		if err != nil {
			return err
		}
		q, err := rd.irecv(b, n, i)
		reqs[i] = pending{q, b}
		return err
	}
	if err := post(0); err != nil {
		return err
	}
	var cur Buffer // x_0 op ... op x_{i-1}
	owned := false // cur is scratch
	for i := range P {
		var v Buffer
		if i == root {
			if i == 0 {
				cur = in
				continue
			}
			b, err := get()
			if err != nil {
				return err
			}
			rd.copy(b, in, n)
			v = b
		} else {
			if err := post(i + 1); err != nil {
				return err
			}
			if err := rd.waitall(reqs[i].q); err != nil {
				return err
			}
			v = reqs[i].b
		}
		if i > 0 {
			if err := rd.combine(cur, v, count); err != nil {
				return err
			}
			if owned {
				spare = append(spare, cur)
			}
		}
		cur, owned = v, true
	}
	if !redSame(cur, out) {
		rd.copy(out, cur, n)
	}
	return nil
}

// reduceRSG is Rabenseifner's reduction for long vectors (commutative ops
// only): a reduce-scatter by recursive halving leaves each rank a block of
// the result, and a binomial gather along the same pairs brings the blocks
// to the root. A non-power-of-two P first folds its extra ranks.
func (rd *redColl) reduceRSG(in, out Buffer, count, root int) error {
	P, me, es := rd.c.Size(), rd.c.Rank(), rd.es
	n := count * es
	f := newRedFold(P)
	nr, newRoot := f.newRank(me), f.newRank(root)
	if newRoot < 0 {
		newRoot = root / 2 // the partner gathers, then hands over
	}
	if nr < 0 {
		if err := rd.send(in, n, me+1); err != nil {
			return err
		}
		if me == root {
			return rd.recv(out, n, me+1)
		}
		return nil
	}
	acc := out
	if me != root {
		b, err := rd.newBuf(n)
		if err != nil {
			return err
		}
		acc = b
	}
	if !redSame(acc, in) {
		rd.copy(acc, in, n)
	}
	if err := rd.absorbFolded(acc, n, count, me, f); err != nil {
		return err
	}
	bo := redSplit(count, f.pof2, es)
	if err := rd.halve(acc, bo, nr, f); err != nil {
		return err
	}
	// Gather: in round m the ranks whose bit m differs from the new
	// root's hand their m blocks to the partner and stop.
	for m := 1; m < f.pof2; m <<= 1 {
		peer := nr ^ m
		lo := nr &^ (m - 1)
		if nr&m != newRoot&m {
			b, err := acc.Slice(bo[lo]*es, (bo[lo+m]-bo[lo])*es)
			if err != nil {
				return err
			}
			return rd.send(b, b.Len(), f.real(peer))
		}
		lo = peer &^ (m - 1)
		b, err := acc.Slice(bo[lo]*es, (bo[lo+m]-bo[lo])*es)
		if err != nil {
			return err
		}
		if err := rd.recv(b, b.Len(), f.real(peer)); err != nil {
			return err
		}
	}
	if me != root {
		return rd.send(acc, n, root)
	}
	return nil
}

// halve is the recursive-halving reduce-scatter (commutative ops) among
// the pof2 ranks f leaves: acc holds this rank's vector, new rank j's
// block being elements bo[j]..bo[j+1]. In each round partners swap the
// halves of their current range each gives up, so on return acc's block nr
// is reduced over every rank.
func (rd *redColl) halve(acc Buffer, bo []int, nr int, f redFold) error {
	es := rd.es
	var tmp, scr Buffer
	lo := 0
	for mask := f.pof2 / 2; mask > 0; mask >>= 1 {
		keep, give := lo, lo+mask
		if nr&mask != 0 {
			keep, give = give, keep
		}
		ko, kn := bo[keep]*es, (bo[keep+mask]-bo[keep])*es
		sb, err := rd.msg(acc, bo[give]*es, (bo[give+mask]-bo[give])*es, &scr)
		if err != nil {
			return err
		}
		if tmp.Len() < kn || tmp.Bytes == nil {
			// Kept ranges nest, so the first is the largest.
			if tmp, err = rd.newBuf(kn); err != nil {
				return err
			}
		}
		peer := f.real(nr ^ mask)
		if err := rd.sendrecv(sb, sb.Len(), peer, tmp, kn, peer); err != nil {
			return err
		}
		if err := rd.combine(tmp, redAt(acc, ko, kn), bo[keep+mask]-bo[keep]); err != nil {
			return err
		}
		lo = keep
	}
	return nil
}

// allreduceRD is recursive doubling: log2 P rounds in which partners at
// distance 2^k swap partial results. A non-power-of-two P folds its extra
// ranks in first and hands them the result last. Partials are combined
// lower rank first, so a non-commutative op keeps rank order.
func (rd *redColl) allreduceRD(in, out Buffer, count int) error {
	P, me, n := rd.c.Size(), rd.c.Rank(), count*rd.es
	f := newRedFold(P)
	nr := f.newRank(me)
	if nr < 0 {
		if err := rd.send(in, n, me+1); err != nil {
			return err
		}
		return rd.recv(out, n, me+1)
	}
	if !redSame(in, out) {
		rd.copy(out, in, n)
	}
	acc, tmp := out, Buffer{}
	if P > 1 {
		b, err := rd.newBuf(n)
		if err != nil {
			return err
		}
		tmp = b
	}
	if me < 2*f.rem {
		if err := rd.recv(tmp, n, me-1); err != nil {
			return err
		}
		if err := rd.combine(tmp, acc, count); err != nil {
			return err
		}
	}
	for mask := 1; mask < f.pof2; mask <<= 1 {
		pn := nr ^ mask
		peer := f.real(pn)
		if err := rd.sendrecv(acc, n, peer, tmp, n, peer); err != nil {
			return err
		}
		if pn < nr || rd.o.Commutative() {
			if err := rd.combine(tmp, acc, count); err != nil {
				return err
			}
		} else {
			if err := rd.combine(acc, tmp, count); err != nil {
				return err
			}
			acc, tmp = tmp, acc
		}
	}
	if !redSame(acc, out) {
		rd.copy(out, acc, n)
	}
	if me < 2*f.rem {
		return rd.send(out, n, me-1)
	}
	return nil
}

// allreduceRing is a ring reduce-scatter then a ring allgather, 2(P-1)
// steps each moving 1/P of the vector (commutative ops only).
func (rd *redColl) allreduceRing(in, out Buffer, count int, inPlace bool) error {
	P, me, es := rd.c.Size(), rd.c.Rank(), rd.es
	bo := redSplit(count, P, es)
	blk := func(i int) (Buffer, error) {
		i = (i%P + P) % P
		return out.Slice(bo[i]*es, (bo[i+1]-bo[i])*es)
	}
	mine, err := blk(me)
	if err != nil {
		return err
	}
	if err := rd.ringRS(in, bo, mine, inPlace); err != nil {
		return err
	}
	right, left := (me+1)%P, (me-1+P)%P
	for s := 0; s < P-1; s++ {
		sb, err := blk(me - s)
		if err != nil {
			return err
		}
		rb, err := blk(me - s - 1)
		if err != nil {
			return err
		}
		if err := rd.sendrecv(sb, sb.Len(), right, rb, rb.Len(), left); err != nil {
			return err
		}
	}
	return nil
}

// ringRS is the ring reduce-scatter (commutative ops only): in holds this
// rank's vector, block i being elements bo[i]..bo[i+1]. In step s a rank
// passes its partial of block me-s-1 to the right and adds its own data to
// the partial of block me-s-2 from the left, so after P-1 steps it holds
// block me reduced over every rank, which goes to dst. inPlace says dst
// lies inside in.
func (rd *redColl) ringRS(in Buffer, bo []int, dst Buffer, inPlace bool) error {
	P, me, es := rd.c.Size(), rd.c.Rank(), rd.es
	blk := func(i int) (off, n, count int) {
		i = (i%P + P) % P
		return bo[i] * es, (bo[i+1] - bo[i]) * es, bo[i+1] - bo[i]
	}
	if P == 1 {
		if _, n, _ := blk(0); !redSame(in, dst) {
			rd.copy(dst, in, n)
		}
		return nil
	}
	most := 0
	for i := range P {
		_, n, _ := blk(i)
		most = max(most, n)
	}
	var tmp [2]Buffer
	for i := range tmp {
		b, err := rd.newBuf(most)
		if err != nil {
			return err
		}
		tmp[i] = b
	}
	var scr Buffer
	so, sn, _ := blk(me - 1)
	sb, err := rd.msg(in, so, sn, &scr)
	if err != nil {
		return err
	}
	right, left := (me+1)%P, (me-1+P)%P
	for s := 0; s < P-1; s++ {
		ro, rn, rc := blk(me - s - 2)
		rb := tmp[s%2]
		if s == P-2 && !inPlace {
			rb = dst
		}
		if err := rd.sendrecv(sb, sn, right, rb, rn, left); err != nil {
			return err
		}
		if err := rd.combine(redAt(in, ro, rn), rb, rc); err != nil {
			return err
		}
		sb, sn = rb, rn
	}
	if inPlace {
		rd.copy(dst, sb, sn)
	}
	return nil
}

// reduceScatterv reduces the whole vector to rank 0 down the binomial
// tree, which then sends every rank its block, as the Cray X1 does.
func (rd *redColl) reduceScatterv(in, out Buffer, offs []int, inPlace bool) error {
	P, me, es := rd.c.Size(), rd.c.Rank(), rd.es
	total := offs[P]
	acc := in
	if me == 0 && !inPlace {
		b, err := rd.newBuf(total * es)
		if err != nil {
			return err
		}
		acc = b
	}
	if err := rd.reduceBinomial(in, acc, total, 0); err != nil {
		return err
	}
	if me != 0 {
		return rd.recv(out, (offs[me+1]-offs[me])*es, 0)
	}
	// Blocks must start on words to be sent: repack them if they do not.
	start := make([]int, P+1)
	aligned := true
	for i := range P {
		aligned = aligned && offs[i]*es%4 == 0
		start[i+1] = start[i] + ((offs[i+1]-offs[i])*es+3)&^3
	}
	src := acc
	if aligned {
		for i := range start {
			start[i] = offs[i] * es
		}
	} else {
		b, err := rd.newBuf(start[P])
		if err != nil {
			return err
		}
		for i := range P {
			n := (offs[i+1] - offs[i]) * es
			rd.copy(redAt(b, start[i], n), redAt(acc, offs[i]*es, n), n)
		}
		src = b
	}
	var qs []*Request
	for i := 1; i < P; i++ {
		b, err := src.Slice(start[i], (offs[i+1]-offs[i])*es)
		if err != nil {
			return err
		}
		q, err := rd.isend(b, b.Len(), i)
		if err != nil {
			return err
		}
		qs = append(qs, q)
	}
	if !redSame(acc, out) {
		rd.copy(out, acc, offs[1]*es)
	}
	return rd.waitall(qs...)
}

// reduceScatterHalving is the recursive-halving reduce-scatter
// (commutative ops only). With a non-power-of-two P an odd rank of a
// folded pair stands for both: its new block spans both ranks' blocks, and
// it hands its partner's block back at the end.
func (rd *redColl) reduceScatterHalving(in, out Buffer, offs []int) error {
	P, me, es := rd.c.Size(), rd.c.Rank(), rd.es
	total := offs[P]
	n := total * es
	f := newRedFold(P)
	nr := f.newRank(me)
	myOff, myN := offs[me]*es, (offs[me+1]-offs[me])*es
	if nr < 0 {
		if err := rd.send(in, n, me+1); err != nil {
			return err
		}
		return rd.recv(out, myN, me+1)
	}
	acc, err := rd.newBuf(n)
	if err != nil {
		return err
	}
	if me < 2*f.rem {
		if err := rd.recv(acc, n, me-1); err != nil {
			return err
		}
		if err := rd.combine(in, acc, total); err != nil {
			return err
		}
	} else {
		rd.copy(acc, in, n)
	}
	bo := make([]int, f.pof2+1)
	for j := range f.pof2 {
		first := j + f.rem // the lowest rank new rank j stands for
		if j < f.rem {
			first = 2 * j
		}
		bo[j] = offs[first]
	}
	bo[f.pof2] = total
	if err := rd.halve(acc, bo, nr, f); err != nil {
		return err
	}
	if me < 2*f.rem {
		var scr Buffer
		po, pn := offs[me-1]*es, (offs[me]-offs[me-1])*es
		b, err := rd.msg(acc, po, pn, &scr)
		if err != nil {
			return err
		}
		if err := rd.send(b, pn, me-1); err != nil {
			return err
		}
	}
	rd.copy(out, redAt(acc, myOff, myN), myN)
	return nil
}

// scanChain is the thesis's scan: rank i waits for the prefix from rank
// i-1, combines it with its own data and passes the result to rank i+1.
func (rd *redColl) scanChain(in, out Buffer, count int, ex bool) error {
	P, me, n := rd.c.Size(), rd.c.Rank(), count*rd.es
	if !ex {
		if !redSame(in, out) {
			rd.copy(out, in, n)
		}
		if me > 0 {
			tmp, err := rd.newBuf(n)
			if err != nil {
				return err
			}
			if err := rd.recv(tmp, n, me-1); err != nil {
				return err
			}
			if err := rd.combine(tmp, out, count); err != nil {
				return err
			}
		}
		if me < P-1 {
			return rd.send(out, n, me+1)
		}
		return nil
	}
	if me == 0 {
		if P > 1 {
			return rd.send(in, n, 1)
		}
		return nil
	}
	// out gets the prefix; the next rank needs the prefix op my data.
	var w Buffer
	if me < P-1 {
		b, err := rd.newBuf(n)
		if err != nil {
			return err
		}
		w = b
		rd.copy(w, in, n)
	}
	if err := rd.recv(out, n, me-1); err != nil {
		return err
	}
	if me == P-1 {
		return nil
	}
	if err := rd.combine(out, w, count); err != nil {
		return err
	}
	return rd.send(w, n, me+1)
}

// scanRD is the Hillis-Steele scan: in round k rank i sends its partial
// x_{i-2^k+1..i} to rank i+2^k and prepends the partial from rank i-2^k,
// which covers the ranks just below its own, so rank order is kept.
// Exscan also keeps the exclusive prefix, built from the same messages.
func (rd *redColl) scanRD(in, out Buffer, count int, ex bool) error {
	P, me, n := rd.c.Size(), rd.c.Rank(), count*rd.es
	y := out // the inclusive partial
	if ex {
		y = in
		if redSame(in, out) && me+1 < P {
			// out receives the prefix while y is being sent.
			b, err := rd.newBuf(n)
			if err != nil {
				return err
			}
			rd.copy(b, in, n)
			y = b
		}
	} else if !redSame(in, out) {
		rd.copy(out, in, n)
	}
	var tmp Buffer
	first := true
	for d := 1; d < P; d <<= 1 {
		var qs []*Request
		rb := tmp
		if me-d >= 0 {
			if ex && first {
				rb = out
			} else if tmp.Bytes == nil {
				b, err := rd.newBuf(n)
				if err != nil {
					return err
				}
				tmp, rb = b, b
			}
			q, err := rd.irecv(rb, n, me-d)
			if err != nil {
				return err
			}
			qs = append(qs, q)
		}
		if me+d < P {
			q, err := rd.isend(y, n, me+d)
			if err != nil {
				return err
			}
			qs = append(qs, q)
		}
		if err := rd.waitall(qs...); err != nil {
			return err
		}
		if me-d < 0 {
			continue
		}
		if !ex {
			if err := rd.combine(rb, y, count); err != nil {
				return err
			}
			continue
		}
		if !first {
			if err := rd.combine(rb, out, count); err != nil {
				return err
			}
		}
		first = false
		if me+2*d < P { // y is sent again
			if redSame(y, in) {
				b, err := rd.newBuf(n)
				if err != nil {
					return err
				}
				rd.copy(b, in, n)
				y = b
			}
			if err := rd.combine(rb, y, count); err != nil {
				return err
			}
		}
	}
	return nil
}
