package mpi

import (
	"fmt"
	"slices"
)

// Allgather(v) and Alltoall(v, w).
//
// Messages always carry packed bytes. Allgather algorithms move runs of
// consecutive blocks, so they work on one buffer holding every block in
// rank order, each block starting on a word (the DMA engine moves whole
// words); that layout is the same on every rank, so a run is the same
// number of bytes at both ends. Alltoall moves single blocks, which go
// straight from and to the user's memory when contiguous and word-aligned,
// through a packed scratch slot otherwise.

func init() {
	for _, a := range []Algorithm{
		{Op: "allgather", Name: "gather_bcast", Source: "Nicholson & Goozen, Cray X1 MPI", Messages: "2(P-1)"},
		{Op: "allgather", Name: "ring", Source: "Brightwell & Shuler, MPI on Puma Portals", Messages: "P(P-1)"},
		{Op: "allgather", Name: "recursive_doubling", Source: "standard (MPICH)", Messages: "p log2 p + 2(P-p), p = 2^floor(log2 P)"},
		{Op: "alltoall", Name: "post_all", Source: "standard (MPICH)", Messages: "P(P-1)"},
		{Op: "alltoall", Name: "pairwise", Source: "standard (MPICH)", Messages: "P(P-1)"},
		{Op: "alltoall", Name: "bruck", Source: "standard (MPICH); Bruck et al., IEEE TPDS 1997", Messages: "P ceil(log2 P)"},
	} {
		register(a)
	}
}

// allSize is c's size, or 0 for an invalid communicator (beginColl then
// reports it).
func allSize(c *Comm) int {
	if c == nil {
		return 0
	}
	return c.Size()
}

func allRound4(n int) int { return (n + 3) &^ 3 }

// allBlock is count elements of dt at byte off of buf: one rank's block of
// a collective buffer.
type allBlock struct {
	buf   Buffer
	off   int
	count int
	dt    *Datatype
}

func (b allBlock) bytes() int { return b.count * b.dt.Size() }

// allBlockCheck validates a block. A block of no elements may sit anywhere.
func (x *coll) allBlockCheck(what string, b allBlock) error {
	switch {
	case b.count < 0:
		return errorf(ErrCount, x.name, "%s count %d must be >= 0", what, b.count)
	case b.dt == nil || !b.dt.Committed():
		return errorf(ErrType, x.name, "%s datatype not committed", what)
	case b.count == 0:
		return nil
	case b.off < 0 || b.off > b.buf.Len():
		return errorf(ErrBuffer, x.name, "%s displacement of %d bytes is outside the %d-byte buffer", what, b.off, b.buf.Len())
	}
	return x.check(what, Buffer{Bytes: b.buf.Bytes[b.off:]}, b.count, b.dt)
}

// allBlockPack packs b into dst, charging the copy.
func (x *coll) allBlockPack(b allBlock, dst []byte) error {
	if b.count == 0 {
		return nil
	}
	x.charge(b.bytes())
	pos := 0
	return Pack(b.buf.Bytes[b.off:], b.count, b.dt, dst, &pos)
}

// allBlockUnpack unpacks src into b, charging the copy.
func (x *coll) allBlockUnpack(src []byte, b allBlock) error {
	if b.count == 0 {
		return nil
	}
	x.charge(b.bytes())
	pos := 0
	return Unpack(src[:b.bytes()], &pos, b.buf.Bytes[b.off:], b.count, b.dt)
}

// ---------------------------------------------------------------- allgather

// Allgather is MPI_Allgather. With sbuf == InPlace each rank's contribution
// is already in its block of rbuf.
func (r *Rank) Allgather(sbuf Buffer, scount int, sdt *Datatype, rbuf Buffer, rcount int, rdt *Datatype, c *Comm) error {
	n := rcount * rdt.Size()
	x, err := r.beginColl("MPI_Allgather", c, argsI("%d bytes per rank", n))
	if err != nil {
		return err
	}
	P := c.Size()
	defer x.end(P * n)
	if err := x.check("receive", rbuf, P*rcount, rdt); err != nil {
		return err
	}
	counts, displs := make([]int, P), make([]int, P)
	for i := range counts {
		counts[i], displs[i] = rcount, i*rcount
	}
	return x.allgatherv(sbuf, scount, sdt, rbuf, counts, displs, rdt)
}

