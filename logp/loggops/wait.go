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
	c, n int32   // clock indices in sim.clk: the CPU's and the NIC's (-1: the CPU alone)
	same int32   // next list of the same rank, -1 at the end
	t    float64 // the queue entry of the list: due time and ...
	ts   uint64  // ... insertion number (the head's)
	// h is the waiting events, their times cleared: they are due when
	// the clocks free (t), so the heap orders them by ts alone.
	h eventHeap
}

// waits are the wait lists of all clocks with an event waiting, filed
// under their rank and chained (a rank has a few: one per CPU and per
// CPU and NIC pair at most).
type waits struct {
	byRank []int32 // per rank: its first list, -1 if none; allocated at the first wait
	// blocks hold the lists, list i at blocks[i/256][i%256]: blocks of
	// a fixed size, never moved, where one growing slice would leave
	// its old copies as garbage (a broadcast has 10^5 lists at once).
	blocks [][]waitList
	n      int32   // lists made
	free   []int32 // indices of empty lists, for reuse
	slab   []event // backing store for new lists' first entries: one allocation per 256 lists
}

// list is list i.
func (w *waits) list(i int32) *waitList { return &w.blocks[i>>8][i&255] }

// find is the index of rank r's list of clocks (c, n), -1 if none.
func (w *waits) find(r int32, c, n int) int32 {
	for i := w.byRank[r]; i >= 0; i = w.list(i).same {
		if int(w.list(i).c) == c && int(w.list(i).n) == n {
			return i
		}
	}
	return -1
}

// open files a new empty list for rank r's clocks (c, n).
func (w *waits) open(r int32, c, n int) int32 {
	var i int32
	if k := len(w.free); k > 0 {
		i = w.free[k-1]
		w.free = w.free[:k-1]
	} else {
		if len(w.slab) < 2 {
			w.slab = make([]event, 2*256)
		}
		i = w.n
		w.n++
		if i&255 == 0 {
			w.blocks = append(w.blocks, make([]waitList, 256))
		}
		w.list(i).h = w.slab[:0:2]
		w.slab = w.slab[2:]
	}
	l := w.list(i)
	l.c, l.n, l.same = int32(c), int32(n), w.byRank[r]
	w.byRank[r] = i
	return i
}

// close unfiles rank r's empty list i for reuse.
func (w *waits) close(r, i int32) {
	l := w.list(i)
	if w.byRank[r] == i {
		w.byRank[r] = l.same
	} else {
		j := w.byRank[r]
		for w.list(j).same != i {
			j = w.list(j).same
		}
		w.list(j).same = l.same
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
	if m.w.byRank == nil {
		m.w.byRank = make([]int32, len(m.clk)/m.stride)
		for k := range m.w.byRank {
			m.w.byRank[k] = -1
		}
	}
	r := int32(c / m.stride)
	i := m.w.find(r, c, n)
	ok := i >= 0
	if !ok {
		i = m.w.open(r, c, n)
	}
	l := m.w.list(i)
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
	l := m.w.list(i)
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
	l = m.w.list(i)
	if len(l.h) == 0 {
		m.w.close(int32(int(l.c)/m.stride), i)
		return
	}
	l.t, l.ts = max(m.freeAt(l), e.t), l.h[0].ts
	m.q.push(event{t: l.t, ts: l.ts, op: i, kind: evWait})
}
