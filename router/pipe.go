package router

import (
	"fmt"
	"math"

	"nocsim/des"
)

type pipeEntry[T any] struct {
	at des.Time
	v  T
}

// Pipe is a channel with a fixed delay: what is sent at cycle t can be
// received from cycle t+Lat on. Every send wakes the consumer for the
// arrival cycle, so consumers sleep while things are in flight.
//
// It is 64 bytes, one cache line: a router keeps the channels it consumes
// inside itself, aligned to lines (see Router), so that both ends of a
// channel touch one line of it per item.
type Pipe[T any] struct {
	buf  []pipeEntry[T]
	head int32
	n    int32
	lat  int32 // delay in cycles, at least 1 (spec delays are at most a few thousand)
	wake int32
	eng  *des.Engine
	// sig, if set, is the consumer's signal bits, and bit is or'ed in on
	// every send: into sig[arrival cycle mod dueSlots] when lat <
	// dueSlots, so that a consumer visits a channel only in the cycles
	// something arrives on it (it must tick in every such cycle), and
	// otherwise into sig[dueSlots], so that a consumer with many input
	// channels visits only those with something in them.
	sig *[dueSlots + 1]uint16
	bit uint16
	// reserve is the buffer the first send makes: the most items the
	// channel can hold at once, when its consumer knows it (see Reserve).
	reserve int32
}

// dueSlots is the reach of a due ring in cycles: channels with a delay
// below it are tracked by arrival cycle. A power of two.
const dueSlots = 4

// NewPipe returns a pipe with delay lat (at least 1) that wakes ticker wake.
// Its buffer is made on the first send (the Reserve bound, or 8 items) and
// doubles when full, so a large mesh pays nothing for channels that stay
// idle; with a Reserve bound that holds it never grows again.
func NewPipe[T any](eng *des.Engine, lat des.Time, wake int32) *Pipe[T] {
	p := new(Pipe[T])
	p.init(eng, lat, wake)
	return p
}

// init makes p, in place, what NewPipe would return.
func (p *Pipe[T]) init(eng *des.Engine, lat des.Time, wake int32) {
	if lat < 1 || lat > math.MaxInt32 {
		panic(fmt.Sprintf("router: channel delay %d out of range", lat))
	}
	*p = Pipe[T]{lat: int32(lat), eng: eng, wake: wake}
}

// SetWake changes which ticker the pipe wakes; used when the consumer is
// registered after the pipe is built, or by a consumer that reads the
// pipe only when it needs to. A negative id wakes nobody: the consumer
// then polls the pipe, and must look for items that arrived while it
// slept (Next).
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
	at := now + des.Time(p.lat)
	e := &p.buf[int(p.head+p.n)&(len(p.buf)-1)]
	e.at = at
	p.n++
	if s := p.sig; s != nil {
		if p.lat < dueSlots {
			// The consumer ticks in every cycle with a bit in its ring,
			// so if another channel already set one for this cycle, it
			// has been woken for it and waking it again would change
			// nothing.
			old := s[at&(dueSlots-1)]
			s[at&(dueSlots-1)] = old | p.bit
			if old != 0 {
				return &e.v
			}
		} else {
			s[dueSlots] |= p.bit
		}
	}
	if p.wake >= 0 && !p.eng.Ticking(p.wake) {
		p.eng.Wake(p.wake, at)
	}
	return &e.v
}

// front is the oldest item, in place; call only when Ready. drop removes it.
func (p *Pipe[T]) front() *T { return &p.buf[p.head].v }

func (p *Pipe[T]) drop() {
	p.head = (p.head + 1) & int32(len(p.buf)-1)
	p.n--
}

// Slot puts an item on the pipe at cycle now and returns where its value
// goes, for a sender that builds the item in place (see slot).
func (p *Pipe[T]) Slot(now des.Time) *T { return p.slot(now) }

// Front is the oldest item, in place, and Drop removes it; call them
// only when Ready. A consumer that stores items elsewhere copies them
// from the pipe's buffer straight to their place with these, instead of
// through a value on the stack as Recv returns it.
func (p *Pipe[T]) Front() *T { return p.front() }

// Drop removes the oldest item; see Front.
func (p *Pipe[T]) Drop() { p.drop() }

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

// At is the i-th oldest item (0 is the front), for checks that look at
// what is in flight without taking it.
func (p *Pipe[T]) At(i int) T { return p.buf[(int(p.head)+i)&(len(p.buf)-1)].v }

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
	p.reserve = int32(c)
}

func (p *Pipe[T]) grow() {
	size := 2 * len(p.buf)
	if size == 0 {
		size = 8
		if p.reserve > 0 {
			size = int(p.reserve)
		}
	}
	nb := make([]pipeEntry[T], size)
	for i := range int(p.n) {
		nb[i] = p.buf[(int(p.head)+i)&(len(p.buf)-1)]
	}
	p.buf, p.head = nb, 0
}