// Allgatherv is MPI_Allgatherv: rank i's block is rcounts[i] elements of
// rdt at displs[i] extents of rdt in rbuf.
func (r *Rank) Allgatherv(sbuf Buffer, scount int, sdt *Datatype, rbuf Buffer, rcounts, displs []int, rdt *Datatype, c *Comm) error {
	P := allSize(c)
	x, err := r.beginColl("MPI_Allgatherv", c, argsI("MPI_Allgatherv, %d ranks", P))
	if err != nil {
		return err
	}
	total := 0
	for i := 0; i < min(P, len(rcounts)); i++ {
		total += rcounts[i] * rdt.Size()
	}
	defer x.end(total)
	return x.allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt)
}

// allgatherWork is an allgather's working buffer: block i is n[i] bytes at
// off[i], offsets word-aligned and ascending.
type allgatherWork struct {
	x   *coll
	w   Buffer
	off []int
	n   []int
}

// span is blocks a..b-1 (a < b) as one message.
func (g *allgatherWork) span(a, b int) (Buffer, int) {
	n := g.off[b-1] + g.n[b-1] - g.off[a]
	s, _ := g.w.Slice(g.off[a], n)
	return s, n
}

func (x *coll) allgatherv(sbuf Buffer, scount int, sdt *Datatype, rbuf Buffer, rcounts, displs []int, rdt *Datatype) error {
	P, me := x.c.Size(), x.c.Rank()
	if len(rcounts) < P || len(displs) < P {
		return errorf(ErrArg, x.name, "%d receive counts and %d displacements for %d ranks", len(rcounts), len(displs), P)
	}
	blocks := make([]allBlock, P)
	for i := range blocks {
		blocks[i] = allBlock{rbuf, displs[i] * rdt.Extent(), rcounts[i], rdt}
		if err := x.allBlockCheck(fmt.Sprintf("receive block %d", i), blocks[i]); err != nil {
			return err
		}
	}
	inPlace := isInPlace(sbuf)
	mine := blocks[me]
	if !inPlace {
		mine = allBlock{sbuf, 0, scount, sdt}
		if err := x.allBlockCheck("send", mine); err != nil {
			return err
		}
		if mine.bytes() != blocks[me].bytes() {
			return errorf(ErrCount, x.name, "rank %d sends %d bytes but its block receives %d", me, mine.bytes(), blocks[me].bytes())
		}
	}

	// The layout every rank shares; the user's buffer serves as it when
	// it already is that layout.
	off, n := make([]int, P), make([]int, P)
	size, total, direct := 0, 0, rdt.Contiguous()
	for i := range blocks {
		n[i], off[i] = blocks[i].bytes(), size
		size += allRound4(n[i])
		total += n[i]
		direct = direct && n[i]%4 == 0 && blocks[i].off == off[i]
	}
	var w Buffer
	var err error
	if direct {
		w, err = rbuf.Slice(0, size)
	} else {
		w, err = x.alloc(size)
		if err == nil {
			defer x.free(w)
		}
	}
	if err != nil {
		return err
	}
	if !(direct && inPlace) {
		if err := x.allBlockPack(mine, w.Bytes[off[me]:]); err != nil {
			return err
		}
	}
	g := &allgatherWork{x, w, off, n}
	switch alg := x.pick("allgather", x.r.w.Cfg.Allgather, total, "recursive_doubling", "ring"); alg {
	case "thesis":
		err = g.thesisAllgather()
	case "gather_bcast":
		if err = g.allgatherGatherPhase(); err == nil {
			err = g.allgatherBcastPhase()
		}
	case "ring":
		err = g.ring()
	case "recursive_doubling":
		err = g.recursiveDoubling()
	default:
		err = errorf(ErrArg, x.name, "unknown allgather algorithm %q", alg)
	}
	if err != nil || direct {
		return err
	}
	for i, b := range blocks {
		if i == me && inPlace {
			continue
		}
		if err := x.allBlockUnpack(w.Bytes[off[i]:], b); err != nil {
			return err
		}
	}
	return nil
}

// allgatherGatherPhase is a binomial gather to rank 0: rank i collects the
// subtrees of i+1, i+2, i+4, ... below its lowest set bit, then sends its
// run of blocks to its parent. Rooted at 0 every subtree is one run.
func (g *allgatherWork) allgatherGatherPhase() error {
	x := g.x
	P, me := x.c.Size(), x.c.Rank()
	var qs []*Request
	mask := 1
	for ; mask < P && me&mask == 0; mask <<= 1 {
		if child := me + mask; child < P {
			b, n := g.span(child, min(child+mask, P))
			q, err := x.irecv(b, n, child)
			if err != nil {
				return err
			}
			qs = append(qs, q)
		}
	}
	if err := x.waitall(qs...); err != nil {
		return err
	}
	if me == 0 {
		return nil
	}
	b, n := g.span(me, min(me+mask, P))
	return x.send(b, n, me-mask)
}

