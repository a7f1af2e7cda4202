package loggops

// Waiting for a busy CPU or NIC.
//
// An event (an op, an arriving message, a handler) that finds its CPU or
// NIC busy is, in LogGOPSim, pushed back into the queue due when they
// free, keeping its insertion number. With n ops ready on one rank each
// that frees the resources only for the first of them: every round pops
// and re-pushes all the others, n²/2 queue operations in all (hours for a
// rank with millions of ready sends).
//
// Here the events waiting for the same clocks (a rank's CPU; its CPU and a
// send NIC; its CPU and a receive NIC) wait in one list, ordered by
// insertion number, and the queue holds one entry for the whole list:
// (F, ts) with ts the smallest insertion number in the list and F the
// clocks' free time when the entry was made. The result is LogGOPSim's,
// event for event, because
//
//   - a retried event e succeeds at the first position (t, ts_e) of the
//     event order, after it last failed, at which the clocks are free by
//     t: its retries in between change nothing but their own due time
//     (each due when the clocks free: a time before that cannot be the
//     first free one, since clocks only advance);
//   - of events waiting for the same clocks, the one of the smallest ts
//     succeeds first: at any position (t, ts_e) where another could, it
//     could at (t, ts_min), which comes before;
//   - so only the smallest is tried, at (F, ts_min): when the clocks
//     turned out busier, the entry is due again when they free; when the
//     event ran, the next one's entry is made from the clocks it left.
//
// An entry whose list changed since it was made (its head or due time
// moved) is dropped when popped. Each run, failure or change of head
// costs O(log n): a rank with n ready sends costs O(n log n).
//
// The argument leans on the event order; the time popped can go back (an
// op made ready on a CPU whose clock is behind), so the equivalence is
// also checked, not only argued: TestWaitListsMatchNaiveRetries compares
// every op's times with the naive loop's (Options.naive) on schedules
// with two CPUs and NICs per rank and many exact ties, and FuzzSimulate
// every rank's finish.

// waitList is the events waiting for one set of clocks.
type waitList struct {
	c, n int     // clock indices in sim.clk: the CPU's and the NIC's (-1: the CPU alone)
	t    float64 // the queue entry of the list: due time and ...
	ts   uint64  // ... insertion number (the head's)
	// h is the waiting events, their times cleared: they are due when
	// the clocks free (t), so the heap orders them by ts alone.
	h    eventHeap
	same int32 // next list filed under the same clock, -1 at the end
}

// waits are the wait lists of all clocks with an event waiting. A list is
// filed under its NIC's clock (its CPU's when it has none), and lists of
// one clock are chained: a chain holds at most one list per CPU index.
type waits struct {
	byClock []int32 // per clock in sim.clk: its first list, -1 if none; allocated at the first wait
	lists   []waitList
	free    []int32 // indices of empty lists, for reuse
	slab    []event // backing store for new lists' first entries: one allocation per 256 lists
}

// find is the index of the list of clocks (c, n), -1 if none.
func (w *waits) find(c, n int) int32 {
	k := c
	if n >= 0 {
		k = n
	}
	for i := w.byClock[k]; i >= 0; i = w.lists[i].same {
		if w.lists[i].c == c && w.lists[i].n == n {
			return i
		}
	}
	return -1
}

// open files a new empty list for clocks (c, n).
func (w *waits) open(c, n int) int32 {
	var i int32
	if k := len(w.free); k > 0 {
		i = w.free[k-1]
		w.free = w.free[:k-1]
	} else {
		if len(w.slab) < 4 {
			w.slab = make([]event, 4*256)
		}
		i = int32(len(w.lists))
		w.lists = append(w.lists, waitList{h: w.slab[:0:4]})
		w.slab = w.slab[4:]
	}
	k := c
	if n >= 0 {
		k = n
	}
	l := &w.lists[i]
	l.c, l.n, l.same = c, n, w.byClock[k]
	w.byClock[k] = i
	return i
}

// close unfiles empty list i for reuse.
func (w *waits) close(i int32) {
	l := &w.lists[i]
	k := l.c
	if l.n >= 0 {
		k = l.n
	}
	if w.byClock[k] == i {
		w.byClock[k] = l.same
	} else {
		j := w.byClock[k]
		for w.lists[j].same != i {
			j = w.lists[j].same
		}
		w.lists[j].same = l.same
	}
	w.free = append(w.free, i)
}

// free is when list l's clocks are both free.
func (m *sim) freeAt(l *waitList) float64 {
	if l.n < 0 {
		return m.clk[l.c]
	}
	return max(m.clk[l.c], m.clk[l.n])
}

// wait parks event e, which found clock c (and n, unless -1) busy until
// free > e.t, until they free.
func (m *sim) wait(e event, c, n int, free float64) {
	if m.naive { // LogGOPSim's loop, kept for the tests to compare
		e.t = free
		m.q.push(e)
		return
	}
	if m.w.byClock == nil {
		m.w.byClock = make([]int32, len(m.clk))
		for k := range m.w.byClock {
			m.w.byClock[k] = -1
		}
	}
	i := m.w.find(c, n)
	ok := i >= 0
	if !ok {
		i = m.w.open(c, n)
	}
	l := &m.w.lists[i]
	w := e
	w.t = 0 // due with the list (see waitList.h)
	l.h.push(w)
	// A new head moves the entry earlier: make one (the old one is
	// dropped when popped). Otherwise the entry stays where it is: at
	// worst early, when it finds the clocks busy and moves.
	if !ok || e.ts < l.ts {
		l.t, l.ts = free, e.ts
		m.q.push(event{t: free, ts: e.ts, op: i, kind: evWait})
	}
}

// retryWaiting handles list e.op's queue entry: the head runs if the
// clocks are free, else the entry moves to when they will be.
func (m *sim) retryWaiting(e event) {
	i := e.op
	l := &m.w.lists[i]
	if len(l.h) == 0 || e.t != l.t || e.ts != l.ts {
		return // the list changed since this entry was made
	}
	m.res.Events++
	if free := m.freeAt(l); free > e.t {
		l.t = free
		m.q.push(event{t: free, ts: l.ts, op: i, kind: evWait})
		return
	}
	head := l.h.pop()
	head.t = e.t
	m.dispatch(head) // finds its clocks free: no list changes under it
	l = &m.w.lists[i]
	if len(l.h) == 0 {
		m.w.close(i)
		return
	}
	l.t, l.ts = max(m.freeAt(l), e.t), l.h[0].ts
	m.q.push(event{t: l.t, ts: l.ts, op: i, kind: evWait})
}
