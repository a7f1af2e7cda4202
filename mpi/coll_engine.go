package mpi

import (
	"slices"

	sched "nocsim/coll"
	"nocsim/mpi/datatype"
)

// The chip as a coll engine: a schedule program from package coll runs on
// one rank with real data. Regions name the call's contiguous buffers
// (bufs, indexed by sched.Buf); steps are rtSteps, so messages at an offset
// that is not word-aligned are staged through charged scratch copies
// exactly as the hand-written algorithms stage them.

// engine is one rank's run of a program within collective call x.
type engine struct {
	x      *coll
	bufs   callBufs
	blocks *blockBufs
	red    *redColl          // a reduction's op and element type (Combine)
	alloc  []datatype.Buffer // scratch the program allocated, freed when it ends
}

// callBufs are a call's buffers by coll.Buf (NoBuf's stays empty).
type callBufs [sched.NBufs]datatype.Buffer

// blockBufs are the user's typed blocks: alltoall's (send, recv), which
// Copy packs and unpacks, and the word-aligned views of them messages use
// (the user's memory or staged scratch); a scatter's or gather's root
// blocks and own-block move (part).
type blockBufs struct {
	send, recv   []allBlock
	sview, rview []datatype.Buffer
	part         *rtPart
}

// runProgram runs prog for this rank with the call's buffers (blocks nil
// but for alltoall); a's rank and size are the communicator's.
func (x *coll) runProgram(prog sched.Program, a sched.Args, bufs callBufs, blocks *blockBufs) error {
	a.P, a.Me = x.c.Size(), x.c.Rank()
	e := x.rank(bufs)
	e.blocks = blocks
	defer e.release()
	return prog(e, a)
}

// release frees the scratch the program allocated, last first.
func (e *engine) release() {
	for _, b := range slices.Backward(e.alloc) {
		e.x.free(b)
	}
	clear(e.alloc)
}

// rank is this rank as a coll engine over bufs, for the coll functions
// other algorithms call (a binomial broadcast of a result, say).
func (x *coll) rank(bufs callBufs) *engine { return &engine{x: x, bufs: bufs} }

// buf is the buffer region r lies in.
func (e *engine) buf(r sched.Region) datatype.Buffer {
	switch r.Buf {
	case sched.SendBlock:
		return e.blocks.sview[r.Block]
	case sched.RecvBlock:
		return e.blocks.rview[r.Block]
	}
	return e.bufs[r.Buf]
}

// Alloc gives scratch buffer b n bytes until the program ends.
func (e *engine) Alloc(b sched.Buf, n int) error {
	buf, err := e.x.alloc(n)
	if err != nil {
		return err
	}
	e.bufs[b] = buf
	e.alloc = append(e.alloc, buf)
	return nil
}

// Copy copies src to dst, charging the processor: packing a user's send
// block, unpacking into a receive block, or a plain copy.
func (e *engine) Copy(dst, src sched.Region) error {
	x := e.x
	switch {
	case src.Buf == sched.SendBlock:
		return x.allBlockPack(e.blocks.send[src.Block], e.buf(dst).Bytes[dst.Off:])
	case dst.Buf == sched.RecvBlock:
		return x.allBlockUnpack(e.buf(src).Bytes[src.Off:], e.blocks.recv[dst.Block])
	case src.Buf == sched.RootBlock:
		return x.rtPack(e.blocks.part.bl, src.Block, e.buf(dst).Bytes[dst.Off:])
	case dst.Buf == sched.RootBlock:
		return x.rtUnpack(e.blocks.part.bl, dst.Block, e.buf(src).Bytes[src.Off:])
	}
	x.copy(datatype.Buffer{Bytes: e.buf(dst).Bytes[dst.Off:]}, datatype.Buffer{Bytes: e.buf(src).Bytes[src.Off:]}, src.Len)
	return nil
}

// Combine reduces src into dst (dst = src op dst) over the elements dst
// holds, as the reductions' combine does.
func (e *engine) Combine(dst, src sched.Region) error {
	rd := e.red
	return rd.combine(redAt(e.buf(src), src.Off, src.Len), redAt(e.buf(dst), dst.Off, dst.Len), dst.Len/rd.es)
}

// runReduction runs reduction algorithm alg on packed Input and Result
// (one buffer when inPlace, the result at its start).
func (rd *redColl) runReduction(alg *sched.Algorithm, a sched.Args, in, out datatype.Buffer, inPlace bool) error {
	a.InPlace, a.Elem, a.Ordered = inPlace, rd.es, !rd.o.Commutative()
	a.P, a.Me = rd.c.Size(), rd.c.Rank()
	rd.prepare(alg, &a)
	e := &rd.eng
	*e = engine{x: rd.coll, bufs: callBufs{sched.Input: in, sched.Result: out}, red: rd, alloc: e.alloc[:0]}
	defer e.release()
	return alg.Program(e, a)
}

// prepare gives a the optimal tree or the mesh grid alg runs on.
func (x *coll) prepare(alg *sched.Algorithm, a *sched.Args) {
	if alg.OptimalTree {
		a.Tree = x.r.w.optimalTree(x.c.Size())
	}
	if alg.MeshGrid {
		a.Grid = x.r.w.meshGridOf(x.c.group)
	}
}

// Charge charges copying n bytes.
func (e *engine) Charge(n int) { e.x.charge(n) }