// allgatherBcastPhase broadcasts every block from rank 0 down the same
// binomial tree as Bcast.
func (g *allgatherWork) allgatherBcastPhase() error {
	b, n := g.span(0, g.x.c.Size())
	return g.x.rtBcastBinomial(b, n, 0)
}

// ring is Puma's bucket algorithm: in step k every rank passes the block
// it received in step k-1 (its own first) to its right neighbour.
func (g *allgatherWork) ring() error {
	x := g.x
	P, me := x.c.Size(), x.c.Rank()
	right, left := (me+1)%P, (me+P-1)%P
	for k := 0; k < P-1; k++ {
		s, r := (me-k+P)%P, (me-k-1+P)%P
		sb, sn := g.span(s, s+1)
		rb, rn := g.span(r, r+1)
		if err := x.sendrecv(sb, sn, right, rb, rn, left); err != nil {
			return err
		}
	}
	return nil
}

// recursiveDoubling exchanges doubling runs of blocks between partners
// 1, 2, 4, ... apart. For P not a power of two, p = 2^floor(log2 P): the
// first 2(P-p) ranks pair up, the even one of each pair hands its block to
// the odd one, sits out the exchanges and gets the whole result at the end.
// Virtual rank v (of p) then holds a run of one or two blocks, and any
// aligned group of virtual ranks holds one run.
func (g *allgatherWork) recursiveDoubling() error {
	x := g.x
	P, me := x.c.Size(), x.c.Rank()
	p := 1
	for p*2 <= P {
		p *= 2
	}
	rem := P - p
	lo := func(v int) int { // first block of virtual rank v
		if v < rem {
			return 2 * v
		}
		return v + rem
	}
	real := func(v int) int {
		if v < rem {
			return 2*v + 1
		}
		return v + rem
	}
	all, alln := g.span(0, P)
	if me < 2*rem && me%2 == 0 {
		b, n := g.span(me, me+1)
		if err := x.send(b, n, me+1); err != nil {
			return err
		}
		return x.recv(all, alln, me+1)
	}
	v := me - rem
	if me < 2*rem {
		v = me / 2
		b, n := g.span(me-1, me)
		if err := x.recv(b, n, me-1); err != nil {
			return err
		}
	}
	for mask := 1; mask < p; mask <<= 1 {
		pv := v ^ mask
		mine, theirs := v&^(mask-1), pv&^(mask-1)
		sb, sn := g.span(lo(mine), lo(mine+mask))
		rb, rn := g.span(lo(theirs), lo(theirs+mask))
		if err := x.sendrecv(sb, sn, real(pv), rb, rn, real(pv)); err != nil {
			return err
		}
	}
	if me < 2*rem {
		return x.send(all, alln, me-1)
	}
	return nil
}

// ----------------------------------------------------------------- alltoall

// Alltoall is MPI_Alltoall. With sbuf == InPlace the data to send is taken
// from rbuf (and replaced by what arrives).
func (r *Rank) Alltoall(sbuf Buffer, scount int, sdt *Datatype, rbuf Buffer, rcount int, rdt *Datatype, c *Comm) error {
	n := rcount * rdt.Size()
	x, err := r.beginColl("MPI_Alltoall", c, argsI("%d bytes to each rank", n))
	if err != nil {
		return err
	}
	P := c.Size()
	defer x.end(P * n)
	if err := x.check("receive", rbuf, P*rcount, rdt); err != nil {
		return err
	}
	rb := make([]allBlock, P)
	for j := range rb {
		rb[j] = allBlock{rbuf, j * rcount * rdt.Extent(), rcount, rdt}
	}
	var sb []allBlock
	if !isInPlace(sbuf) {
		if err := x.check("send", sbuf, P*scount, sdt); err != nil {
			return err
		}
		if scount*sdt.Size() != n {
			return errorf(ErrCount, x.name, "sends %d bytes to each rank but receives %d", scount*sdt.Size(), n)
		}
		sb = make([]allBlock, P)
		for j := range sb {
			sb[j] = allBlock{sbuf, j * scount * sdt.Extent(), scount, sdt}
		}
	}
	alg := x.pick("alltoall", r.w.Cfg.Alltoall, n, "bruck", "pairwise")
	return x.alltoallRun(alg, sb, rb, true)
}

