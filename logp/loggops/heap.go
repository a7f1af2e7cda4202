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
