package mpi

import (
	"fmt"
	"slices"

	"nocsim/endpoint"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// rmaOps are the operations Accumulate takes (MPI allows only predefined
// ones), numbered for the THREAD message that carries them.
var rmaOps = []*datatype.Op{datatype.OpSum, datatype.OpProd, datatype.OpMax, datatype.OpMin, datatype.OpLand, datatype.OpLor, datatype.OpLxor, datatype.OpBand, datatype.OpBor, datatype.OpBxor, datatype.OpReplace}

// accHeader is the accumulate message's words before its data: origin
// rank, window id, target byte offset, element stride in bytes, index of
// the message's first element, kind, operation.
const accHeader = 7

// Put is MPI_Put: ocount elements of odt from obuf go to rank target's
// window at displacement tdisp, laid out as tcount elements of tdt. One
// DMA DATA message writes them straight into the target's memory; the
// target's processor does nothing. Both sides may be contiguous or a
// vector of 4-byte elements (the DMA engine's source and destination
// strides); other origin layouts are packed first (charged), other target
// layouts are refused. RMA moves whole words: the data's size must be a
// multiple of 4 bytes. The Put is complete after the epoch's closing
// Fence or Complete.
func (r *Rank) Put(obuf datatype.Buffer, ocount int, odt *datatype.Datatype, target, tdisp, tcount int, tdt *datatype.Datatype, win *Win) error {
	const name = "MPI_Put"
	start := r.enter(opPut, "%s(target=%d, disp=%d)", name, target, tdisp)
	bytes := 0
	defer func() { r.leave(opPut, start, bytes, 0) }()
	tAddr, tStride, words, err := win.prepare(r, name, target, tdisp, ocount, odt, tcount, tdt)
	if err != nil || words == 0 {
		return err
	}
	oAddr, oStride, temp, err := win.origin(name, obuf, ocount, odt, true)
	if err != nil {
		return err
	}
	bytes = 4 * words
	if target == win.comm.rank {
		win.localCopy(tAddr, tStride, oAddr, oStride, words)
		if temp.Bytes != nil {
			r.Free(temp)
		}
		return nil
	}
	x, err := r.t.SendBlockNB(win.peers[target].world, tAddr, tStride, oAddr, oStride, words)
	if err != nil {
		return mpierr.Errorf(mpierr.ErrOther, name, "rank %d: %v", r.rank, err)
	}
	win.xfers = append(win.xfers, x)
	if temp.Bytes != nil {
		win.temps = append(win.temps, temp)
	}
	win.dirty[target] = true
	return nil
}

// Get is MPI_Get: tcount elements of tdt at displacement tdisp of rank
// target's window come into obuf as ocount elements of odt. It is the
// native getBlock: a THREAD message whose handler on the target DMAs the
// block back and then writes a flag word here, so the target's processor
// spends a thread on it. The origin layout must be contiguous or a vector
// of 4-byte elements (the DMA engine writes it); the target's as for Put.
func (r *Rank) Get(obuf datatype.Buffer, ocount int, odt *datatype.Datatype, target, tdisp, tcount int, tdt *datatype.Datatype, win *Win) error {
	const name = "MPI_Get"
	start := r.enter(opGet, "%s(target=%d, disp=%d)", name, target, tdisp)
	bytes := 0
	defer func() { r.leave(opGet, start, bytes, 0) }()
	tAddr, tStride, words, err := win.prepare(r, name, target, tdisp, ocount, odt, tcount, tdt)
	if err != nil || words == 0 {
		return err
	}
	oAddr, oStride, _, err := win.origin(name, obuf, ocount, odt, false)
	if err != nil {
		return err
	}
	bytes = 4 * words
	if target == win.comm.rank {
		win.localCopy(oAddr, oStride, tAddr, tStride, words)
		return nil
	}
	win.seq[target]++
	ack := win.flags.Addr + uint32(flagAck*len(win.peers)+target)
	err = r.t.CreateThread(win.peers[target].world, r.w.rma.get, uint32(r.node.ID), oAddr, oStride, tAddr, tStride, uint32(words), ack, win.seq[target])
	if err != nil {
		return mpierr.Errorf(mpierr.ErrOther, name, "rank %d: %v", r.rank, err)
	}
	return nil
}

// threadWinGet is Get's handler on the target: the block, then the flag,
// which ordered delivery makes arrive after it.
func (w *World) threadWinGet(t *endpoint.Thread, a []uint32) {
	// origin tile, dst addr, dst stride, src addr, src stride, words, ack, seq
	dst := int(a[0])
	_, err := t.SendBlockNB(dst, a[1], a[2], a[3], a[4], int(a[5]))
	if err == nil {
		err = t.SendInt(dst, a[6], a[7])
	}
	if err != nil {
		w.fail(fmt.Errorf("MPI_Get: answering node %d: %w", dst, err))
	}
}

// Accumulate is MPI_Accumulate: target = origin op target, element by
// element, for a predefined op (MPI_REPLACE included) on elements of one
// predefined 4- or 8-byte type. The chip has no remote atomic, and a
// get-modify-put would need a lock the chip also lacks, so the data
// travels in THREAD messages (as many as the NIU queue's message size
// needs) whose handler applies the operation on the target's processor:
// the target pays a thread, a copy and a flop per element. Handlers on a
// tile run one at a time, so accumulates from several origins to the same
// element are atomic with respect to each other, as MPI requires. The
// target layout must be elements at a constant stride (contiguous or a
// vector); the origin's may be anything (packed, charged).
func (r *Rank) Accumulate(obuf datatype.Buffer, ocount int, odt *datatype.Datatype, target, tdisp, tcount int, tdt *datatype.Datatype, op *datatype.Op, win *Win) error {
	const name = "MPI_Accumulate"
	start := r.enter(opAccumulate, "%s(target=%d, disp=%d)", name, target, tdisp)
	bytes := 0
	defer func() { r.leave(opAccumulate, start, bytes, 0) }()
	if err := win.check(r, name); err != nil {
		return err
	}
	opIdx := slices.Index(rmaOps, op)
	if opIdx < 0 {
		return mpierr.Errorf(mpierr.ErrArg, name, "operation %s: allowed the predefined MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, logical and bitwise operations, MPI_REPLACE", opName(op))
	}
	if err := win.checkTarget(name, target); err != nil {
		return err
	}
	if err := checkOrigin(name, obuf, ocount, odt); err != nil {
		return err
	}
	okind, ofirst, ostride, on, oflat := odt.ElemLayout(ocount)
	tk, tfirst, tstride, tn, tflat := tdt.ElemLayout(tcount)
	switch {
	case tcount < 0:
		return mpierr.Errorf(mpierr.ErrCount, name, "target count %d must be >= 0", tcount)
	case tdt == nil || !tdt.Committed():
		return mpierr.Errorf(mpierr.ErrType, name, "target datatype not committed")
	case !oflat || !tflat:
		return mpierr.Errorf(mpierr.ErrType, name, "origin and target datatypes must each hold elements of one predefined type at a constant stride")
	case on != tn || on > 0 && okind != tk:
		return mpierr.Errorf(mpierr.ErrArg, name, "origin (%d elements of %s) and target (%d elements of %s) do not match", on, okind, tn, tk)
	case on > 0 && okind.Size() < 4:
		return mpierr.Errorf(mpierr.ErrType, name, "elements of %s: allowed 4- and 8-byte types (RMA moves whole words)", okind)
	}
	if on == 0 {
		return nil
	}
	ks := tk.Size()
	off, err := win.targetRange(name, target, tdisp, tfirst, tstride, on, ks)
	if err != nil {
		return err
	}
	// The origin's elements, contiguous: the processor reads them while it
	// builds the messages, a copy only when they are scattered.
	data := make([]byte, on*ks)
	for i := 0; i < on; i++ {
		copy(data[i*ks:], obuf.Bytes[ofirst+i*ostride:ofirst+i*ostride+ks])
	}
	if ostride != ks {
		r.t.Compute(r.w.M.CPU.CopyCyclesPerWord * int64(len(data)/4))
	}
	bytes = len(data)
	o := rmaOps[opIdx]
	if target == win.comm.rank {
		r.t.Compute(r.w.M.CPU.CopyCyclesPerWord * int64(len(data)/4))
		r.t.Flops(int64(on))
		for i := 0; i < on; i++ {
			o.ApplyKind(tk, data[i*ks:], win.buf.Bytes[off+i*tstride:])
		}
		return nil
	}
	per := (r.w.M.Spec.QueueFlits - 2 - accHeader) / (ks / 4)
	if per < 1 {
		return mpierr.Errorf(mpierr.ErrOther, name, "a %d-byte element does not fit one message of the NIU queue (niu_queue_flits %d)", ks, r.w.M.Spec.QueueFlits)
	}
	peer := win.peers[target]
	args := make([]uint32, 0, accHeader+per*ks/4)
	for first := 0; first < on; first += per {
		n := min(per, on-first)
		args = append(args[:0], uint32(win.comm.rank), peer.id, uint32(off), uint32(tstride), uint32(first), uint32(tk), uint32(opIdx))
		for i := 0; i < n*ks; i += 4 {
			args = append(args, le.Uint32(data[first*ks+i:]))
		}
		if err := r.t.CreateThread(peer.world, r.w.rma.acc, args...); err != nil {
			return mpierr.Errorf(mpierr.ErrOther, name, "rank %d: %v", r.rank, err)
		}
		win.accSent[target]++
	}
	win.dirty[target] = true
	return nil
}

// threadAccumulate applies one accumulate message on the target.
func (w *World) threadAccumulate(t *endpoint.Thread, a []uint32) {
	_, win := w.winOf(t, a[1])
	if win == nil {
		w.fail(fmt.Errorf("MPI_Accumulate: node %d has no window %d", t.Node().ID, a[1]))
		return
	}
	origin, off, stride, first, k, o := int(a[0]), int(a[2]), int(a[3]), int(a[4]), datatype.Kind(a[5]), rmaOps[a[6]]
	data := a[accHeader:]
	ks := k.Size()
	n := 4 * len(data) / ks
	t.Compute(w.M.CPU.CopyCyclesPerWord * int64(len(data)))
	t.Flops(int64(n))
	var in [8]byte
	for i := 0; i < n; i++ {
		for j := 0; j < ks/4; j++ {
			le.PutUint32(in[4*j:], data[i*ks/4+j])
		}
		o.ApplyKind(k, in[:ks], win.buf.Bytes[off+(first+i)*stride:])
	}
	win.accApplied[origin]++
}

func opName(o *datatype.Op) string {
	if o == nil {
		return "nil"
	}
	return o.Name()
}

// prepare checks what Put and Get share and resolves the target: its
// first word's address, word stride and the number of words.
func (win *Win) prepare(r *Rank, name string, target, tdisp, ocount int, odt *datatype.Datatype, tcount int, tdt *datatype.Datatype) (addr, stride uint32, words int, err error) {
	if err := win.check(r, name); err != nil {
		return 0, 0, 0, err
	}
	if err := win.checkTarget(name, target); err != nil {
		return 0, 0, 0, err
	}
	switch {
	case odt == nil || !odt.Committed():
		return 0, 0, 0, mpierr.Errorf(mpierr.ErrType, name, "origin datatype not committed")
	case ocount < 0 || tcount < 0:
		return 0, 0, 0, mpierr.Errorf(mpierr.ErrCount, name, "counts %d (origin) and %d (target) must be >= 0", ocount, tcount)
	case tdt == nil || !tdt.Committed():
		return 0, 0, 0, mpierr.Errorf(mpierr.ErrType, name, "target datatype not committed")
	case ocount*odt.Size() != tcount*tdt.Size():
		return 0, 0, 0, mpierr.Errorf(mpierr.ErrArg, name, "origin %d bytes and target %d bytes differ", ocount*odt.Size(), tcount*tdt.Size())
	case (tcount*tdt.Size())%4 != 0:
		return 0, 0, 0, mpierr.Errorf(mpierr.ErrArg, name, "%d bytes: allowed a multiple of 4 (RMA moves whole words)", tcount*tdt.Size())
	}
	words = tcount * tdt.Size() / 4
	if words == 0 {
		return 0, 0, 0, nil
	}
	first, st := 0, 1
	if !tdt.Contiguous() {
		var ok bool
		if first, st, ok = tdt.WordStride(tcount); !ok {
			return 0, 0, 0, mpierr.Errorf(mpierr.ErrType, name, "target datatype %s: allowed contiguous or a vector of 4-byte elements (the DMA engine's stride)", tdt.Name())
		}
	}
	off, err := win.targetRange(name, target, tdisp, 4*first, 4*st, words, 4)
	if err != nil {
		return 0, 0, 0, err
	}
	return win.peers[target].base + uint32(off/4), uint32(st), words, nil
}

// targetRange checks that n elements of size bytes at byte offsets first,
// first+stride, ... from displacement disp lie in rank target's window and
// returns the first element's byte offset in it.
func (win *Win) targetRange(name string, target, disp, first, stride, n, size int) (int, error) {
	p := win.peers[target]
	base := int64(disp) * int64(p.unit)
	lo := base + int64(first)
	hi := lo + int64(stride)*int64(n-1) + int64(size)
	if disp < 0 || lo < 0 || hi > int64(p.bytes) {
		return 0, mpierr.Errorf(mpierr.ErrRMARange, name, "displacement %d (unit %d bytes) reaches bytes %d..%d of rank %d's %d-byte window", disp, p.unit, lo, hi, target, p.bytes)
	}
	if lo%4 != 0 {
		return 0, mpierr.Errorf(mpierr.ErrArg, name, "displacement %d (unit %d bytes) starts at byte %d: allowed a multiple of 4 (RMA moves whole words)", disp, p.unit, lo)
	}
	return int(lo), nil
}

func (win *Win) checkTarget(name string, target int) error {
	if target < 0 || target >= len(win.peers) {
		return mpierr.Errorf(mpierr.ErrRank, name, "target rank %d: allowed 0..%d (the window's communicator)", target, len(win.peers)-1)
	}
	if win.startGroup != nil {
		if !slices.Contains(win.startGroup, target) {
			return mpierr.Errorf(mpierr.ErrRMASync, name, "target rank %d is not in the group given to MPI_Win_start", target)
		}
		return nil
	}
	if !win.fenced {
		return mpierr.Errorf(mpierr.ErrRMASync, name, "no access epoch: call MPI_Win_fence or MPI_Win_start first")
	}
	return nil
}

func checkOrigin(name string, buf datatype.Buffer, count int, t *datatype.Datatype) error {
	switch {
	case count < 0:
		return mpierr.Errorf(mpierr.ErrCount, name, "origin count %d must be >= 0", count)
	case t == nil || !t.Committed():
		return mpierr.Errorf(mpierr.ErrType, name, "origin datatype not committed")
	case count > 0 && t.TrueLB() < 0:
		return mpierr.Errorf(mpierr.ErrBuffer, name, "the origin datatype starts %d bytes before the buffer", -t.TrueLB())
	case t.Span(count) > buf.Len():
		return mpierr.Errorf(mpierr.ErrBuffer, name, "%d origin elements need %d bytes, the buffer has %d", count, t.Span(count), buf.Len())
	}
	return nil
}

// origin resolves the origin buffer for the DMA engine: its first word
// and word stride, packing other layouts into a temporary (charged) when
// pack is set.
func (win *Win) origin(name string, buf datatype.Buffer, count int, t *datatype.Datatype, pack bool) (addr, stride uint32, temp datatype.Buffer, err error) {
	r := win.r
	if err := checkOrigin(name, buf, count, t); err != nil {
		return 0, 0, datatype.Buffer{}, err
	}
	if t.Contiguous() {
		return buf.Addr, 1, datatype.Buffer{}, nil
	}
	if first, st, ok := t.WordStride(count); ok {
		return buf.Addr + uint32(first), uint32(st), datatype.Buffer{}, nil
	}
	if !pack {
		return 0, 0, datatype.Buffer{}, mpierr.Errorf(mpierr.ErrType, name, "origin datatype %s: allowed contiguous or a vector of 4-byte elements (the DMA engine writes it)", t.Name())
	}
	n := count * t.Size()
	tmp, err := r.Alloc(n)
	if err != nil {
		return 0, 0, datatype.Buffer{}, err
	}
	pos := 0
	if err := datatype.Pack(buf.Bytes, count, t, tmp.Bytes, &pos); err != nil {
		r.Free(tmp)
		return 0, 0, datatype.Buffer{}, err
	}
	r.t.Compute(r.w.M.CPU.CopyCyclesPerWord * int64((n+3)/4))
	return tmp.Addr, 1, tmp, nil
}

// localCopy moves words within the rank's own memory (an RMA call on its
// own window), charging the processor for the copy.
func (win *Win) localCopy(dst, dstStride, src, srcStride uint32, words int) {
	r := win.r
	r.t.Compute(r.w.M.CPU.CopyCyclesPerWord * int64(words))
	mem := r.node.Mem
	for i := 0; i < words; i++ {
		if err := mem.Write(dst+uint32(i)*dstStride, mem.Read(src+uint32(i)*srcStride)); err != nil {
			r.w.fail(fmt.Errorf("rank %d: RMA on its own window: %w", r.rank, err))
			return
		}
	}
}
