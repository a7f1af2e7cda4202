package des

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// Time is simulated time in cycles. Conversion to seconds happens only at
// the edges (reports), with a clock frequency from the configuration.
type Time = int64

// Handler receives a scheduled event. Handlers are usually long-lived
// component pointers, so storing one in an event allocates nothing.
type Handler interface {
	Handle(now Time, arg int64)
}

// Ticker is a component that does work every cycle while it is busy. Tick
// returns the next cycle it needs: now+1 to stay busy, a later cycle to
// sleep until then (the next arrival it knows of), or Never to sleep until
// woken. A Wake for an earlier cycle always takes effect.
//
// A Ticker must only read inputs that arrived at or before now and only
// produce outputs that arrive after now, so that the order in which tickers
// are visited within a cycle can never change a result.
type Ticker interface {
	Tick(now Time) Time
}

// Never is a wake-up time that never comes.
const Never Time = 1<<63 - 1

type event struct {
	at  Time
	seq uint64
	h   Handler
	arg int64
}

func (a *event) before(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// wheelSize bounds how far ahead a wake-up goes in the wheel; later ones
// go through the event heap.
const wheelSize = 1 << 8

type wakeHandler struct{ e *Engine }

func (w *wakeHandler) Handle(now Time, id int64) {
	if w.e.wakeAt[id] == now {
		w.e.wakeAt[id] = Never
		w.e.wakeNow(int32(id))
	}
}

// Stall describes why a run was stopped by the watchdog.
type Stall struct {
	At     Time   // cycle at which the watchdog fired
	Since  Time   // last cycle at which any progress was reported
	Report string // what is blocked on what, from the StallReporter
}

func (s *Stall) Error() string {
	return fmt.Sprintf("deadlock: no progress for %d cycles (cycle %d, last progress at %d)\n%s",
		s.At-s.Since, s.At, s.Since, s.Report)
}

// Engine runs one simulation. The zero value is not usable; call New.
type Engine struct {
	now     Time
	done    Time // last cycle whose tick phase has run
	seq     uint64
	heap    []event
	stopped bool

	// Busy tickers sit in active and tick every cycle. Sleeping ones with
	// a known wake-up wait in a timing wheel: nearly every wake-up falls a
	// few cycles ahead (a flit or credit arriving over a channel), so a
	// bucket append replaces a heap operation. Stale wheel entries (the
	// ticker was woken earlier, or is busy) are skipped when their bucket
	// comes up. Buckets keep their capacity, so they end up sized to the
	// most wake-ups one cycle has seen (growBucket), not to the number of
	// tickers.
	tickers []Ticker
	busy    []bool
	wakeAt  []Time // for sleeping tickers: the pending wake-up, or Never
	active  []int32
	wheel   [][]int32
	inWheel int
	farWake wakeHandler
	// bucketCap is every wheel bucket's capacity (see growBucket).
	bucketCap int

	// With TickByID, busy tickers are a bit set instead of the active
	// list, visited in id order: one bit per ticker, and a summary bit per
	// non-zero word so that a pass skips idle stretches 4096 tickers at a
	// time.
	byID    bool
	actBits []uint64
	actSum  []uint64
	nActive int

	events uint64 // events handled
	ticks  uint64 // ticker invocations

	// Watchdog: if tickers stay busy but nobody calls Progress for
	// watchdog cycles, the run stops with a Stall.
	watchdog   Time
	holds      int // while positive, waiting is legitimate: the watchdog sleeps
	lastProg   Time
	reporter   func() string
	stall      *Stall
	shuffleRNG *rand.Rand

	beat   Heartbeat // see heartbeat.go
	beatAt uint64    // events+ticks at which beat is next due
}

// New returns an empty engine at cycle 0.
func New() *Engine {
	e := &Engine{heap: make([]event, 0, 256), done: -1, wheel: make([][]int32, wheelSize)}
	e.farWake.e = e
	return e
}

// Now is the current cycle.
func (e *Engine) Now() Time { return e.now }

// Events is the number of events handled so far.
func (e *Engine) Events() uint64 { return e.events }

// Ticks is the number of ticker invocations so far.
func (e *Engine) Ticks() uint64 { return e.ticks }

// Pending is the number of scheduled events not yet handled.
func (e *Engine) Pending() int { return len(e.heap) }

// Schedule arranges for h.Handle(at, arg) to be called at cycle at. Events
// at the same cycle run in the order they were scheduled, before that
// cycle's tickers. An event for the current cycle scheduled after its tick
// phase (by a ticker, or between runs) runs at the start of the next
// cycle, so an event can never reorder history. A time before Now is a
// bug in the caller and panics.
func (e *Engine) Schedule(at Time, h Handler, arg int64) {
	if at < e.now {
		panic(fmt.Sprintf("des: event scheduled for cycle %d at cycle %d: time cannot go back", at, e.now))
	}
	at = max(at, e.floor())
	e.seq++
	e.heap = append(e.heap, event{at: at, seq: e.seq, h: h, arg: arg})
	e.up(len(e.heap) - 1)
}

// Register adds a ticker and returns its id for Wake. It starts asleep.
func (e *Engine) Register(t Ticker) int32 {
	e.tickers = append(e.tickers, t)
	e.busy = append(e.busy, false)
	e.wakeAt = append(e.wakeAt, Never)
	if w := (len(e.tickers) + 63) / 64; w > len(e.actBits) {
		e.actBits = append(e.actBits, 0)
		if s := (w + 63) / 64; s > len(e.actSum) {
			e.actSum = append(e.actSum, 0)
		}
	}
	return int32(len(e.tickers) - 1)
}

// Ticking reports whether ticker id ticks every cycle until its Tick says
// otherwise, so that a Wake for it would change nothing. It is small enough
// to inline: a sender that wakes its receiver on nearly every flit finds it
// busy most of the time, and checking first saves the call, which in Go
// costs spilling and reloading every value the caller keeps live.
func (e *Engine) Ticking(id int32) bool { return e.busy[id] }

// Wake makes ticker id tick at cycle at, or at the first cycle that has not
// ticked yet if at is earlier. Waking a busy ticker, or one already due to
// wake no later, changes nothing.
func (e *Engine) Wake(id int32, at Time) {
	at = max(at, e.floor())
	if e.busy[id] || at >= e.wakeAt[id] {
		return
	}
	e.wakeAt[id] = at
	if at-e.done >= wheelSize {
		e.Schedule(at, &e.farWake, int64(id))
		return
	}
	b := &e.wheel[at&(wheelSize-1)]
	if len(*b) == cap(*b) {
		e.growBucket()
	}
	*b = append(*b, id)
	e.inWheel++
}

// growBucket makes room in a full wheel bucket. The buckets share one
// array, bucketCap entries each, and the first to outgrow it doubles them
// all at once: a bucket growing on its own would allocate the first time
// it met the busiest cycle's wake-ups, which in a long steady run happens
// now and then for ever, and the shared array costs one allocation per
// doubling. Each holds at most twice the busiest cycle's wake-ups, so none
// is sized by the number of tickers.
func (e *Engine) growBucket() {
	c := max(2*e.bucketCap, 8)
	nb := make([]int32, wheelSize*c)
	for i, b := range e.wheel {
		e.wheel[i] = append(nb[i*c:i*c:(i+1)*c], b...)
	}
	e.bucketCap = c
}

// Activate wakes ticker id at the first cycle that has not ticked yet.
func (e *Engine) Activate(id int32) { e.Wake(id, e.floor()) }

// floor is the earliest cycle that can still be affected: the current one
// while its events run, the next one once it has ticked.
func (e *Engine) floor() Time { return max(e.now, e.done+1) }

// Progress tells the watchdog that something moved.
func (e *Engine) Progress() { e.lastProg = e.now }

// Hold tells the watchdog that work is under way that will make progress
// by itself later (a processor computing), so that busy components that
// wait on it are not a deadlock. Release ends a Hold.
func (e *Engine) Hold() { e.holds++ }

// Release ends one Hold; the watchdog counts from here.
func (e *Engine) Release() {
	e.holds--
	e.lastProg = e.now
}

// Watchdog is the armed watchdog's limit in cycles (0 when disarmed).
func (e *Engine) Watchdog() Time { return e.watchdog }

// Busy reports whether anything is left to do: events or tickers.
func (e *Engine) Busy() bool {
	_, ok := e.nextCycle()
	return ok
}

// SetWatchdog arms the watchdog: a run whose tickers stay busy for cycles
// cycles without any Progress call stops, and report explains why.
// cycles <= 0 disarms it.
func (e *Engine) SetWatchdog(cycles Time, report func() string) {
	e.watchdog = cycles
	e.reporter = report
}

// ShuffleTicks makes the engine visit busy tickers in a random order each
// cycle. It exists to test that visiting order never changes a result. It
// cannot be combined with TickByID.
func (e *Engine) ShuffleTicks(seed uint64) {
	if e.byID {
		panic("des: ShuffleTicks after TickByID")
	}
	e.shuffleRNG = rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// TickByID makes the engine visit busy tickers in the order of their ids
// (registration order) each cycle, instead of the order in which they
// became busy. Components registered in the order of their memory (a
// mesh's routers, then its NIUs) are then visited in that order, which on
// a large mesh, whose state does not fit the caches, spares most cache and
// TLB misses. It is for simulations whose tickers keep the Ticker
// contract strictly, so that the visiting order cannot change a result
// (synthetic traffic); the default order is kept elsewhere because
// callbacks made from a tick (deliveries to programs) schedule events, and
// their order decides ties. Call it before the run starts; it cannot be
// combined with ShuffleTicks.
func (e *Engine) TickByID() {
	if e.shuffleRNG != nil {
		panic("des: TickByID after ShuffleTicks")
	}
	if e.byID {
		return
	}
	e.byID = true
	for _, id := range e.active {
		e.setActive(id)
	}
	e.active = e.active[:0]
}

func (e *Engine) setActive(id int32) {
	w := id >> 6
	e.actBits[w] |= 1 << (id & 63)
	e.actSum[w>>6] |= 1 << (w & 63)
	e.nActive++
}

// Stop ends Run after the current event or cycle.
func (e *Engine) Stop() { e.stopped = true }

// Stalled returns the watchdog's finding if it stopped the last run.
func (e *Engine) Stalled() *Stall { return e.stall }

// Run advances time until nothing is left to do, until cycle `until` has
// been fully processed (until < 0 means no limit), until Stop is called, or
// until the watchdog fires. It returns the watchdog's Stall as an error in
// the last case.
func (e *Engine) Run(until Time) error {
	e.stopped = false
	e.stall = nil
	e.lastProg = e.now
	if e.startBeat() {
		defer e.account(e.now, e.events, e.ticks)
	}
	end := until
	if end < 0 {
		end = Never
	}
	for !e.stopped {
		if e.events+e.ticks >= e.beatAt {
			e.doBeat()
		}
		next, ok := e.done+1, true
		if len(e.active) == 0 && e.nActive == 0 {
			// Nothing ticks next cycle: find the next thing to do.
			if next, ok = e.nextCycle(); !ok {
				return nil
			}
		}
		if next > end {
			return nil
		}
		if next > e.done+1 {
			// Skipped cycles were idle; idle time is not a stall.
			e.lastProg = max(e.lastProg, next-1)
		}
		e.now = next
		for len(e.heap) > 0 && e.heap[0].at <= e.now && !e.stopped {
			ev := e.pop()
			e.events++
			ev.h.Handle(e.now, ev.arg)
		}
		if e.stopped {
			return nil
		}
		e.done = e.now
		if !e.tickAll() {
			// Nothing ticked: time may jump, and the watchdog measures
			// only busy stretches.
			e.lastProg = e.now
			continue
		}
		if e.holds > 0 {
			e.lastProg = e.now
		} else if e.watchdog > 0 && e.now-e.lastProg >= e.watchdog {
			e.stall = &Stall{At: e.now, Since: e.lastProg}
			if e.reporter != nil {
				e.stall.Report = e.reporter()
			}
			return e.stall
		}
	}
	return nil
}

// nextCycle is the earliest cycle with an event, a busy ticker or a
// wake-up.
func (e *Engine) nextCycle() (Time, bool) {
	if len(e.active) > 0 || e.nActive > 0 {
		return e.done + 1, true
	}
	next, ok := Time(0), false
	if len(e.heap) > 0 {
		next, ok = max(e.heap[0].at, e.done+1), true
	}
	if e.inWheel > 0 {
		for t := e.done + 1; !ok || t < next; t++ {
			if len(e.wheel[t&(wheelSize-1)]) > 0 {
				return t, true
			}
		}
	}
	return next, ok
}

func (e *Engine) wakeNow(id int32) {
	e.busy[id] = true
	if e.byID {
		e.setActive(id)
		return
	}
	e.active = append(e.active, id)
}

// tickAll ticks every busy ticker and every one due to wake this cycle; it
// reports whether any ticked.
func (e *Engine) tickAll() bool {
	slot := &e.wheel[e.now&(wheelSize-1)]
	if due := *slot; len(due) > 0 {
		e.inWheel -= len(due)
		for _, id := range due {
			if !e.busy[id] && e.wakeAt[id] == e.now {
				e.wakeAt[id] = Never
				e.wakeNow(id)
			}
		}
		*slot = due[:0]
	}
	if e.byID {
		return e.tickByID()
	}
	n := len(e.active)
	if n == 0 {
		return false
	}
	if e.shuffleRNG != nil {
		r := e.shuffleRNG
		for i := n - 1; i > 0; i-- {
			j := r.IntN(i + 1)
			e.active[i], e.active[j] = e.active[j], e.active[i]
		}
	}
	// Wakes during the pass are for later cycles (every channel delays by
	// at least one), so they never touch this pass's list, which is
	// compacted in place: the tickers staying busy keep their order.
	// The loop keeps only what it needs in locals: the ticker call
	// clobbers every register, so each value live across it is reloaded
	// on every tick.
	active, now, j := e.active, e.now, 0
	for _, id := range active {
		at := e.tickers[id].Tick(now)
		if at <= now+1 {
			active[j] = id
			j++
			continue
		}
		e.busy[id] = false
		if at != Never {
			e.Wake(id, at)
		}
	}
	e.ticks += uint64(len(active))
	e.active = e.active[:j]
	return true
}

// tickByID is tickAll's pass over the busy set in id order. As in the list
// pass, wakes made during it are for later cycles and go to the wheel, so
// the set changes only by the bits of tickers going to sleep.
func (e *Engine) tickByID() bool {
	if e.nActive == 0 {
		return false
	}
	next := e.now + 1
	for si := range e.actSum {
		for sw := e.actSum[si]; sw != 0; sw &= sw - 1 {
			wi := si<<6 | bits.TrailingZeros64(sw)
			w := e.actBits[wi]
			for m := w; m != 0; m &= m - 1 {
				b := bits.TrailingZeros64(m)
				id := int32(wi<<6 | b)
				e.ticks++
				at := e.tickers[id].Tick(e.now)
				if at <= next {
					continue
				}
				w &^= 1 << (b & 63)
				e.nActive--
				e.busy[id] = false
				if at != Never {
					e.Wake(id, at)
				}
			}
			e.actBits[wi] = w
			if w == 0 {
				e.actSum[si] &^= 1 << (wi & 63)
			}
		}
	}
	return true
}

func (e *Engine) up(i int) {
	h := e.heap
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (e *Engine) pop() event {
	h := e.heap
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = event{}
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	e.heap = h
	return top
}
