package router

import "nocsim/des"

type pipeEntry[T any] struct {
	at des.Time
	v  T
}

// Pipe is a channel with a fixed delay: what is sent at cycle t can be
// received from cycle t+Lat on. Every send wakes the consumer for the
// arrival cycle, so consumers sleep while things are in flight.
//
// The fields both ends use on every item come first and fill one 64-byte
// line (buf to bit); a router keeps its incoming channels inside itself
// (see Build), so that they share its cache lines.
type Pipe[T any] struct {
	buf  []pipeEntry[T]
	head int32
	n    int32
	lat  des.Time
	eng  *des.Engine
	// due, if set (instead of notify), gets bit or'ed into the slot of the
	// arrival cycle, so a consumer visits a channel only in the cycles
	// something arrives on it, not while it is in flight. It needs
	// lat < dueSlots and a consumer that ticks in every arrival cycle.
	due  *[dueSlots]uint16
	wake int32
	bit  uint16
	// notify, if set, gets bit or'ed in on every send, so a consumer with
	// many input channels visits only those with something in them.
	notify *uint16
	// reserve is the buffer the first send makes: the most items the
	// channel can hold at once, when its consumer knows it (see Reserve).
	reserve int
}

// dueSlots is the reach of a due ring in cycles: channels with a delay
// below it are tracked by arrival cycle. A power of two.
const dueSlots = 16

// NewPipe returns a pipe with delay lat (at least 1) that wakes ticker wake.
// Its buffer is made on the first send (the Reserve bound, or 8 items) and
// doubles when full, so a large mesh pays nothing for channels that stay
// idle; with a Reserve bound that holds it never grows again.
func NewPipe[T any](eng *des.Engine, lat des.Time, wake int32) *Pipe[T] {
	return &Pipe[T]{lat: lat, eng: eng, wake: wake}
}

// init makes p, in place, what NewPipe would return.
func (p *Pipe[T]) init(eng *des.Engine, lat des.Time, wake int32) {
	*p = Pipe[T]{lat: lat, eng: eng, wake: wake}
}

// SetWake changes which ticker the pipe wakes; used when the consumer is
// registered after the pipe is built.
func (p *Pipe[T]) SetWake(id int32) { p.wake = id }

// Send puts v on the pipe at cycle now.
func (p *Pipe[T]) Send(now des.Time, v T) { *p.slot(now) = v }

// slot appends an item sent at cycle now and returns where its value goes,
// so that a sender can fill it in place. Writing through the buffer
// instead of building an entry on the stack and copying it matters for
// flits: a 20-byte value copied twice in a row through the stack moves as
// two overlapping 16-byte halves, and the processor cannot forward such a
// pair of stores to the load that follows them, which stalls every copy.
func (p *Pipe[T]) slot(now des.Time) *T {
	if int(p.n) == len(p.buf) {
		p.grow()
	}
	e := &p.buf[int(p.head+p.n)&(len(p.buf)-1)]
	e.at = now + p.lat
	p.n++
	if p.due != nil {
		p.due[(now+p.lat)&(dueSlots-1)] |= p.bit
	} else if p.notify != nil {
		*p.notify |= p.bit
	}
	p.eng.Wake(p.wake, now+p.lat)
	return &e.v
}

// front is the oldest item, in place; call only when Ready. drop removes it.
func (p *Pipe[T]) front() *T { return &p.buf[p.head].v }

func (p *Pipe[T]) drop() {
	p.head = (p.head + 1) & int32(len(p.buf)-1)
	p.n--
}

// Ready reports whether an item has arrived by cycle now.
func (p *Pipe[T]) Ready(now des.Time) bool { return p.n > 0 && p.buf[p.head].at <= now }

// Recv takes the oldest item; call only when Ready.
func (p *Pipe[T]) Recv() T {
	v := p.buf[p.head].v
	p.head = (p.head + 1) & int32(len(p.buf)-1)
	p.n--
	return v
}

// Next is the arrival cycle of the oldest item, or des.Never.
func (p *Pipe[T]) Next() des.Time {
	if p.n == 0 {
		return des.Never
	}
	return p.buf[p.head].at
}

// Len is the number of items in flight.
func (p *Pipe[T]) Len() int { return int(p.n) }

// Reserve sets the buffer the first send makes to hold n items (rounded
// up to a power of two): the most the channel can ever hold, so that it
// allocates once, on first use, and never again.
func (p *Pipe[T]) Reserve(n int) {
	c := 1
	for c < n {
		c *= 2
	}
	p.reserve = c
}

func (p *Pipe[T]) grow() {
	size := 2 * len(p.buf)
	if size == 0 {
		size = 8
		if p.reserve > 0 {
			size = p.reserve
		}
	}
	nb := make([]pipeEntry[T], size)
	for i := range int(p.n) {
		nb[i] = p.buf[(int(p.head)+i)&(len(p.buf)-1)]
	}
	p.buf, p.head = nb, 0
}
