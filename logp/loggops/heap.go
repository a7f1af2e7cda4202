package loggops

// event is one entry of the simulator's queue, kept to 32 bytes and
// stored by value so that pushing and popping allocate nothing.
type event struct {
	t    float64 // when it is due, cycles
	ts   uint64  // insertion number: ties in t go first-in first-out, as in LogGOPSim (STRICT_ORDER)
	op   int32   // global op index (the send op for a message)
	rank int32   // the rank it happens on (the receiver for a message)
	from int32   // the sender of a message
	kind uint8
}

const (
	evSend = uint8(1) // the order of goal.Send, goal.Recv, goal.Calc
	evRecv = uint8(2)
	evCalc = uint8(3)
	evMsg  = uint8(4) // a message's first byte reaching its receiver (a handshake's request to send)
	evCTS  = uint8(5) // a handshake's clear-to-send reaching the sender (rank)
	evData = uint8(6) // a handshake's data reaching the receiver (rank)
	evWake = uint8(7) // a cooperative rank blocked: its parked handlers try again
	evSent = uint8(8) // a handshake's data left the sender's NIC: the send completes
	evWait = uint8(9) // a wait list's turn (op: the list): its first event tries again
)

func (a *event) before(b *event) bool {
	return a.t < b.t || a.t == b.t && a.ts < b.ts
}

// queue orders events by (t, ts). Events due at the current time with a
// ts above all queued go to a FIFO (a burst such as every rank's first
// receive, all due at 0, then costs O(1) each); the rest to a 4-ary
// min-heap, shallower than a binary one, so fewer cache misses.
type queue struct {
	h    eventHeap
	fifo []event
	head int     // first live entry of fifo
	now  float64 // time of the last event popped

	pushes, pops uint64 // queue operations, for tests and progress
}

func (q *queue) len() int { return len(q.h) + len(q.fifo) - q.head }

func (q *queue) push(e event) {
	q.pushes++
	// The FIFO holds events of one time only: an op made ready on a CPU
	// whose clock is behind may be due before the last event popped, so
	// the time popped can go back while the FIFO still holds later ones.
	if e.t == q.now && (q.head == len(q.fifo) || q.fifo[len(q.fifo)-1].t == e.t && q.fifo[len(q.fifo)-1].ts < e.ts) {
		q.fifo = append(q.fifo, e)
		return
	}
	q.h.push(e)
}

func (q *queue) pop() event {
	q.pops++
	var e event
	if q.head < len(q.fifo) && (len(q.h) == 0 || q.fifo[q.head].before(&q.h[0])) {
		e = q.fifo[q.head]
		q.head++
		if q.head == len(q.fifo) {
			q.head, q.fifo = 0, q.fifo[:0]
		}
	} else {
		e = q.h.pop()
	}
	q.now = e.t
	return e
}

// eventHeap is a 4-ary min-heap of events in event order (before),
// shallower than a binary one, so fewer cache misses. The queue keeps its
// events in one; so does each wait list, whose events differ only in ts
// (see waitList.h).
type eventHeap []event

func (hp *eventHeap) push(e event) {
	*hp = append(*hp, e)
	h := *hp
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (hp *eventHeap) pop() event {
	h := *hp
	top := h[0]
	n := len(h) - 1
	last := h[n]
	*hp = h[:n]
	h = *hp
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if h[k].before(&h[m]) {
				m = k
			}
		}
		if !h[m].before(&last) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = last
	return top
}
