package mpi

import "nocsim/mpi/group"

// Completion calls for several requests beyond Waitall and Waitany:
// MPI_Waitsome, MPI_Testsome and MPI_Testany. As in Waitany, a nil request
// (MPI_REQUEST_NULL) and one already completed are inactive: they are
// never reported again.

// active reports whether q still has a completion to report.
func active(q *Request) bool { return q != nil && !q.done }

// Waitsome is MPI_Waitsome: it blocks until at least one active request
// has completed, then completes every one that has and returns their
// indices (in index order) and statuses. With no active request it
// returns at once with outcount Undefined (MPI_UNDEFINED) and nothing
// else. The error is the first completed request's error, if any.
func (r *Rank) Waitsome(qs []*Request) (outcount int, indices []int, statuses []Status, err error) {
	start := r.enter(opWaitsome, "MPI_Waitsome on %d requests", len(qs))
	// After the call's charge: a replay's waits are not charged, so the
	// charge is the program's computation.
	r.recBegin()
	defer r.recEnd()
	live := false
	for _, q := range qs {
		live = live || active(q)
	}
	if !live {
		r.leave(opWaitsome, start, 0, 0)
		return group.Undefined, nil, nil, nil
	}
	blocked := r.wait(func() bool {
		for _, q := range qs {
			if active(q) && q.arrived() {
				return true
			}
		}
		return false
	})
	indices, statuses, err = r.completeArrived(qs)
	r.recJoin(pickRequests(qs, indices)...)
	r.leave(opWaitsome, start, 0, blocked)
	return len(indices), indices, statuses, err
}

// Testsome is MPI_Testsome: Waitsome without blocking. outcount is 0 when
// active requests remain but none has completed, Undefined when there is
// no active request.
func (r *Rank) Testsome(qs []*Request) (outcount int, indices []int, statuses []Status, err error) {
	start := r.enter(opTestsome, "MPI_Testsome on %d requests", len(qs))
	defer r.leave(opTestsome, start, 0, 0)
	r.progress()
	live := false
	for _, q := range qs {
		live = live || active(q)
	}
	if !live {
		return group.Undefined, nil, nil, nil
	}
	indices, statuses, err = r.completeArrived(qs)
	if len(indices) > 0 {
		r.recFlush() // a test is computation until it succeeds
		r.recJoin(pickRequests(qs, indices)...)
	}
	return len(indices), indices, statuses, err
}

// Testany is MPI_Testany: it completes the first arrived active request,
// in index order, without blocking. flag is true with that index, or true
// with index Undefined when no request is active; false when active
// requests remain and none has completed.
func (r *Rank) Testany(qs []*Request) (index int, flag bool, status Status, err error) {
	start := r.enter(opTestany, "MPI_Testany on %d requests", len(qs))
	defer r.leave(opTestany, start, 0, 0)
	r.progress()
	live := false
	for i, q := range qs {
		if !active(q) {
			continue
		}
		live = true
		if q.arrived() {
			r.complete(q)
			r.recFlush()
			r.recJoin(q)
			return i, true, q.status, q.err
		}
	}
	if !live {
		return group.Undefined, true, Status{}, nil
	}
	return group.Undefined, false, Status{}, nil
}

// completeArrived completes every active request that has arrived and
// returns their indices, statuses and the first error; the callers record
// the completions (Testsome after its flush).
func (r *Rank) completeArrived(qs []*Request) (indices []int, statuses []Status, first error) {
	for i, q := range qs {
		if active(q) && q.arrived() {
			r.complete(q)
			indices = append(indices, i)
			statuses = append(statuses, q.status)
			if first == nil {
				first = q.err
			}
		}
	}
	return indices, statuses, first
}

// pickRequests is qs at indices.
func pickRequests(qs []*Request, indices []int) []*Request {
	out := make([]*Request, len(indices))
	for k, i := range indices {
		out[k] = qs[i]
	}
	return out
}
