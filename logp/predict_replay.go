package logp

import (
	"math"
	"nocsim/coll"
	"slices"
)

// evkey is where an event stands in LogGOPS's order: events are taken by
// time, and at one time in the order they were queued, which is the order
// in which the events that queued them were taken (then, within one
// event, the order it queued them in: a send's message before the ops its
// completion readies, a send before a receive).
type evkey struct {
	t   float64
	up  *evkey // the event that queued it; nil: queued at the start
	sub int    // order among the events up queued (or at the start)
}

// cmpKey orders two events' keys: < 0 if a is taken first. Two events at
// one time are in the order of the events that queued them (compared the
// same way, up the chains until they meet or differ in time), then in the
// order they were queued in. It walks the chains in a loop: at a tie they
// can be as long as a rank's program. Events at +Inf (a message whose
// send is not known yet, in xprogs.finish's first sweep) are not ordered:
// their times are placeholders a later sweep replaces.
func cmpKey(a, b *evkey) int {
	fallback := 0 // the sub order of the highest pair of events walked that differ in it
	for a != b {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		case math.IsInf(a.t, 1):
			return 0
		case a.up == b.up:
			if a.sub != b.sub {
				return a.sub - b.sub
			}
			return fallback
		case a.up == nil:
			return -1
		case b.up == nil:
			return 1
		}
		if a.sub != b.sub {
			fallback = a.sub - b.sub
		}
		a, b = a.up, b.up
	}
	return fallback
}

func laterKey(a, b *evkey) *evkey {
	if a == nil || b != nil && cmpKey(a, b) < 0 {
		return b
	}
	return a
}

// xprog is one rank's program for replay: its steps in order.
type xprog struct {
	rank  int
	steps []xout
	// arrive is, per step with a receive, when its message's first byte
	// arrives, and sentBy the key of the send that sent it.
	arrive []float64
	sentBy []*evkey
	// start and startKey are, per send in program order, when it started
	// and its event's key (outputs).
	start    []float64
	startKey []*evkey
}

// replay evaluates one rank's program given its messages' arrivals: its
// processor takes its sends (each due once the step before is complete,
// the step's sends before it are made and the send interface is free) and
// its messages (each due once it has arrived and the receive interface is
// free), whichever falls due first, in LogGOPS's order at a tie; a message
// that arrives before its step is handled then all the same and its
// receive completes when posted. It returns the rank's finish.
func (e *env) replay(x *xprog) float64 {
	var cpu, ns, nr float64
	K, n := len(x.steps), 0
	for k := range x.steps {
		n += x.steps[k].nsends()
	}
	x.start, x.startKey = make([]float64, n), make([]*evkey, n)
	order := make([]int, 0, K) // steps with a receive, by arrival
	for k, s := range x.steps {
		if s.from >= 0 {
			order = append(order, k)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case x.arrive[a] < x.arrive[b]:
			return -1
		case x.arrive[a] > x.arrive[b]:
			return 1
		}
		if x.sentBy[a] == nil || x.sentBy[b] == nil {
			return a - b // not known yet (finish's first sweep)
		}
		return cmpKey(x.sentBy[a], x.sentBy[b])
	})
	got := make([]*evkey, K) // the event that handled step k's message
	next := 0                // next message in order
	var ready *evkey         // the event that made the current step ready
	var post *evkey          // the current step's receive's post
	si, j := 0, 0            // the next send's index in the program and in its step
	for k := 0; k < K; {
		s := &x.steps[k]
		if s.from >= 0 && post == nil {
			post = &evkey{t: cpu, up: ready, sub: opSub(x.rank, ready, 1, 0)}
		}
		needSend := j < s.nsends()
		if !needSend && (s.from < 0 || got[k] != nil) {
			// Complete: by the later of its last send (eager sends
			// complete when they start, one after the other) and its
			// receive's completion (the message's handling, or the post if
			// the message was handled before it).
			var done *evkey
			if j > 0 {
				done = x.startKey[si-1]
			}
			if s.from >= 0 {
				done = laterKey(done, laterKey(got[k], post))
			}
			ready, post, j = done, nil, 0
			k++
			continue
		}
		// The next message and the send due, whichever is first (the
		// candidates' keys are built on the stack: one of them is taken).
		hi := -1
		var hk evkey
		if next < len(order) {
			hi = order[next]
			hk = evkey{t: max(x.arrive[hi], cpu, nr), up: x.sentBy[hi]}
		} else if !needSend {
			panic("logp: replay: a receive without its message")
		}
		if needSend {
			sk := evkey{t: max(cpu, ns), up: ready, sub: opSub(x.rank, ready, 0, j)}
			if hi < 0 || cmpKey(&sk, &hk) < 0 {
				_, b := s.send(j)
				c := e.cost(b)
				k := sk
				x.start[si], x.startKey[si] = sk.t, &k
				cpu, ns = sk.t+c.os+c.om, sk.t+c.g+c.gm
				si, j = si+1, j+1
				continue
			}
		}
		c := e.cost(x.steps[hi].rb)
		cpu, nr = hk.t+c.or+c.bytes(), hk.t+c.g+c.gm
		k := hk
		got[hi] = &k
		next++
	}
	return cpu
}