// PutSizes writes sz as int32s at dst.
func (e *engine) PutSizes(dst sched.Region, sz []int) {
	b := datatype.Buffer{Bytes: e.buf(dst).Bytes[dst.Off : dst.Off+dst.Len]}
	for j, n := range sz {
		b.SetInt32(j, int32(n))
	}
}

// Sizes reads the int32s at src.
func (e *engine) Sizes(src sched.Region) []int {
	b := datatype.Buffer{Bytes: e.buf(src).Bytes[src.Off : src.Off+src.Len]}
	sz := make([]int, src.Len/4)
	for j := range sz {
		sz[j] = int(b.Int32(j))
	}
	return sz
}

// Own moves the root's own block of a scatter or gather.
func (e *engine) Own() error { return e.blocks.part.own() }

// RootTree makes the root's buffer Work when it already is the tree
// layout of sizes sz.
func (e *engine) RootTree(sz []int) bool {
	p := e.blocks.part
	t, ok := p.bl.treeView(p.root, sz, sched.NewLayout(sz).Off)
	if ok {
		e.bufs[sched.Work] = t
	}
	return ok
}

// engineStep is a sched.Step on the chip.
type engineStep struct {
	e *engine
	s *rtStep
}

func (e *engine) Step() sched.Step { return &engineStep{e, e.x.rtStep()} }

func (st *engineStep) Send(peer int, r sched.Region) {
	if r.Buf == sched.RootBlock {
		st.s.sendBlock(st.e.blocks.part.bl, r.Block, peer)
		return
	}
	st.s.send(st.e.buf(r), r.Off, r.Len, peer)
}

func (st *engineStep) Recv(peer int, r sched.Region) {
	if r.Buf == sched.RootBlock {
		st.s.recvBlock(st.e.blocks.part.bl, r.Block, peer)
		return
	}
	st.s.recv(st.e.buf(r), r.Off, r.Len, peer)
}

func (st *engineStep) Wait() error { return st.s.wait() }

// WaitAll makes the MPI_Waitall call even on an empty step.
func (st *engineStep) WaitAll() error {
	if len(st.s.qs) == 0 && len(st.s.after) == 0 && st.s.err == nil {
		return st.e.x.waitall()
	}
	return st.s.wait()
}

// aligned reports whether r can go to the DMA engine in place.
func aligned(r sched.Region) bool { return r.Len == 0 || r.Off%4 == 0 }

// slice is aligned region r of its buffer (an empty message anywhere).
func (e *engine) slice(r sched.Region) (datatype.Buffer, error) {
	if r.Len == 0 && r.Off%4 != 0 {
		return datatype.Buffer{}, nil
	}
	return e.buf(r).Slice(r.Off, r.Len)
}

// staged is r ready for the DMA engine: its bytes in place, or, when r
// does not start on a word, a charged copy of them in scratch, which done
// frees. The copy is made before anything is posted, as a library packs
// a message before it starts the call.
func (e *engine) staged(r sched.Region) (b datatype.Buffer, done func(), err error) {
	if aligned(r) {
		b, err = e.slice(r)
		return b, noop, err
	}
	tmp, err := e.x.alloc(r.Len)
	if err != nil {
		return b, noop, err
	}
	e.x.copy(tmp, redAt(e.buf(r), r.Off, r.Len), r.Len)
	b, err = tmp.Slice(0, r.Len)
	return b, func() { e.x.free(tmp) }, err
}

// Send and Recv are blocking calls. A send not starting on a word is
// staged first; a receive not starting on a word goes through a step,
// which stages it; the root's blocks go through a step, which packs them.
func (e *engine) Send(peer int, r sched.Region) error {
	if r.Buf == sched.RootBlock {
		s := e.Step()
		s.Send(peer, r)
		return s.Wait()
	}
	b, done, err := e.staged(r)
	defer done()
	if err != nil {
		return err
	}
	return e.x.send(b, r.Len, peer)
}

func (e *engine) Recv(peer int, r sched.Region) error {
	if !aligned(r) || r.Buf == sched.RootBlock {
		s := e.Step()
		s.Recv(peer, r)
		return s.Wait()
	}
	b, err := e.slice(r)
	if err != nil {
		return err
	}
	return e.x.recv(b, r.Len, peer)
}

// SendRecv stages its send first (see staged), then posts the receive and
// the send.
func (e *engine) SendRecv(dst int, s sched.Region, src int, r sched.Region) error {
	if !aligned(r) || r.Buf == sched.RootBlock || s.Buf == sched.RootBlock {
		st := e.Step()
		st.Recv(src, r)
		st.Send(dst, s)
		return st.Wait()
	}
	sb, done, err := e.staged(s)
	defer done()
	if err != nil {
		return err
	}
	rb, err := e.slice(r)
	if err != nil {
		return err
	}
	return e.x.sendrecv(sb, s.Len, dst, rb, r.Len, src)
}

// engineAsks answers with MPI_Waitany, in the order the requests arrive.
type engineAsks struct {
	x  *coll
	qs []*Request
}

func (e *engine) Asks(peers []int) (sched.Asks, error) {
	a := &engineAsks{x: e.x}
	for _, p := range peers {
		q, err := e.x.irecv(datatype.Buffer{}, 0, p)
		if err != nil {
			return nil, err
		}
		a.qs = append(a.qs, q)
	}
	return a, nil
}

func (a *engineAsks) Next() (int, error) {
	i, _, err := a.x.r.Waitany(a.qs)
	return i, err
}
