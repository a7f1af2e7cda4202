package logp

import (
	"math/bits"
	"slices"
)

// The exact evaluation of the exchange algorithms (the rings, recursive
// doubling and halving, Rabenseifner's, the Hillis-Steele scan): a
// recurrence over their steps, every rank's processor, send and receive
// interface clocks carried from one step to the next under LogGOPS's
// rules. In a step each rank posts at most one send and one receive and
// waits for both (mpi's sendrecv, or a blocking send or receive alone). A
// rank's send is due when its processor and send interface are free after
// its previous step; its partner's message is handled once it has arrived
// and the processor and receive interface are free, before the send if it
// is due first (the processor takes one job at a time, in the order they
// fall due). Blocks are the MPI code's (redSplit: whole elements, each
// block starting on a word), so the sizes differ from rank to rank and the
// slowest rank is not a lockstep round count.

// xrank is one rank's state between steps.
type xrank struct {
	cpu, ns, nr float64 // processor, send and receive interface free
	// push is when the rank's current step became ready (the event that
	// completed its previous step), -1 before anything: a job due at the
	// same time as another goes first if it became due earlier.
	push float64
}

// xout is a rank's part in one step: a send of sb bytes to to, a receive
// of rb bytes from from (-1: none).
type xout struct {
	to, sb   int
	from, rb int
}

// xsteps evaluates a sequence of steps over P ranks.
type xsteps struct {
	e     *env
	r     []xrank
	out   []xout
	start []float64 // this step's send start per rank (-1: none yet)
	order []int
}

func newXsteps(e *env) *xsteps {
	x := &xsteps{e: e, r: make([]xrank, e.P), out: make([]xout, e.P), start: make([]float64, e.P)}
	for i := range x.r {
		x.r[i].push = -1
	}
	x.clear()
	return x
}

// clear empties the step being built.
func (x *xsteps) clear() {
	for i := range x.out {
		x.out[i] = xout{to: -1, from: -1}
	}
}

// pair adds a message of b bytes from rank a to rank c to the step.
func (x *xsteps) pair(a, c, b int) {
	x.out[a].to, x.out[a].sb = c, b
	x.out[c].from, x.out[c].rb = a, b
}

// handle lets rank r's processor and receive interface take a b-byte
// message at h.
func (x *xsteps) handle(r int, h float64, b int) {
	c := x.e.cost(b)
	x.r[r].cpu = h + c.or + c.bytes()
	x.r[r].nr = h + c.g + c.gm
}

// run evaluates the step built with pair and clears it.
func (x *xsteps) run() {
	P := x.e.P
	x.order = x.order[:0]
	for r := range P {
		x.start[r] = -1
		if x.out[r].to >= 0 {
			x.order = append(x.order, r)
		}
	}
	due := func(r int) float64 { return max(x.r[r].cpu, x.r[r].ns) }
	slices.SortStableFunc(x.order, func(a, b int) int {
		switch da, db := due(a), due(b); {
		case da < db:
			return -1
		case da > db:
			return 1
		}
		return 0
	})
	handled := make([]bool, P)
	last := make([]float64, P) // start of the rank's later job this step
	for _, r := range x.order {
		d := due(r)
		if q := x.out[r].from; q >= 0 && x.start[q] >= 0 {
			c := x.e.cost(x.out[r].rb)
			h := max(x.start[q]+c.os+c.l, x.r[r].cpu, x.r[r].nr)
			// A tie goes to the job that became due first: the message
			// at its sender's send, the send when the step began.
			if h < d || h == d && x.start[q] < x.r[r].push {
				x.handle(r, h, x.out[r].rb)
				handled[r], last[r] = true, h
				d = due(r)
			}
		}
		c := x.e.cost(x.out[r].sb)
		x.start[r] = d
		x.r[r].cpu, x.r[r].ns = d+c.os+c.om, d+c.g+c.gm
		last[r] = max(last[r], d)
	}
	for r := range P {
		q := x.out[r].from
		if q < 0 || handled[r] {
			continue
		}
		c := x.e.cost(x.out[r].rb)
		h := max(x.start[q]+c.os+c.l, x.r[r].cpu, x.r[r].nr)
		x.handle(r, h, x.out[r].rb)
		last[r] = max(last[r], h)
	}
	for r := range P {
		if x.out[r].to >= 0 || x.out[r].from >= 0 {
			x.r[r].push = last[r]
		}
	}
	x.clear()
}

// finish is the last rank's finish: its processor's last job's end.
func (x *xsteps) finish() float64 {
	var f float64
	for _, r := range x.r {
		f = max(f, r.cpu)
	}
	return f
}

// elemBytes is the element size the reductions' blocks are cut in: a
// float64, as `nocsim coll` reduces, when the vector holds whole ones,
// else single bytes.
func elemBytes(m int) int {
	if m%8 == 0 {
		return 8
	}
	return 1
}

// redSplit is mpi's redSplit: count elements of es bytes in parts blocks,
// each starting on a word; block i is elements off[i]..off[i+1].
func redSplit(count, parts, es int) []int {
	gr := 1
	for gr*es%4 != 0 {
		gr++
	}
	units := count / gr
	off := make([]int, parts+1)
	for i := range parts {
		off[i] = gr * (units * i / parts)
	}
	off[parts] = count
	return off
}

// xfold is mpi's redFold: P ranks folded onto p = 2^floor(log2 P), the
// first 2(P-p) pairing up, the even one of a pair handing its data to the
// odd one.
type xfold struct{ p, rem int }

func newXfold(P int) xfold {
	p := 1 << (bits.Len(uint(P)) - 1)
	return xfold{p, P - p}
}