// xprogs are every rank's programs, built step by step.
type xprogs []xprog

func newXprogs(P int) xprogs {
	x := make(xprogs, P)
	for r := range x {
		x[r].rank = r
	}
	return x
}

// exch adds to rank r the step of mpi's sendrecv with peer: sb bytes out,
// rb in.
func (x xprogs) exch(r, peer, sb, rb int) { x.exch2(r, peer, sb, peer, rb) }

// exch2 is a sendrecv of sb bytes to to and rb from from.
func (x xprogs) exch2(r, to, sb, from, rb int) {
	x[r].steps = append(x[r].steps, xout{to: to, sb: sb, from: from, rb: rb})
}

func (x xprogs) send(r, to, b int) {
	x[r].steps = append(x[r].steps, xout{to: to, sb: b, from: -1})
}

func (x xprogs) recv(r, from, b int) {
	x[r].steps = append(x[r].steps, xout{to: -1, from: from, rb: b})
}

// finish replays every rank until each one's arrivals are what its
// senders' replays give (the messages between partners make the ranks
// depend on each other both ways, so no single order of the ranks has
// every arrival known first). Ranks are swept in order, each replayed
// with the latest sends of the others (at first none: a message not yet
// sent never arrives), and the sweeps stop when no send moves: every
// rank's replay then agrees with the arrivals it was given, which is
// LogGOPS's run of the programs (checked against the tier for every
// algorithm, P = 2..100 and machines with zero L and o too). There is no
// global event queue: each rank takes its own jobs in its own order.
func (x xprogs) finish(e *env) float64 {
	P := len(x)
	// src[r][k] is the send (its index in its rank's program) that sends
	// rank r's k-th step's message: the n-th send from q to r meets the
	// n-th receive.
	sends := make(map[[2]int][]int)
	for q := range x {
		i := 0
		for k := range x[q].steps {
			s := &x[q].steps[k]
			for j := range s.nsends() {
				to, _ := s.send(j)
				sends[[2]int{q, to}] = append(sends[[2]int{q, to}], i)
				i++
			}
		}
	}
	src := make([][]int, P)
	for r := range x {
		n := make(map[int]int)
		src[r] = make([]int, len(x[r].steps))
		x[r].arrive = make([]float64, len(x[r].steps))
		x[r].sentBy = make([]*evkey, len(x[r].steps))
		for k, s := range x[r].steps {
			if s.from >= 0 {
				src[r][k] = sends[[2]int{s.from, r}][n[s.from]]
				n[s.from]++
				x[r].arrive[k] = math.Inf(1)
			}
		}
	}
	prev := make([][]float64, P) // each rank's send starts after the last sweep
	for r := range x {
		if x[r].startKey == nil {
			continue
		}
		prev[r] = make([]float64, len(x[r].startKey)) // a guess given: a sweep that agrees ends it
		for k, sk := range x[r].startKey {
			if sk != nil {
				prev[r][k] = sk.t
			}
		}
	}
	// A handful of sweeps settle every machine tried (two for a tree or
	// a ring, about seven for the folded exchanges at P near 100); the
	// bound, one sweep per message, only keeps a bug from looping forever.
	msgs := 0
	for r := range x {
		for k := range x[r].steps {
			msgs += x[r].steps[k].nsends() + 1
		}
	}
	var f float64
	for sweep := 0; sweep <= msgs+1; sweep++ {
		changed := false
		f = 0
		for r := range x {
			for k, s := range x[r].steps {
				if s.from < 0 {
					continue
				}
				q := &x[s.from]
				if q.startKey == nil {
					continue // not replayed yet
				}
				if by := q.startKey[src[r][k]]; by != nil {
					c := e.costAB(s.rb, s.from, r)
					x[r].arrive[k], x[r].sentBy[k] = by.t+c.os+c.l, by
				}
			}
			f = max(f, e.replay(&x[r]))
			if !slices.Equal(prev[r], x[r].start) {
				changed = true
				prev[r] = slices.Clone(x[r].start)
			}
		}
		if !changed {
			break
		}
	}
	return f
}

// foldIn adds the fold (coll.Fold): each even rank below 2 rem hands its m bytes
// to its odd partner and gets back ret bytes at the end (the caller adds
// that receive); it returns the new rank of r, -1 for a folded one.
func (x xprogs) foldIn(f coll.Fold, r, m int) int {
	switch {
	case r >= 2*f.Rem:
		return r - f.Rem
	case r%2 == 0:
		x.send(r, r+1, m)
		return -1
	}
	x.recv(r, r-1, m)
	return r / 2
}

// halving adds new rank nr's (rank r's) recursive-halving steps among f's
// p ranks over blocks bo (element offsets, es bytes each).
func (x xprogs) halving(f coll.Fold, r, nr int, bo []int, es int) {
	lo := 0
	for mask := f.Pof2 / 2; mask > 0; mask >>= 1 {
		keep, give := lo, lo+mask
		if nr&mask != 0 {
			keep, give = give, keep
		}
		x.exch(r, f.Real(nr^mask), (bo[give+mask]-bo[give])*es, (bo[keep+mask]-bo[keep])*es)
		lo = keep
	}
}
