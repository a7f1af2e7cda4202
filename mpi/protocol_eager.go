package mpi

import (
	"fmt"

	"nocsim/endpoint"
	"nocsim/mpi/mpierr"
)

// eagerProtocol sends messages up to eager_bytes inside the THREAD
// message that announces them; larger ones, and synchronous sends, use the
// scmp rendezvous.
type eagerProtocol struct {
	scmpProtocol
	limit int // eager_bytes
}

func (eagerProtocol) name() string { return "eager" }

// inline reports whether q's data goes inside its THREAD message.
func (p eagerProtocol) inline(q *Request) bool {
	return q.mode != modeSync && q.bytes <= p.limit
}

// gathers: an inline send's processor builds the message from packed data.
func (p eagerProtocol) gathers(q *Request) bool { return !p.inline(q) }

func (p eagerProtocol) startSend(r *Rank, q *Request) error {
	if !p.inline(q) {
		return p.scmpProtocol.startSend(r, q)
	}
	m := p.w.M
	q.proto = "eager"
	args := append(r.argBuf[:0], uint32(r.rank), uint32(q.tag), q.comm.ctx, uint32(q.bytes), uint32(q.mode), q.id)
	args = appendWords(args, q.data.Bytes[:q.bytes])
	r.argBuf = args
	r.t.Compute(m.CPU.SendCycles(2 + len(args)))
	pk, err := m.SendWords(r.node.ID, q.peer, endpoint.KindThread, uint32(p.w.h.eager), 0, args, r.t.Now())
	if err != nil {
		return mpierr.Errorf(mpierr.ErrOther, opNames[q.op], "%v", err)
	}
	q.xfer = &q.xferB
	pk.Xfer = q.xfer
	q.local = true // the data went into the message
	return nil
}

// threadEager is the eager protocol's handler: the data is in the message.
func (w *World) threadEager(t *endpoint.Thread, a []uint32) {
	r := w.rankOf(t.Node())
	e := r.newEnvelope()
	e.src, e.tag, e.ctx, e.bytes, e.mode, e.sreq, e.eager = int(a[0]), int(int32(a[1])), a[2], int(a[3]), sendMode(a[4]), a[5], true
	// The data is copied out of the message now: the arguments belong to
	// the thread, whose record is reused once it ends.
	payload := e.payload[:0]
	for _, x := range a[eagerHeader:] {
		payload = le.AppendUint32(payload, x)
	}
	e.payload = payload
	copyCycles := w.M.CPU.CopyCyclesPerWord * int64(len(a)-eagerHeader)
	q, scan := w.matchPosted(r, e)
	if q != nil {
		// The scan, then the copy: one resume for both.
		t.ComputeThen(scan, copyCycles)
		copy(q.data.Bytes, payload[:min(e.bytes, q.bytes)])
		q.got = true
		return
	}
	t.Compute(scan)
	if e.mode == modeReady {
		w.fail(fmt.Errorf("erroneous program: rank %d called MPI_Rsend to rank %d (tag %d) before a matching receive was posted", e.src, r.rank, e.tag))
		return
	}
	// Unexpected: the library keeps a copy until a receive asks for it.
	t.Compute(copyCycles)
	r.unexpected = append(r.unexpected, e)
}
