package logp

import (
	"cmp"
	"slices"
)

// Barrier, bcast, scatter and gather: the formulas behind Predict, one per
// algorithm of nocsim's mpi/coll_rooted*.go. Each is the critical path of
// the algorithm as nocsim runs it (root 0, children served in the order
// nocsim serves them), replayed with LogGOPS's rules: where the path
// depends on which rank is slowest or on the order messages reach one
// rank, a recurrence over the ranks (or over that rank's queue, in time
// order) follows every rank and charges the slowest.

// barrierCentral: every rank sends a 0-byte arrival to rank 0, which
// receives them one after the other and then sends each a release one
// after the other: two message latencies and 2(P-2) serialisations at the
// root.
func barrierCentral(e *env) {
	c := e.cost(0)
	n := float64(e.P - 2)
	e.msg("2 x ", 2, c)
	e.add("(P-2) x max(g, o_r): root receives arrivals", n*c.recvIv())
	e.add("(P-2) x max(g, o_s): root sends releases", n*c.sendIv())
}

// barrierTree4: arrivals climb the 4-ary heap (children of rank i are
// 4i+1..4i+4) and the release goes back down it. Every rank posts its
// receives at once and handles messages as they arrive (in arrival
// order, each once its processor and receive interface are free), sends
// its arrival to its parent once its children's are handled, and after
// the release sends its children theirs back to back (the first once
// its send interface is free from the arrival it sent). The recurrence
// follows every rank, leaves up and then root down, and charges the
// slowest.
func barrierTree4(e *env) {
	P, c := e.P, e.cost(0)
	kids := func(r int) (lo, hi int) { return 4*r + 1, min(4*r+5, P) }
	ready := make([]pathTime, P) // when rank r has every arrival of its subtree (and sends its own)
	rnic := make([]pathTime, P)  // when its receive interface is free after them
	var arr []pathTime
	for r := P - 1; r >= 0; r-- {
		lo, hi := kids(r)
		arr = arr[:0]
		for k := lo; k < hi; k++ {
			arr = append(arr, ready[k].arrive(c))
		}
		// Same-size messages: their order among equal times changes no time.
		slices.SortStableFunc(arr, func(a, b pathTime) int { return cmp.Compare(a.t, b.t) })
		var cpu, nic pathTime
		for _, a := range arr {
			h := latest(a, cpu, nic)
			cpu, nic = h.handle(c), h.add(c.g+c.gm)
		}
		ready[r], rnic[r] = cpu, nic
	}
	start := make([]pathTime, P) // when rank r's parent starts sending it the release
	var end pathTime
	for r := range P {
		first := ready[r] // the root sends the releases once the arrivals are in
		if r != 0 {
			got := latest(start[r].arrive(c), ready[r].add(c.os+c.om), rnic[r]).handle(c)
			first = latest(got, ready[r].add(c.g+c.gm))
			end = latest(end, got)
		}
		lo, hi := kids(r)
		t := first
		for k := lo; k < hi; k++ {
			start[k] = t
			end = latest(end, t.add(c.os+c.om))
			t = t.add(c.sendIv())
		}
	}
	e.path("", end, "waits at ranks: queued arrivals, sends to earlier children, the send interface")
}

// barrierDissemination: ceil(log2 P) rounds; in each every rank sends to
// rank+2^k and receives from rank-2^k, so a round is one message.
func barrierDissemination(e *env) {
	e.rounds("ceil(log2 P) x ", float64(ceilLog2(e.P)), e.cost(0))
}

// bcastFlat: the root sends P-1 messages back to back; the last starts
// (P-2) send intervals after the first. With G = 0 and o <= g this is the
// slides' L + 2o + (P-2)g, and L + P*o when g < o.
func bcastFlat(e *env) { flatOut(e, e.m) }

func flatOut(e *env, m int) {
	c := e.cost(m)
	e.msg("", 1, c)
	e.add("(P-2) x max(g, o_s+(m-1)G): root sends", float64(e.P-2)*c.sendIv())
}

// flatIn: P-1 messages arrive together at the root, which receives them
// one after the other.
func flatIn(e *env, m int) {
	c := e.cost(m)
	e.msg("", 1, c)
	e.add("(P-2) x max(g, o_r+(m-1)G): root receives", float64(e.P-2)*c.recvIv())
}

// bcastBinomial: the slowest branch of the binomial tree (at P = 2^k,
// ceil(log2 P) messages, the root's sent last; fewer at other P).
func bcastBinomial(e *env) {
	e.binomialDown("", func(int) int { return e.m })
}

