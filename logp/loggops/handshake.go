package loggops

// The handshake extension (Segment.Handshake): a rendezvous as the SCMP
// chip's MPI runs it, a request to send (RTS) to the receiver, a
// clear-to-send (CTS) back, run as a handler on the sender's CPU, which
// starts the data. See the package documentation for the equations.

// handshake is the extension's state, allocated only when a segment uses
// it: per op the receive a handshake send matched and a link for the
// per-rank lists of parked handlers; per rank the ops ready or waiting to
// start (for Cooperative) and the head and tail of its parked list.
type handshake struct {
	on      bool
	recvOf  []int32    // per send op: the receive it matched, -1 before
	posted  []float64  // per receive op: when it was posted
	next    []int32    // per send op: next parked handler of the same rank, -1 at the tail
	nq      []int32    // per rank: ops queued, not yet started
	parked  [][2]int32 // per rank: head and tail of the parked handlers, -1 when empty
	blocked int32      // a rank whose last queued op just started with handlers parked, -1 if none
}

func (m *sim) newHandshake(P, total int) {
	for _, g := range m.segs {
		m.hs.on = m.hs.on || g.Handshake
	}
	m.hs.blocked = -1
	if !m.hs.on {
		return
	}
	m.hs.recvOf = make([]int32, total)
	m.hs.next = make([]int32, total)
	m.hs.posted = make([]float64, total)
	for k := range m.hs.recvOf {
		m.hs.recvOf[k] = -1
	}
	m.hs.nq = make([]int32, P)
	m.hs.parked = make([][2]int32, P)
	for r := range m.hs.parked {
		m.hs.parked[r] = [2]int32{-1, -1}
	}
}

// isHandshake reports whether send op k goes through the handshake.
func (m *sim) isHandshake(k int32) bool {
	if !m.hs.on {
		return false
	}
	b := m.op(k).Size
	return b > m.p.S && m.seg(b).Handshake
}

// hops is the hop count between two ranks, 0 without a hop function.
func (m *sim) hops(src, dst int32) float64 {
	if m.p.Hops == nil {
		return 0
	}
	return float64(m.p.Hops(int(src), int(dst)))
}

// queued counts rank r's ops queued (+1) and started (-1); a rank whose
// count falls to 0 with handlers parked is woken after the event.
func (m *sim) queued(r int32, d int32) {
	if !m.hs.on {
		return
	}
	m.hs.nq[r] += d
	if m.hs.nq[r] == 0 && m.hs.parked[r][0] >= 0 {
		m.hs.blocked = r
	}
}

// afterEvent wakes the rank the event left blocked, once the ops the
// event made ready are queued: if it queued none, the rank's parked
// handlers try again at the event's time.
func (m *sim) afterEvent(e event) {
	r := m.hs.blocked
	if r < 0 {
		return
	}
	m.hs.blocked = -1
	if m.hs.nq[r] == 0 {
		m.q.push(event{t: e.t, ts: m.ts, rank: r, kind: evWake})
		m.ts++
	}
}

// wake re-issues rank e.rank's parked handlers in the order they parked.
func (m *sim) wake(e event) {
	pk := &m.hs.parked[e.rank]
	for k := pk[0]; k >= 0; k = m.hs.next[k] {
		kind, from := evCTS, int32(0)
		if m.hs.recvOf[k] < 0 { // not matched yet: a request to send at its receiver
			kind, from = evMsg, m.rankOf(k)
		}
		m.q.push(event{t: e.t, ts: m.ts, op: k, rank: e.rank, from: from, kind: kind})
		m.ts++
	}
	pk[0], pk[1] = -1, -1
}

