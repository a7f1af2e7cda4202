package mpi

import (
	"fmt"

	"nocsim/endpoint"
)

// The protocols, as the thesis describes them (section 4.2.2):
//
//	scmp:  Isend sends a THREAD message running _MPI_Post_send at the
//	       receiver, which matches it against posted receives or queues it;
//	       a matching receive answers with a THREAD message running
//	       _MPI_Request_data at the sender, which DMAs the data into the
//	       receive buffer and then writes the receiver's completion flag
//	       with a DATA message.
//	eager: messages up to eager_bytes travel inside the THREAD message and
//	       are buffered at the receiver if unexpected; larger ones, and
//	       synchronous sends, use the scmp rendezvous.
//	niu:   the same rendezvous with the RTS and CTS handled by the NIUs as
//	       control messages: no threads, no processor time.
//
// Messages between two tiles are ordered (endpoint.KindOrdered) and handler
// threads run in arrival order, so sends between a pair never overtake.

// envelope is a send announced at its receiver before a receive matched it.
type envelope struct {
	src, tag  int // world rank
	ctx       uint32
	bytes     int
	sreq      uint32
	mode      sendMode
	payload   []byte // eager data, copied into the library's buffer
	eager     bool
	arrivedAt int64
}

const postSendWords = 6 // src, tag, ctx, bytes, sreq, mode

// eager reports whether a send goes inside its THREAD message.
func (w *World) eager(q *Request) bool {
	return w.Cfg.Protocol == "eager" && q.mode != modeSync && q.bytes <= w.Cfg.EagerBytes
}

func (w *World) startSend(r *Rank, q *Request) error {
	m := w.M
	dst := q.peer
	eager := w.eager(q)
	switch {
	case eager:
		q.proto = "eager"
		args := append(r.argBuf[:0], uint32(r.rank), uint32(q.tag), q.comm.ctx, uint32(q.bytes), uint32(q.mode), q.id)
		args = appendWords(args, q.data.Bytes[:q.bytes])
		r.argBuf = args
		r.t.Compute(m.CPU.SendCycles(2 + len(args)))
		p, err := m.SendWords(r.node.ID, dst, endpoint.KindThread, uint32(w.h.eager), 0, args, r.t.Now())
		if err != nil {
			return errorf(ErrOther, opNames[q.op], "%v", err)
		}
		q.xfer = &q.xferB
		p.Xfer = q.xfer
		q.local = true // the data went into the message
	case w.Cfg.Protocol == "puma_long" && q.mode != modeBuffered:
		return w.pumaSend(r, q)
	case w.Cfg.Protocol == "niu":
		r.sends[q.id] = q
		args := []uint32{uint32(r.rank), uint32(q.tag), q.comm.ctx, uint32(q.bytes), q.id, uint32(q.mode)}
		r.t.Compute(m.CPU.SendCycles(2 + len(args)))
		if _, err := m.SendWords(r.node.ID, dst, endpoint.KindControl, uint32(w.h.ctlPostSend), 0, args, r.t.Now()); err != nil {
			return errorf(ErrOther, opNames[q.op], "%v", err)
		}
	default:
		q.proto = "scmp"
		r.sends[q.id] = q
		if err := r.t.CreateThread(dst, w.h.postSend, uint32(r.rank), uint32(q.tag), q.comm.ctx, uint32(q.bytes), q.id, uint32(q.mode)); err != nil {
			return errorf(ErrOther, opNames[q.op], "%v", err)
		}
	}
	return nil
}

// appendWords appends b as little-endian words, the last zero-padded.
func appendWords(w []uint32, b []byte) []uint32 {
	for i := 0; i < len(b); i += 4 {
		var x [4]byte
		copy(x[:], b[i:])
		w = append(w, le.Uint32(x[:]))
	}
	return w
}

// matches reports whether a receive (source world rank or AnySource, tag
// or AnyTag, context) accepts an envelope.
func matches(q *Request, src, tag int, ctx uint32) bool {
	return q.comm.ctx == ctx && (q.peer == AnySource || q.peer == src) && (q.tag == AnyTag || q.tag == tag)
}

