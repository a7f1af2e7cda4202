package logp

import (
	"slices"
)

// The rings (mpi's ring reduce-scatter and allgather) evaluated step by
// step: every rank's processor, send and receive interface clocks carried
// from one step to the next under LogGOPS's rules. In a step each rank
// posts a receive from its left neighbour and a send to its right one and
// waits for both (mpi's sendrecv). Its send is due when its processor and
// send interface are free after its previous step; its neighbour's message
// is handled once it has arrived and the processor and receive interface
// are free, before the send if it falls due first (at a tie, in LogGOPS's
// order: evkey). A rank hears from its left neighbour only, whose messages
// arrive in the order they were sent, so no message is handled before the
// step it belongs to: the steps can be evaluated one after the other,
// O(P) each. (The other exchange algorithms, whose ranks hear from many,
// are replayed rank by rank: predict_replay.go.)

// xrank is one rank's state between steps.
type xrank struct {
	cpu, ns, nr float64 // processor, send and receive interface free
	ready       *evkey  // the event that made its current step ready (nil: the start)
}

// xout is a rank's part in one step: a send of sb bytes to to, a receive
// of rb bytes from from (-1: none), and more sends posted with the first
// (a tree's sends to a rank's children, waited for together; only the
// replay of predict_replay.go takes them).
type xout struct {
	to, sb   int
	from, rb int
	more     []xdest
}

// xdest is one more send of a step: b bytes to rank to.
type xdest struct{ to, b int }

// nsends is how many sends the step posts.
func (o *xout) nsends() int {
	if o.to < 0 {
		return 0
	}
	return 1 + len(o.more)
}

// send is the step's j-th send.
func (o *xout) send(j int) (to, b int) {
	if j == 0 {
		return o.to, o.sb
	}
	return o.more[j-1].to, o.more[j-1].b
}

// xsteps evaluates a sequence of steps over P ranks.
type xsteps struct {
	e     *env
	r     []xrank
	out   []xout
	sent  []*evkey   // this step's send per rank (nil: none yet)
	hist  [][]*evkey // every step's sent, in order
	steps [][]xout   // every step's out, in order
	// unsure is set once a message may have come before its step (see
	// run); lastSend and lastArr are each rank's latest send start and
	// message arrival; post and got are run's scratch.
	unsure            bool
	lastSend, lastArr []float64
	post, got         []*evkey
	order             []int
}

func newXsteps(e *env) *xsteps {
	x := &xsteps{e: e, r: make([]xrank, e.P), out: make([]xout, e.P), sent: make([]*evkey, e.P)}
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

// queued is the key of an op rank r's step queued when it became ready:
// the start queues every rank's first ops rank by rank, sends first; a
// later event one rank's, its send before its receive.
func queued(r int, ready *evkey, t float64, kind int) *evkey {
	return &evkey{t: t, up: ready, sub: opSub(r, ready, kind, 0)}
}

// opSub is where the j-th op of a kind (0 send, 1 receive) of rank r's
// step stands among the ops queued with it (see evkey): the start queues
// every rank's first ops rank by rank, sends before receives, each kind
// in schedule order; a later event (ready) queues one rank's, after the
// message its send event queued first.
func opSub(r int, ready *evkey, kind, j int) int {
	if ready == nil {
		return (2*r+kind)<<24 + j
	}
	return 1 + kind<<24 + j
}

// run evaluates the step built with pair and clears it. Ranks are taken
// in the order their sends fall due: a message can only come before its
// receiver's send if it was sent earlier (o_s + L > 0).
func (x *xsteps) run() {
	P := x.e.P
	x.order = x.order[:0]
	for r := range P {
		x.sent[r] = nil
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
	if x.post == nil {
		x.post, x.got = make([]*evkey, P), make([]*evkey, P)
		x.lastSend, x.lastArr = make([]float64, P), make([]float64, P)
		for r := range P {
			x.lastSend[r], x.lastArr[r] = -1, -1
		}
	}
	post, got := x.post, x.got // each rank's receive's post, its message's handling
	clear(got)
	for r := range P {
		if x.out[r].from >= 0 {
			post[r] = queued(r, x.r[r].ready, x.r[r].cpu, 1)
		}
	}
	// msg is the handling of rank r's message, due now.
	msg := func(r int) *evkey {
		q := x.out[r].from
		c := x.e.cost(x.out[r].rb)
		return &evkey{t: max(x.sent[q].t+c.os+c.l, x.r[r].cpu, x.r[r].nr), up: x.sent[q]}
	}
	handle := func(r int, h *evkey) {
		c := x.e.cost(x.out[r].rb)
		x.r[r].cpu, x.r[r].nr = h.t+c.or+c.bytes(), h.t+c.g+c.gm
		got[r] = h
	}
	for _, r := range x.order {
		if q := x.out[r].from; q >= 0 && x.sent[q] != nil {
			if h := msg(r); cmpKey(h, queued(r, x.r[r].ready, due(r), 0)) < 0 {
				handle(r, h)
			}
		}
		c := x.e.cost(x.out[r].sb)
		d := due(r)
		x.sent[r] = queued(r, x.r[r].ready, d, 0)
		x.r[r].cpu, x.r[r].ns = d+c.os+c.om, d+c.g+c.gm
	}
	for r := range P {
		if x.out[r].from >= 0 && got[r] == nil {
			handle(r, msg(r))
		}
	}
	// The steps are right if no message could be taken before the step it
	// belongs to: each arrives after the message before it and after its
	// receiver's send of the step before began.
	for r := range P {
		if q := x.out[r].from; q >= 0 {
			c := x.e.cost(x.out[r].rb)
			a := x.sent[q].t + c.os + c.l
			x.unsure = x.unsure || a <= x.lastArr[r] || a <= x.lastSend[r]
			x.lastArr[r] = a
		}
		if x.out[r].to >= 0 {
			x.lastSend[r] = x.sent[r].t
		}
	}
	x.hist = append(x.hist, slices.Clone(x.sent))
	x.steps = append(x.steps, slices.Clone(x.out))
	for r := range P {
		if x.out[r].to >= 0 || x.out[r].from >= 0 {
			// The step is complete at the later of its send and its
			// receive's completion (the handling, or the post if the
			// message was handled first).
			var done *evkey
			if x.out[r].to >= 0 {
				done = x.sent[r]
			}
			if x.out[r].from >= 0 {
				done = laterKey(done, laterKey(got[r], post[r]))
			}
			x.r[r].ready = done
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

// xterms adds an exact evaluation's terms: the finish as one term (the
// steps overlap rank by rank, so it has no per-message breakdown).
func (e *env) xterms(name string, finish float64) {
	e.add(name, finish)
	e.add(noCompute, 0)
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

// replayed is the finish of the steps evaluated. A rank whose send
// interface is slow (a big block, G large) can take the next step's
// message before its own send, which the steps, one message per step, do
// not see; when that may have happened (unsure), every rank is replayed
// (xprogs.finish) from the sends the steps gave.
func (x *xsteps) replayed() float64 {
	if !x.unsure {
		return x.finish()
	}
	p := newXprogs(x.e.P)
	for k, outs := range x.steps {
		for r, o := range outs {
			if o.to >= 0 || o.from >= 0 {
				p[r].steps = append(p[r].steps, o)
			}
			if o.to >= 0 {
				p[r].startKey = append(p[r].startKey, x.hist[k][r])
			}
		}
	}
	return p.finish(x.e)
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
