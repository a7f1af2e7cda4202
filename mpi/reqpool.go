package mpi

import "slices"

// Request and envelope recycling. A blocking call's request, and a
// collective's internal ones, never reach the program: once complete they
// are retired and a later call reuses them, so a steady stream of messages
// allocates none. A retired request is reused only when no message can
// still write to it: its transfer (eager data or DMA) has been delivered.
// Requests the program holds (Isend, Irecv) are never recycled.

// retire hands back a completed request the program never saw.
func (r *Rank) retire(q *Request) {
	if q == nil || !q.done || q.mode == modeBuffered {
		// Not complete (a failed post may leave it queued), or a buffered
		// send, which the attached buffer's accounting still follows.
		return
	}
	if q.send {
		for i := len(r.sendOrder) - 1; i >= 0; i-- {
			if r.sendOrder[i] == q {
				r.sendOrder = slices.Delete(r.sendOrder, i, i+1)
				break
			}
		}
	}
	if q.from != nil {
		r.freeEnvelope(q.from)
		q.from = nil
	}
	r.retired = append(r.retired, q)
}

// retireAll retires each request of qs.
func (r *Rank) retireAll(qs []*Request) {
	for _, q := range qs {
		r.retire(q)
	}
}

// reusable reports whether nothing in flight refers to a retired request.
func (q *Request) reusable() bool { return q.xfer == nil || q.xfer.Delivered }

// allocRequest returns a blank request, recycled when one is free.
func (r *Rank) allocRequest() *Request {
	for i, q := range r.retired {
		if q.reusable() {
			last := len(r.retired) - 1
			r.retired[i] = r.retired[last]
			r.retired[last] = nil
			r.retired = r.retired[:last]
			arrived := q.arrivedFn
			*q = Request{arrivedFn: arrived}
			return q
		}
	}
	q := &Request{}
	q.arrivedFn = q.arrived
	return q
}

// newEnvelope returns a blank envelope, recycled when one is free; its
// payload buffer keeps its capacity.
func (r *Rank) newEnvelope() *envelope {
	if k := len(r.freeEnv); k > 0 {
		e := r.freeEnv[k-1]
		r.freeEnv[k-1] = nil
		r.freeEnv = r.freeEnv[:k-1]
		return e
	}
	return &envelope{}
}

// freeEnvelope takes back an envelope whose receive has completed.
func (r *Rank) freeEnvelope(e *envelope) {
	*e = envelope{payload: e.payload[:0]}
	r.freeEnv = append(r.freeEnv, e)
}