// Alltoallv is MPI_Alltoallv: displacements in extents of the datatypes.
// With sbuf == InPlace the data to send is taken from rbuf as described
// by the receive arguments.
func (r *Rank) Alltoallv(sbuf Buffer, scounts, sdispls []int, sdt *Datatype, rbuf Buffer, rcounts, rdispls []int, rdt *Datatype, c *Comm) error {
	P := allSize(c)
	x, err := r.beginColl("MPI_Alltoallv", c, argsI("MPI_Alltoallv, %d ranks", P))
	if err != nil {
		return err
	}
	total := 0
	for j := 0; j < min(P, len(rcounts)); j++ {
		total += rcounts[j] * rdt.Size()
	}
	defer x.end(total)
	if len(rcounts) < P || len(rdispls) < P {
		return errorf(ErrArg, x.name, "%d receive counts and %d displacements for %d ranks", len(rcounts), len(rdispls), P)
	}
	rb := make([]allBlock, P)
	for j := range rb {
		rb[j] = allBlock{rbuf, rdispls[j] * rdt.Extent(), rcounts[j], rdt}
	}
	var sb []allBlock
	if !isInPlace(sbuf) {
		if len(scounts) < P || len(sdispls) < P {
			return errorf(ErrArg, x.name, "%d send counts and %d displacements for %d ranks", len(scounts), len(sdispls), P)
		}
		sb = make([]allBlock, P)
		for j := range sb {
			sb[j] = allBlock{sbuf, sdispls[j] * sdt.Extent(), scounts[j], sdt}
		}
	}
	return x.alltoallVariable(sb, rb)
}

// Alltoallw is MPI_Alltoallw: a datatype per peer and displacements in
// bytes. With sbuf == InPlace the data to send is taken from rbuf.
func (r *Rank) Alltoallw(sbuf Buffer, scounts, sdispls []int, sdts []*Datatype, rbuf Buffer, rcounts, rdispls []int, rdts []*Datatype, c *Comm) error {
	P := allSize(c)
	x, err := r.beginColl("MPI_Alltoallw", c, argsI("MPI_Alltoallw, %d ranks", P))
	if err != nil {
		return err
	}
	total := 0
	for j := 0; j < min(P, len(rcounts), len(rdts)); j++ {
		total += rcounts[j] * rdts[j].Size()
	}
	defer x.end(total)
	if len(rcounts) < P || len(rdispls) < P || len(rdts) < P {
		return errorf(ErrArg, x.name, "%d receive counts, %d displacements and %d datatypes for %d ranks", len(rcounts), len(rdispls), len(rdts), P)
	}
	rb := make([]allBlock, P)
	for j := range rb {
		rb[j] = allBlock{rbuf, rdispls[j], rcounts[j], rdts[j]}
	}
	var sb []allBlock
	if !isInPlace(sbuf) {
		if len(scounts) < P || len(sdispls) < P || len(sdts) < P {
			return errorf(ErrArg, x.name, "%d send counts, %d displacements and %d datatypes for %d ranks", len(scounts), len(sdispls), len(sdts), P)
		}
		sb = make([]allBlock, P)
		for j := range sb {
			sb[j] = allBlock{sbuf, sdispls[j], scounts[j], sdts[j]}
		}
	}
	return x.alltoallVariable(sb, rb)
}

// alltoallVariable runs Alltoallv and Alltoallw once their blocks are
// described.
func (x *coll) alltoallVariable(sb, rb []allBlock) error {
	total := 0
	for j := range rb {
		if err := x.allBlockCheck(fmt.Sprintf("receive block %d", j), rb[j]); err != nil {
			return err
		}
		total += rb[j].bytes()
	}
	for j := range sb {
		if err := x.allBlockCheck(fmt.Sprintf("send block %d", j), sb[j]); err != nil {
			return err
		}
	}
	// Counts differ between ranks, so each picks by its own mean block;
	// the two choices that can result (pairwise, and post_all standing in
	// for bruck) send the same messages, so ranks choosing differently
	// still match.
	alg := x.pick("alltoall", x.r.w.Cfg.Alltoall, total/len(rb), "bruck", "pairwise")
	return x.alltoallRun(alg, sb, rb, false)
}

