package mpi

import (
	"nocsim/endpoint"
	"nocsim/mpi/mpierr"
)

// Matching: the posted-receive and unexpected-send queues every protocol
// shares. A receive is matched against the sends already announced, in
// arrival order; an announcement against the receives posted, in posting
// order.

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
		q.proto = w.proto.name()
	}
	if e.bytes > q.bytes {
		q.err = mpierr.Errorf(mpierr.ErrTruncate, "MPI_Recv", "rank %d: message of %d bytes from rank %d (tag %d) into a %d-byte receive", r.rank, e.bytes, q.status.Source, e.tag, q.bytes)
	}
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
