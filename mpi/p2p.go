package mpi

import (
	"slices"

	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// Isend is MPI_Isend (standard mode).
func (r *Rank) Isend(buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) (*Request, error) {
	return r.isend(opIsend, modeStandard, buf, count, dt, dest, tag, comm)
}

// Issend is MPI_Issend: complete only once the receive has matched.
func (r *Rank) Issend(buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) (*Request, error) {
	return r.isend(opIssend, modeSync, buf, count, dt, dest, tag, comm)
}

// Irsend is MPI_Irsend: the receive must already be posted.
func (r *Rank) Irsend(buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) (*Request, error) {
	return r.isend(opIrsend, modeReady, buf, count, dt, dest, tag, comm)
}

// Ibsend is MPI_Ibsend: the message is copied into the attached buffer.
func (r *Rank) Ibsend(buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) (*Request, error) {
	return r.isend(opIbsend, modeBuffered, buf, count, dt, dest, tag, comm)
}

// blocking completes a blocking call begun by isend or irecv.
func (r *Rank) blocking(op op, q *Request, err error) error {
	if err != nil {
		return err
	}
	r.recBegin()
	defer r.recEnd()
	r.thesisCall() // the MPI_Wait a blocking call makes (thesis §4.2.2)
	blocked := r.wait(q.arrivedFn)
	r.complete(q)
	r.recJoin(q)
	bytes := q.bytes
	if !q.send {
		bytes = q.status.Bytes
	}
	r.leave(op, q.callStart, bytes, blocked)
	return q.err
}

// nonBlocking reports whether op returns before its request completes;
// the blocking calls are recorded when they do complete.
func nonBlocking(op op) bool {
	switch op {
	case opIsend, opIssend, opIrsend, opIbsend, opIrecv, opStart:
		return true
	}
	return false
}

// Send is MPI_Send. Under the scmp and niu protocols it completes when the
// data has left, which needs the matching receive (synchronous semantics,
// as the thesis's library); under eager, short messages complete at once.
func (r *Rank) Send(buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) error {
	q, err := r.isend(opSend, modeStandard, buf, count, dt, dest, tag, comm)
	err = r.blocking(opSend, q, err)
	r.retire(q)
	return err
}

// Ssend is MPI_Ssend.
func (r *Rank) Ssend(buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) error {
	q, err := r.isend(opSsend, modeSync, buf, count, dt, dest, tag, comm)
	err = r.blocking(opSsend, q, err)
	r.retire(q)
	return err
}

// Rsend is MPI_Rsend; a ready send whose receive is not posted is an
// erroneous program, and the run ends with that error.
func (r *Rank) Rsend(buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) error {
	q, err := r.isend(opRsend, modeReady, buf, count, dt, dest, tag, comm)
	err = r.blocking(opRsend, q, err)
	r.retire(q)
	return err
}

// Bsend is MPI_Bsend: it returns once the message is copied into the
// buffer given to BufferAttach.
func (r *Rank) Bsend(buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) error {
	q, err := r.isend(opBsend, modeBuffered, buf, count, dt, dest, tag, comm)
	return r.blocking(opBsend, q, err)
}

// Recv is MPI_Recv.
func (r *Rank) Recv(buf datatype.Buffer, count int, dt *datatype.Datatype, source, tag int, comm *Comm) (Status, error) {
	q, err := r.irecv(opRecv, buf, count, dt, source, tag, comm)
	if err != nil {
		return Status{}, err
	}
	err = r.blocking(opRecv, q, nil)
	st := q.status
	r.retire(q)
	return st, err
}

// Irecv is MPI_Irecv.
func (r *Rank) Irecv(buf datatype.Buffer, count int, dt *datatype.Datatype, source, tag int, comm *Comm) (*Request, error) {
	return r.irecv(opIrecv, buf, count, dt, source, tag, comm)
}

// Sendrecv is MPI_Sendrecv.
func (r *Rank) Sendrecv(sbuf datatype.Buffer, scount int, sdt *datatype.Datatype, dest, stag int,
	rbuf datatype.Buffer, rcount int, rdt *datatype.Datatype, source, rtag int, comm *Comm) (Status, error) {
	r.recBegin()
	defer r.recEnd()
	start := r.t.Now()
	// Both halves are checked first: a failing send must not leave its
	// receive posted to swallow a later message.
	if err := r.checkArgs("MPI_Sendrecv", sbuf, scount, sdt, dest, stag, comm, false); err != nil {
		return Status{}, err
	}
	rq, err := r.irecv(opSendrecv, rbuf, rcount, rdt, source, rtag, comm)
	if err != nil {
		return Status{}, err
	}
	sq, err := r.isend(opSendrecv, modeStandard, sbuf, scount, sdt, dest, stag, comm)
	if err != nil {
		return Status{}, err
	}
	r.call = callDesc{kind: callSendrecv, a: dest, b: source, comm: comm}
	r.thesisCall() // its MPI_Waitall (thesis §4.2.2: blocking calls are non-blocking ones and a wait)
	blocked := r.waitAll(rq, sq)
	r.complete(sq)
	r.complete(rq)
	r.recJoin(rq, sq)
	r.leave(opSendrecv, start, rq.status.Bytes, blocked)
	st, err := rq.status, rq.err
	if sq.err != nil {
		err = sq.err
	}
	r.retire(rq)
	r.retire(sq)
	return st, err
}

// checkArgs validates what every point-to-point call shares.
func (r *Rank) checkArgs(name string, buf datatype.Buffer, count int, dt *datatype.Datatype, peer, tag int, comm *Comm, recv bool) error {
	switch {
	case comm == nil || comm.r != r:
		return mpierr.Errorf(mpierr.ErrArg, name, "rank %d: invalid communicator", r.rank)
	case comm.freed:
		return mpierr.Errorf(mpierr.ErrArg, name, "rank %d: communicator %s was freed", r.rank, comm.name)
	case count < 0:
		return mpierr.Errorf(mpierr.ErrCount, name, "count %d must be >= 0", count)
	case dt == nil || !dt.Committed():
		return mpierr.Errorf(mpierr.ErrType, name, "datatype not committed")
	case tag < 0 && !(recv && tag == AnyTag) || tag > TagUB:
		return mpierr.Errorf(mpierr.ErrArg, name, "tag %d: allowed 0..%d (MPI_TAG_UB)", tag, TagUB)
	case peer < 0 && !(recv && peer == AnySource) || peer >= comm.Size():
		return mpierr.Errorf(mpierr.ErrRank, name, "rank %d is not in %s (size %d)", peer, comm.name, comm.Size())
	case count > 0 && dt.TrueLB() < 0:
		return mpierr.Errorf(mpierr.ErrBuffer, name, "the datatype starts %d bytes before the buffer", -dt.TrueLB())
	case dt.Span(count) > buf.Len():
		return mpierr.Errorf(mpierr.ErrBuffer, name, "%d elements of the datatype need %d bytes, the buffer has %d", count, dt.Span(count), buf.Len())
	}
	return nil
}

func (r *Rank) newRequest(op op, send bool, buf datatype.Buffer, count int, dt *datatype.Datatype, peer, tag int, comm *Comm) *Request {
	// Thesis §6.4: MPI_Isend and MPI_Irecv "both call a helper function
	// developed to simplify the creation of MPI_Request objects".
	r.thesisCall()
	r.nextReq++
	q := r.allocRequest()
	q.r, q.id, q.op, q.send, q.buf, q.count, q.dt, q.peer, q.tag = r, r.nextReq, op, send, buf, count, dt, peer, tag
	q.comm, q.bytes, q.proto, q.posted, q.rec = comm, count*dt.Size(), r.w.proto.name(), r.t.Now(), -1
	return q
}

func (r *Rank) isend(op op, mode sendMode, buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) (*Request, error) {
	name := opNames[op]
	r.recBegin()
	defer r.recEnd()
	start := r.enterCall(callDesc{kind: callSend, name: name, a: dest, b: tag, comm: comm})
	if err := r.checkArgs(name, buf, count, dt, dest, tag, comm, false); err != nil {
		r.leave(op, start, 0, 0)
		return nil, err
	}
	if !nonBlocking(op) {
		// Thesis §4.2.2: "blocking send and receive calls are implemented
		// with non-blocking calls and a call to MPI_Wait()".
		r.thesisCall()
	}
	q := r.newRequest(op, true, buf, count, dt, comm.group.WorldRank(dest), tag, comm)
	q.mode = mode
	cpu := r.w.M.CPU
	switch {
	case mode == modeBuffered:
		// Copy into the attached buffer; the send proceeds from the copy.
		off, err := r.bsendReserve(q.bytes)
		if err != nil {
			r.leave(op, start, 0, 0)
			return nil, err
		}
		q.data, _ = r.bsend.Slice(off, q.bytes)
		r.t.Compute(cpu.CopyCyclesPerWord * int64((q.bytes+3)/4))
		if err := r.packInto(q, q.data.Bytes); err != nil {
			r.leave(op, start, 0, 0)
			return nil, err
		}
		q.local = true
	case dt.Contiguous():
		q.data, _ = buf.Slice(0, q.bytes)
	case r.w.Cfg.VectorDMA && r.w.proto.gathers(q):
		if first, stride, ok := dt.WordStride(count); ok {
			// The DMA engine gathers the vector itself: no packing.
			q.data = datatype.Buffer{Addr: buf.Addr + uint32(first), Bytes: buf.Bytes}
			q.stride = uint32(stride)
			break
		}
		fallthrough
	default:
		// Non-contiguous data is packed first, as the thesis does; its
		// send then "calls itself with the new buffer" (§4.2.1).
		r.thesisCall()
		tmp, err := r.Alloc(q.bytes)
		if err != nil {
			r.leave(op, start, 0, 0)
			return nil, err
		}
		q.data, q.temp = tmp, true
		r.t.Compute(cpu.CopyCyclesPerWord * int64((q.bytes+3)/4))
		if err := r.packInto(q, tmp.Bytes); err != nil {
			r.Free(tmp)
			r.leave(op, start, 0, 0)
			return nil, err
		}
	}
	if len(r.sendOrder) >= 64 {
		// Forget sends that have left, so long runs keep little.
		r.sendOrder = slices.DeleteFunc(r.sendOrder, (*Request).arrived)
	}
	r.sendOrder = append(r.sendOrder, q)
	r.sent++
	r.recPost(q)
	r.w.traceSend(r.rank, q.id, start)
	q.callStart = start
	err := r.w.proto.startSend(r, q)
	if nonBlocking(op) {
		r.leave(op, start, q.bytes, 0)
	}
	return q, err
}

func (r *Rank) packInto(q *Request, out []byte) error {
	pos := 0
	return datatype.Pack(q.buf.Bytes, q.count, q.dt, out, &pos)
}

func commName(c *Comm) string {
	if c == nil {
		return "nil"
	}
	return c.name
}

func (r *Rank) irecv(op op, buf datatype.Buffer, count int, dt *datatype.Datatype, source, tag int, comm *Comm) (*Request, error) {
	name := opNames[op]
	r.recBegin()
	defer r.recEnd()
	start := r.enterCall(callDesc{kind: callRecv, name: name, a: source, b: tag, comm: comm})
	if err := r.checkArgs(name, buf, count, dt, source, tag, comm, true); err != nil {
		r.leave(op, start, 0, 0)
		return nil, err
	}
	if !nonBlocking(op) {
		r.thesisCall() // MPI_Recv calls MPI_Irecv (thesis §4.2.2)
	}
	if !dt.Contiguous() {
		// Thesis §4.2.1: a receive of a non-primitive datatype "calls
		// itself with a temporary receiving buffer and datatype
		// MPI_PACKED" and unpacks after it returns.
		r.thesisCall()
	}
	peer := AnySource
	if source != AnySource {
		peer = comm.group.WorldRank(source)
	}
	q := r.newRequest(op, false, buf, count, dt, peer, tag, comm)
	if dt.Contiguous() && q.bytes%4 == 0 {
		q.data, _ = buf.Slice(0, q.bytes)
	} else {
		// The DMA engine writes whole words: odd sizes and scattered
		// layouts are received into a temporary and copied out.
		tmp, err := r.Alloc(q.bytes + 3)
		if err != nil {
			r.leave(op, start, 0, 0)
			return nil, err
		}
		q.data, q.temp = tmp, true
	}
	flag, err := r.Alloc(4)
	if err != nil {
		if q.temp {
			r.Free(q.data)
		}
		r.leave(op, start, 0, 0)
		return nil, err
	}
	q.flag = flag
	q.callStart = start
	r.recPost(q)
	r.w.startRecv(r, q)
	if nonBlocking(op) {
		r.leave(op, start, 0, 0)
	}
	return q, nil
}

// BufferAttach is MPI_Buffer_attach: b becomes the space Bsend copies into.
func (r *Rank) BufferAttach(b datatype.Buffer) error {
	if r.bsend.Bytes != nil {
		return mpierr.Errorf(mpierr.ErrBuffer, "MPI_Buffer_attach", "rank %d: a buffer is already attached", r.rank)
	}
	r.bsend, r.bsendUsed = b, 0
	return nil
}

// BufferDetach is MPI_Buffer_detach: it waits for buffered sends to leave
// and returns the buffer.
func (r *Rank) BufferDetach() (datatype.Buffer, error) {
	r.call = textCall("MPI_Buffer_detach")
	r.wait(func() bool { return r.bsendIdle() })
	b := r.bsend
	r.bsend, r.bsendUsed = datatype.Buffer{}, 0
	r.call = textCall("running (outside MPI)")
	return b, nil
}

func (r *Rank) bsendIdle() bool {
	for _, q := range r.sendOrder {
		if q.mode == modeBuffered && !(q.xfer != nil && q.xfer.Sent) {
			return false
		}
	}
	return true
}

// bsendReserve finds room for n bytes in the attached buffer: space is
// handed out in order and reclaimed once every buffered send has left.
func (r *Rank) bsendReserve(n int) (int, error) {
	if r.bsend.Bytes == nil {
		return 0, mpierr.Errorf(mpierr.ErrBuffer, "MPI_Bsend", "rank %d: no buffer attached (MPI_Buffer_attach)", r.rank)
	}
	if r.bsendIdle() {
		r.bsendUsed = 0
	}
	off := (r.bsendUsed + 3) &^ 3
	if off+n > r.bsend.Len() {
		return 0, mpierr.Errorf(mpierr.ErrBuffer, "MPI_Bsend", "rank %d: %d bytes do not fit the attached buffer (%d of %d bytes in use)", r.rank, n, r.bsendUsed, r.bsend.Len())
	}
	r.bsendUsed = off + n
	return off, nil
}