// alltoallStage gives each block a word-aligned run of bytes to send or
// receive: the user's memory when the block is contiguous and starts on a
// word, else a slot of one scratch buffer, packed on the way out and
// unpacked on the way in.
type alltoallStage struct {
	x      *coll
	blocks []allBlock
	view   []Buffer
	staged []bool
	tmp    *Buffer
}

// alltoallStageBlocks builds the views of every block but skip's; out packs
// the staged ones (they are to be sent).
func (x *coll) alltoallStageBlocks(blocks []allBlock, skip int, out bool) (*alltoallStage, error) {
	st := &alltoallStage{x: x, blocks: blocks, view: make([]Buffer, len(blocks)), staged: make([]bool, len(blocks))}
	offs := make([]int, len(blocks))
	size := 0
	for j, b := range blocks {
		switch {
		case j == skip:
		case b.count == 0:
			st.view[j] = Buffer{Addr: b.buf.Addr, Bytes: b.buf.Bytes[:0]}
		case b.dt.Contiguous() && b.off%4 == 0:
			st.view[j], _ = b.buf.Slice(b.off, b.bytes())
		default:
			st.staged[j], offs[j] = true, size
			size += allRound4(b.bytes())
		}
	}
	if size == 0 {
		return st, nil
	}
	tmp, err := x.alloc(size)
	if err != nil {
		return nil, err
	}
	st.tmp = &tmp
	for j, b := range blocks {
		if !st.staged[j] {
			continue
		}
		st.view[j], _ = tmp.Slice(offs[j], b.bytes())
		if out {
			if err := x.allBlockPack(b, st.view[j].Bytes); err != nil {
				st.free()
				return nil, err
			}
		}
	}
	return st, nil
}

// unstage unpacks the staged blocks that were received.
func (st *alltoallStage) unstage() error {
	for j, b := range st.blocks {
		if st.staged[j] {
			if err := st.x.allBlockUnpack(st.view[j].Bytes, b); err != nil {
				return err
			}
		}
	}
	return nil
}

func (st *alltoallStage) free() {
	if st.tmp != nil {
		st.x.free(*st.tmp)
		st.tmp = nil
	}
}

// alltoallSelf moves a rank's block to itself.
func (x *coll) alltoallSelf(s, d allBlock) error {
	n := s.bytes()
	if n != d.bytes() {
		return errorf(ErrTruncate, x.name, "rank %d sends itself %d bytes but receives %d", x.c.Rank(), n, d.bytes())
	}
	if n == 0 {
		return nil
	}
	if s.dt.Contiguous() && d.dt.Contiguous() {
		x.charge(n)
		copy(d.buf.Bytes[d.off:d.off+n], s.buf.Bytes[s.off:s.off+n])
		return nil
	}
	tmp, err := x.alloc(n)
	if err != nil {
		return err
	}
	defer x.free(tmp)
	if err := x.allBlockPack(s, tmp.Bytes); err != nil {
		return err
	}
	return x.allBlockUnpack(tmp.Bytes, d)
}

// alltoallRun runs algorithm alg; sb is nil for in-place. uniform says
// every block on every rank has the same size.
func (x *coll) alltoallRun(alg string, sb, rb []allBlock, uniform bool) error {
	me := x.c.Rank()
	if alg == "bruck" {
		if uniform {
			if sb == nil {
				sb = rb // bruck copies every block out before anything arrives
			}
			return x.alltoallBruck(sb, rb)
		}
		// Bruck's rounds combine blocks assuming they are all one size;
		// varying counts fall back to post_all.
		alg = "post_all"
	}
	if alg != "post_all" && alg != "pairwise" && alg != "pull_scan" {
		return errorf(ErrArg, x.name, "unknown alltoall algorithm %q", alg)
	}
	inPlace := sb == nil
	if inPlace {
		// The outgoing blocks are copied away before any arrives.
		cp := slices.Clone(rb)
		cp[me].count = 0 // stays where it is
		st, err := x.alltoallStagePacked(cp)
		if err != nil {
			return err
		}
		defer x.free(st.buf)
		sb = st.blocks
	}
	ss, err := x.alltoallStageBlocks(sb, me, true)
	if err != nil {
		return err
	}
	defer ss.free()
	rs, err := x.alltoallStageBlocks(rb, me, false)
	if err != nil {
		return err
	}
	defer rs.free()
	if !inPlace {
		if err := x.alltoallSelf(sb[me], rb[me]); err != nil {
			return err
		}
	}
	if alg == "post_all" {
		err = x.alltoallPostAll(sb, rb, ss, rs)
	} else if alg == "pull_scan" {
		err = x.crayAlltoallPull(ss, rs)
	} else {
		err = x.alltoallPairwise(sb, rb, ss, rs)
	}
	if err != nil {
		return err
	}
	return rs.unstage()
}