// real is the rank new rank j stands for.
func (f xfold) real(j int) int {
	if j < f.rem {
		return 2*j + 1
	}
	return j + f.rem
}

// foldIn is the step in which each even rank below 2 rem hands its m
// bytes to its odd partner.
func (x *xsteps) foldIn(f xfold, m int) {
	if f.rem == 0 {
		return
	}
	for j := range f.rem {
		x.pair(2*j, 2*j+1, m)
	}
	x.run()
}

// halving adds the recursive-halving reduce-scatter's steps among f's p
// ranks: new rank j ends with block bo[j]..bo[j+1] (elements of es bytes).
func (x *xsteps) halving(f xfold, bo []int, es int) {
	lo := make([]int, f.p)
	for mask := f.p / 2; mask > 0; mask >>= 1 {
		for nr := range f.p {
			keep, give := lo[nr], lo[nr]+mask
			if nr&mask != 0 {
				keep, give = give, keep
			}
			x.pair(f.real(nr), f.real(nr^mask), (bo[give+mask]-bo[give])*es)
			lo[nr] = keep
		}
		x.run()
	}
}

// xterms adds an exact evaluation's terms: the finish as one term (the
// steps overlap rank by rank, so it has no per-message breakdown).
func (e *env) xterms(name string, finish float64) {
	e.add(name, finish)
	e.add(noCompute, 0)
}

// foldOut is the step in which each odd rank below 2 rem hands its
// partner size(partner) bytes.
func (x *xsteps) foldOut(f xfold, size func(r int) int) {
	if f.rem == 0 {
		return
	}
	for j := range f.rem {
		x.pair(2*j+1, 2*j, size(2*j))
	}
	x.run()
}

// rsOffsets are reduce_scatter's blocks: count/P elements per rank, the
// last taking the remainder.
func rsOffsets(count, P int) []int {
	offs := make([]int, P+1)
	for i := range P {
		offs[i+1] = offs[i] + count/P
	}
	offs[P] = count
	return offs
}

// ringRS adds the ring reduce-scatter's P-1 steps over blocks bo (element
// offsets, es bytes each): in step s rank r sends block r-s-1 right and
// receives block r-s-2 from the left.
func (x *xsteps) ringRS(bo []int, es int) {
	P := x.e.P
	blk := func(i int) int { i = (i%P + P) % P; return (bo[i+1] - bo[i]) * es }
	for s := 0; s < P-1; s++ {
		for r := range P {
			x.pair(r, (r+1)%P, blk(r-s-1))
		}
		x.run()
	}
}

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

// cmpKey orders two events' keys: < 0 if a is taken first.
func cmpKey(a, b *evkey) int {
	for a != b {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		case a.up == nil && b.up == nil || a.up == b.up:
			return a.sub - b.sub
		case a.up == nil:
			return -1
		case b.up == nil:
			return 1
		}
		if c := cmpKey(a.up, b.up); c != 0 {
			return c
		}
		return a.sub - b.sub
	}
	return 0
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
	// start and startKey are, per step with a send, when the send started
	// and its event's key (outputs).
	start    []float64
	startKey []*evkey
}

// replay evaluates one rank's program given its messages' arrivals: its
// processor takes its sends (each due once the step before is complete
// and the send interface is free) and its messages (each due once it has
// arrived and the receive interface is free), whichever falls due first,
// in LogGOPS's order at a tie; a message that arrives before its step is
// handled then all the same and its receive completes when posted. It
// returns the rank's finish.
func (e *env) replay(x *xprog) float64 {
	var cpu, ns, nr float64
	K := len(x.steps)
	x.start, x.startKey = make([]float64, K), make([]*evkey, K)
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
		return cmpKey(x.sentBy[a], x.sentBy[b])
	})
	got := make([]*evkey, K) // the event that handled step k's message
	next := 0                // next message in order
	var ready *evkey         // the event that made the current step ready
	var post *evkey          // the current step's receive's post
	// The start queues every rank's first ops, sends first; a later
	// event queues one rank's, the send before the receive.
	sub := func(kind int) int {
		if ready == nil {
			return 2*x.rank + kind
		}
		return 1 + kind
	}
	for k := 0; k < K; {
		s := x.steps[k]
		if s.from >= 0 && post == nil {
			post = &evkey{t: cpu, up: ready, sub: sub(1)}
		}
		needSend := s.to >= 0 && x.startKey[k] == nil
		if !needSend && (s.from < 0 || got[k] != nil) {
			// Complete: by the later of its send and its receive's
			// completion (the message's handling, or the post if the
			// message was handled before it).
			var done *evkey
			if s.to >= 0 {
				done = x.startKey[k]
			}
			if s.from >= 0 {
				done = laterKey(done, laterKey(got[k], post))
			}
			ready, post = done, nil
			k++
			continue
		}
		// The next message and the send due, whichever is first.
		hi := -1
		var h float64
		var hk *evkey
		if next < len(order) {
			hi = order[next]
			h = max(x.arrive[hi], cpu, nr)
			hk = &evkey{t: h, up: x.sentBy[hi]}
		} else if !needSend {
			panic("logp: replay: a receive without its message")
		}
		if needSend {
			d := max(cpu, ns)
			sk := &evkey{t: d, up: ready, sub: sub(0)}
			if hi < 0 || cmpKey(sk, hk) < 0 {
				c := e.cost(s.sb)
				x.start[k], x.startKey[k] = d, sk
				cpu, ns = d+c.os+c.om, d+c.g+c.gm
				continue
			}
		}
		c := e.cost(x.steps[hi].rb)
		cpu, nr = h+c.or+c.bytes(), h+c.g+c.gm
		got[hi] = hk
		next++
	}
	return cpu
}