// bcastPull: every non-root sends the root a 0-byte request at once; the
// root handles them one at a time (all arrive together, in rank order),
// and answers each with the message once it has handled it. The root's
// processor takes requests and replies in the order they become possible
// (a request first when both are possible at once: it was sent first),
// each reply also waiting for the send interface. The recurrence replays
// that one queue; the slowest rank is the last answered, or the root.
func bcastPull(e *env) {
	q, c := e.cost(0), e.cost(e.m)
	var zero, cpu, snic, rnic pathTime
	arrive := zero.arrive(q) // every request: sent at 0
	var replies []pathTime   // when each handled request's reply may go
	end, asked, sent := zero, 0, 0
	for sent < e.P-1 {
		if asked < e.P-1 {
			h := latest(arrive, cpu, rnic)
			if sent == asked || h.t <= latest(replies[sent], cpu, snic).t {
				cpu, rnic = h.handle(q), h.add(q.g+q.gm)
				replies = append(replies, cpu)
				asked++
				continue
			}
		}
		s := latest(replies[sent], cpu, snic)
		cpu, snic = s.add(c.os+c.om), s.add(c.g+c.gm)
		// The requester's processor is free again o_s after its request.
		end = latest(end, latest(s.arrive(c), zero.add(q.os+q.om)).handle(c))
		sent++
	}
	e.path("", latest(end, cpu), "waits at the root: requests and replies queued, the send interface")
}

// scatterFlat: the root sends each rank its block back to back.
func scatterFlat(e *env) { flatOut(e, e.m) }

// scatterBinomial: down the binomial tree, each message carrying its
// subtree's blocks, so the message halves at each level.
func scatterBinomial(e *env) { binomialBlocks(e, "") }

func binomialBlocks(e *env, prefix string) {
	e.binomialDown(prefix, func(c int) int { return binSubtree(c, e.P) * e.m })
}

// gatherFlat: every rank sends its block to the root at once; the root
// receives them one after the other.
func gatherFlat(e *env) { flatIn(e, e.m) }

// gatherBinomial: the scatter's tree in reverse, the messages doubling
// towards the root.
func gatherBinomial(e *env) { binomialGather(e, "") }

func binomialGather(e *env, prefix string) {
	e.binomialUp(prefix, func(c int) int { return binSubtree(c, e.P) * e.m })
}

// gatherPush: the root posts every receive, then sends each rank a 0-byte
// "ready" back to back, and each rank answers with its block as soon as
// it has handled its ready. The root's processor interleaves its sends
// with the blocks coming back in the order they become possible (a send
// first when both are possible at once: it was posted first); the
// recurrence replays that one queue.
func gatherPush(e *env) {
	q, c := e.cost(0), e.cost(e.m)
	cpu := sendAndServe(e.P-1, q, c, func(s pathTime) pathTime { return s.arrive(q).handle(q).arrive(c) })
	e.path("", cpu, "waits at the root: sends, blocks queued, the interfaces")
}

// sendAndServe replays the processor of a rank that sends n messages of
// cost sc back to back (all posted at once) while receiving n messages of
// cost rc, the j-th arriving at arrival(start of its j-th send) (later
// sends' answers arriving later). The rank handles whichever is possible
// first, its own send on a tie (posted before any message arrived), and
// each arriving message once its processor and receive interface are
// free. It returns when the processor is done.
func sendAndServe(n int, sc, rc cost, arrival func(s pathTime) pathTime) pathTime {
	var cpu, snic, rnic pathTime
	in := make([]pathTime, 0, n) // arrivals of the sends made so far
	for got := 0; got < n; {
		if len(in) < n {
			s := latest(cpu, snic)
			if got == len(in) || s.t <= latest(in[got], cpu, rnic).t {
				cpu, snic = s.add(sc.os+sc.om), s.add(sc.g+sc.gm)
				in = append(in, arrival(s))
				continue
			}
		}
		h := latest(in[got], cpu, rnic)
		cpu, rnic = h.handle(rc), h.add(rc.g+rc.gm)
		got++
	}
	return cpu
}

// pathTime is a time on a rank's clock and the message terms of the chain
// of events that set it (each max keeps the chain of its latest input),
// so an exact recurrence can still report which messages its result is
// made of; the rest of the time is waiting at ranks.
type pathTime struct {
	t            float64
	os, l, b, or float64 // o_s, L, max((m-1)G, (m-1)O) and o_r of the chain's messages
}

// add is d cycles more on the same chain (a rank's own busy time).
func (a pathTime) add(d float64) pathTime { a.t += d; return a }

// arrive is when a message sent (started) at a reaches its receiver.
func (a pathTime) arrive(c cost) pathTime {
	a.t += c.os + c.l
	a.os += c.os
	a.l += c.l
	return a
}

// handle is when the receiver's processor is done with a message whose
// handling starts at a.
func (a pathTime) handle(c cost) pathTime {
	a.t += c.or + c.bytes()
	a.or += c.or
	a.b += c.bytes()
	return a
}

// latest is the latest of its arguments, the first of equals.
func latest(a pathTime, bs ...pathTime) pathTime {
	for _, b := range bs {
		if b.t > a.t {
			a = b
		}
	}
	return a
}

// path adds the terms of a critical chain ending at x: its messages' and
// the waits between them under one name.
func (e *env) path(prefix string, x pathTime, waitName string) {
	e.add(prefix+"o_s", x.os)
	e.add(prefix+"L", x.l)
	e.add(prefix+"(m-1)max(G,O)", x.b)
	e.add(prefix+"o_r", x.or)
	e.add(prefix+waitName, x.t-x.os-x.l-x.b-x.or)
}