type alltoallPacked struct {
	buf    Buffer
	blocks []allBlock
}

// alltoallStagePacked copies every block into one scratch buffer, each
// word-aligned, and describes the copies as blocks of bytes.
func (x *coll) alltoallStagePacked(blocks []allBlock) (*alltoallPacked, error) {
	size := 0
	for _, b := range blocks {
		size += allRound4(b.bytes())
	}
	buf, err := x.alloc(size)
	if err != nil {
		return nil, err
	}
	out := &alltoallPacked{buf: buf, blocks: make([]allBlock, len(blocks))}
	off := 0
	for j, b := range blocks {
		if err := x.allBlockPack(b, buf.Bytes[off:]); err != nil {
			x.free(buf)
			return nil, err
		}
		out.blocks[j] = allBlock{buf, off, b.bytes(), Byte}
		off += allRound4(b.bytes())
	}
	return out, nil
}

// alltoallPostAll posts every receive, then every send, then waits.
func (x *coll) alltoallPostAll(sb, rb []allBlock, ss, rs *alltoallStage) error {
	P, me := x.c.Size(), x.c.Rank()
	qs := make([]*Request, 0, 2*(P-1))
	for k := 1; k < P; k++ {
		j := (me - k + P) % P
		q, err := x.irecv(rs.view[j], rb[j].bytes(), j)
		if err != nil {
			return err
		}
		qs = append(qs, q)
	}
	// Sends start at the next rank so that not every rank hits rank 0
	// first.
	for k := 1; k < P; k++ {
		j := (me + k) % P
		q, err := x.isend(ss.view[j], sb[j].bytes(), j)
		if err != nil {
			return err
		}
		qs = append(qs, q)
	}
	return x.waitall(qs...)
}

// alltoallPairwise takes P-1 steps; in step k rank i sends to i+k and
// receives from i-k.
func (x *coll) alltoallPairwise(sb, rb []allBlock, ss, rs *alltoallStage) error {
	P, me := x.c.Size(), x.c.Rank()
	for k := 1; k < P; k++ {
		dst, src := (me+k)%P, (me-k+P)%P
		if err := x.sendrecv(ss.view[dst], sb[dst].bytes(), dst, rs.view[src], rb[src].bytes(), src); err != nil {
			return err
		}
	}
	return nil
}

// alltoallBruck is Bruck et al.'s algorithm: rotate the blocks so that
// block j goes to rank i+j, then in round k send every block whose index
// has bit k set to rank i+2^k (receiving as many from i-2^k into the same
// places), and finally rotate back: block j then came from rank i-j.
// ceil(log2 P) messages per rank, each carrying about half the blocks.
func (x *coll) alltoallBruck(sb, rb []allBlock) error {
	P, me := x.c.Size(), x.c.Rank()
	n := rb[0].bytes()
	s := allRound4(n)
	t, err := x.alloc(P * s)
	if err != nil {
		return err
	}
	defer x.free(t)
	half := (P + 1) / 2
	out, err := x.alloc(half * s)
	if err != nil {
		return err
	}
	defer x.free(out)
	in, err := x.alloc(half * s)
	if err != nil {
		return err
	}
	defer x.free(in)
	for j := 0; j < P; j++ {
		if err := x.allBlockPack(sb[(me+j)%P], t.Bytes[j*s:]); err != nil {
			return err
		}
	}
	for k := 1; k < P; k <<= 1 {
		m := 0
		for j := k; j < P; j++ {
			if j&k != 0 {
				x.copy(Buffer{Bytes: out.Bytes[m*s:]}, Buffer{Bytes: t.Bytes[j*s:]}, n)
				m++
			}
		}
		bytes := (m-1)*s + n
		if err := x.sendrecv(out, bytes, (me+k)%P, in, bytes, (me-k+P)%P); err != nil {
			return err
		}
		m = 0
		for j := k; j < P; j++ {
			if j&k != 0 {
				x.copy(Buffer{Bytes: t.Bytes[j*s:]}, Buffer{Bytes: in.Bytes[m*s:]}, n)
				m++
			}
		}
	}
	for j := 0; j < P; j++ {
		if err := x.allBlockUnpack(t.Bytes[j*s:], rb[(me-j+P)%P]); err != nil {
			return err
		}
	}
	return nil
}