// startRecv matches a new receive against the sends already announced, in
// arrival order, or posts it.
func (w *World) startRecv(r *Rank, q *Request) {
	// The queues change before any processor time is charged: charging
	// yields, and a handler (or the NIU) must never see a receive that is
	// neither posted nor matched.
	for i, e := range r.unexpected {
		if !matches(q, e.src, e.tag, e.ctx) {
			continue
		}
		r.unexpected = append(r.unexpected[:i], r.unexpected[i+1:]...)
		w.matched(r, q, e)
		if e.eager {
			n := min(e.bytes, q.bytes)
			copy(q.data.Bytes, e.payload[:n])
			q.got = true
			r.t.Compute(w.Cfg.MatchCycle*int64(i+1) + w.M.CPU.CopyCyclesPerWord*int64((n+3)/4))
			return
		}
		r.t.Compute(w.Cfg.MatchCycle * int64(i+1))
		w.requestData(r, q, e, r.t)
		return
	}
	r.posted = append(r.posted, q)
	r.t.Compute(w.Cfg.MatchCycle * int64(len(r.unexpected)))
}

// matched records a receive meeting its send.
func (w *World) matched(r *Rank, q *Request, e *envelope) {
	q.matched = true
	q.from = e
	q.handshake = w.M.Eng.Now()
	q.status = Status{Source: q.comm.group.Rank(e.src), Tag: e.tag, Bytes: min(e.bytes, q.bytes)}
	if e.eager {
		q.proto = "eager"
	} else {
		q.proto = w.Cfg.Protocol
	}
	if e.bytes > q.bytes {
		q.err = errorf(ErrTruncate, "MPI_Recv", "rank %d: message of %d bytes from rank %d (tag %d) into a %d-byte receive", r.rank, e.bytes, q.status.Source, e.tag, q.bytes)
	}
}

// requestData asks the sender for the data (the CTS): a THREAD message, or
// a control message under the niu protocol. t is the thread asking, or nil
// for the NIU.
func (w *World) requestData(r *Rank, q *Request, e *envelope, t *endpoint.Thread) {
	n := min(e.bytes, q.bytes)
	words := (n + 3) / 4
	if !q.temp && 4*words > n {
		// The DMA engine writes whole words: a message ending inside a
		// word goes to a temporary, so the receive buffer's bytes past the
		// message stay as they were.
		addr, b, err := r.node.Alloc(4 * words)
		if err != nil {
			w.fail(fmt.Errorf("rank %d: %w", r.rank, err))
			return
		}
		q.data, q.temp = Buffer{Addr: addr, Bytes: b}, true
	}
	args := []uint32{e.sreq, uint32(r.rank), q.data.Addr, q.flag.Addr, uint32(words)}
	var err error
	switch {
	case w.Cfg.Protocol == "niu" && t != nil:
		t.Compute(w.M.CPU.SendCycles(2 + len(args)))
		_, err = w.M.SendWords(r.node.ID, e.src, endpoint.KindControl, uint32(w.h.ctlRequestData), 0, args, t.Now())
	case w.Cfg.Protocol == "niu":
		_, err = w.M.SendWords(r.node.ID, e.src, endpoint.KindControl, uint32(w.h.ctlRequestData), 0, args, w.M.Eng.Now())
	default:
		err = t.CreateThread(e.src, w.h.requestData, args...)
	}
	if err != nil {
		w.fail(fmt.Errorf("rank %d: asking rank %d for data: %w", r.rank, e.src, err))
	}
}