// handler decides whether a handler (a request to send at its receiver, a
// clear-to-send at its sender) runs now on rank e.rank's CPU c: when the
// CPU is busy it is retried when the CPU frees; under Cooperative, when
// the rank has ops queued it parks until the rank blocks. ok is true when
// it runs at e.t.
func (m *sim) handler(e event, c int) bool {
	if free := m.clk[c]; free > e.t {
		m.wait(e, c, -1, free)
		return false
	}
	if m.p.Cooperative && m.hs.nq[e.rank] > 0 {
		pk := &m.hs.parked[e.rank]
		m.hs.next[e.op] = -1
		if pk[1] >= 0 {
			m.hs.next[pk[1]] = e.op
		} else {
			pk[0] = e.op
		}
		pk[1] = e.op
		return false
	}
	return true
}

// rts handles a request to send at its receiver: it costs the receiver
// nothing (its handling is part of L_cts) and matches a posted receive,
// whose clear-to-send then leaves, or waits as an unexpected message.
func (m *sim) rts(e event) {
	op := m.op(e.op)
	if !m.handler(e, m.cpu(e.rank, op.CPU)) {
		return
	}
	have := entry{op: e.op, src: e.from, tag: op.Tag}
	got, ok := m.match.take(e.rank, rq, &have)
	if !ok {
		m.match.add(e.rank, uq, have)
		return
	}
	m.clearToSend(e.op, got.op, e.rank, e.from, e.t, false)
}

// clearToSend matches send k (of rank src) with receive recv of rank dst
// at t: the clear-to-send leaves at t + o_r when a receive found the
// request waiting (the receive call answers it), at the later of t and
// the receive's posting + L_post when the request's handler found the
// receive posted; it reaches the sender L_cts + h·L_cts_per_hop later.
func (m *sim) clearToSend(k, recv, dst, src int32, t float64, waiting bool) {
	m.hs.recvOf[k] = recv
	g := m.seg(m.op(k).Size)
	if waiting {
		t += g.Or
	} else {
		t = max(t, m.hs.posted[recv]+g.Lpost)
	}
	m.q.push(event{t: t + g.Lcts + m.hops(src, dst)*g.LctsH, ts: m.ts, op: k, rank: src, from: dst, kind: evCTS})
	m.ts++
}

// posting records when receive k was posted, for L_post.
func (m *sim) posting(k int32, t float64) {
	if m.hs.on {
		m.hs.posted[k] = t
	}
}

// cts runs a clear-to-send's handler on the sender: its CPU is busy
// o_cts; the data leaves when the send NIC is free (taking g_data +
// (s-1)G of it) and its first byte reaches the receiver L_data +
// h·L_data_per_hop later. The send completes when the handler is done
// and the data has left the NIC, whichever is later (then the CPU clock
// is raised to it, as LogGOPSim does at a rendezvous's match).
func (m *sim) cts(e event) {
	op := m.op(e.op)
	c, n := m.cpu(e.rank, op.CPU), m.nicS(e.rank, op.NIC)
	if !m.handler(e, c) {
		return
	}
	g := m.seg(op.Size)
	m.clk[c] = e.t + g.Octs
	d := max(e.t, m.clk[n])
	m.clk[n] = d + g.GapData + bytesLess1(op.Size)*g.G
	m.q.push(event{t: d + g.Ldata + m.hops(e.rank, op.Peer)*g.LdataH, ts: m.ts, op: e.op, rank: op.Peer, from: e.rank, kind: evData})
	m.ts++
	if m.clk[n] > m.clk[c] {
		m.q.push(event{t: m.clk[n], ts: m.ts, op: e.op, rank: e.rank, kind: evSent})
		m.ts++
		return
	}
	m.done(e.op, e.rank, m.clk[c])
}

// sent completes a handshake send whose data left the NIC after its
// handler was done.
func (m *sim) sent(e event) {
	c := m.cpu(e.rank, m.op(e.op).CPU)
	m.clk[c] = max(m.clk[c], e.t)
	m.done(e.op, e.rank, e.t)
}

// data handles the data at its receiver as any arriving message (o_r and
// the bytes on the CPU, g_data and the bytes on the receive NIC) and
// completes the receive it matched.
func (m *sim) data(e event) {
	c, ok := m.arrive(e, true)
	if !ok {
		return
	}
	m.done(m.hs.recvOf[e.op], e.rank, m.clk[c])
}