// postSend is _MPI_Post_send at the receiver: match a posted receive, or
// queue the announcement.
func (w *World) postSend(r *Rank, a []uint32, t *endpoint.Thread) {
	e := r.newEnvelope()
	e.src, e.tag, e.ctx, e.bytes, e.sreq, e.mode = int(a[0]), int(int32(a[1])), a[2], int(a[3]), a[4], sendMode(a[5])
	if q := w.takePosted(r, e, t); q != nil {
		w.requestData(r, q, e, t)
		return
	}
	if e.mode == modeReady {
		w.fail(fmt.Errorf("erroneous program: rank %d called MPI_Rsend to rank %d (tag %d) before a matching receive was posted", e.src, r.rank, e.tag))
		return
	}
	r.unexpected = append(r.unexpected, e)
}

// takePosted removes and returns the first posted receive matching e,
// charging the scan after the queue has changed.
func (w *World) takePosted(r *Rank, e *envelope, t *endpoint.Thread) *Request {
	found, scan := w.matchPosted(r, e)
	if t != nil {
		t.Compute(scan)
	}
	return found
}

// matchPosted is takePosted leaving the scan's cycles to the caller to
// charge.
func (w *World) matchPosted(r *Rank, e *envelope) (*Request, int64) {
	scanned := len(r.posted)
	var found *Request
	for i, q := range r.posted {
		if matches(q, e.src, e.tag, e.ctx) {
			r.posted = append(r.posted[:i], r.posted[i+1:]...)
			w.matched(r, q, e)
			found, scanned = q, i+1
			break
		}
	}
	return found, w.Cfg.MatchCycle * int64(scanned)
}

func (w *World) rankOf(n *endpoint.Node) *Rank {
	if n.ID >= len(w.Ranks) {
		return nil
	}
	return w.Ranks[n.ID]
}

func (w *World) threadPostSend(t *endpoint.Thread, a []uint32) {
	w.postSend(w.rankOf(t.Node()), a, t)
}

func (w *World) ctlPostSend(n *endpoint.Node, a []uint32) {
	w.postSend(w.rankOf(n), a, nil)
}

// sendData is _MPI_Request_data at the sender: DMA the data into the
// receive buffer, then write the receiver's completion flag.
func (w *World) sendData(r *Rank, a []uint32, t *endpoint.Thread) {
	q := r.sends[a[0]]
	if q == nil {
		w.fail(fmt.Errorf("rank %d: data requested for unknown send %d", r.rank, a[0]))
		return
	}
	delete(r.sends, a[0])
	q.matched = true
	dst, addr, flag, words := int(a[1]), a[2], a[3], int(a[4])
	stride := max(q.stride, 1)
	if t != nil {
		// The send is seen complete only once the flag is sent too (q.xfer
		// set last), as the handler returns its transfer then.
		x := &q.xferB
		err := t.SendBlockNBTo(x, dst, addr, 1, q.data.Addr, stride, words)
		if err == nil {
			err = t.SendInt(dst, flag, 1)
		}
		if err != nil {
			w.fail(fmt.Errorf("rank %d: sending data to rank %d: %w", r.rank, dst, err))
		}
		q.xfer = x
		return
	}
	now := w.M.Eng.Now()
	q.xfer = &q.xferB
	for off := 0; off < words || off == 0; off += endpoint.MaxBlockWords {
		n := min(endpoint.MaxBlockWords, words-off)
		p, err := w.M.SendBlock(r.node.ID, dst, endpoint.KindData, addr+uint32(off), 1, q.data.Addr+uint32(off)*stride, stride, n, now)
		if err != nil {
			w.fail(fmt.Errorf("rank %d: sending data to rank %d: %w", r.rank, dst, err))
			return
		}
		if off+n >= words {
			p.Xfer = q.xfer
		}
		if words == 0 {
			break
		}
	}
	if _, err := w.M.SendWords(r.node.ID, dst, endpoint.KindData, flag, 1, []uint32{1}, now); err != nil {
		w.fail(err)
	}
}

func (w *World) threadRequestData(t *endpoint.Thread, a []uint32) {
	w.sendData(w.rankOf(t.Node()), a, t)
}

func (w *World) ctlRequestData(n *endpoint.Node, a []uint32) {
	w.sendData(w.rankOf(n), a, nil)
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
