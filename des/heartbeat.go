package des

import "sync/atomic"

// HeartbeatEvents is how much work (events plus ticker invocations) an
// engine does between two heartbeats. At tens of millions of events a CPU
// second that is a beat every few milliseconds: often enough for a progress
// bar inside one long run, rare enough to cost nothing measurable.
const HeartbeatEvents = 1 << 16

// Heartbeat is called from inside Run, on the engine's own goroutine, every
// HeartbeatEvents of work. It may read e.Now() but must not change the
// engine: it observes, so that a progress display can never change a result.
type Heartbeat func(e *Engine)

// heartbeat is process-wide because engines are made deep inside the
// packages that use them (one per point, several in parallel); a process
// runs one command, and one display listens.
var heartbeat atomic.Pointer[Heartbeat]

// SetHeartbeat installs f for every Run that starts from now on (nil
// removes it) and returns the heartbeat it replaced.
func SetHeartbeat(f Heartbeat) Heartbeat {
	var old *Heartbeat
	if f == nil {
		old = heartbeat.Swap(nil)
	} else {
		old = heartbeat.Swap(&f)
	}
	if old == nil {
		return nil
	}
	return *old
}

// noBeat is a work count never reached: with no heartbeat the run loop's
// check is a compare that always fails.
const noBeat = ^uint64(0)

// startBeat reads the installed heartbeat at the start of a Run and says
// whether the Run's work is to be added to the process totals.
func (e *Engine) startBeat() bool {
	e.beatAt = noBeat
	e.beat = nil
	if f := heartbeat.Load(); f != nil {
		e.beat = *f
		e.beatAt = e.events + e.ticks + HeartbeatEvents
	}
	return counting.Load()
}

// doBeat calls the heartbeat; the run loop calls it once beatAt is reached.
func (e *Engine) doBeat() {
	e.beatAt = e.events + e.ticks + HeartbeatEvents
	e.beat(e)
}

// Totals is work done by every engine of the process, counted when each Run
// returns: speed figures for a whole command divide it by the process's CPU
// time.
type Totals struct {
	Cycles uint64 // simulated cycles advanced, summed over engines
	Events uint64 // events handled plus ticker invocations
}

var (
	totalCycles, totalEvents atomic.Uint64
	counting                 atomic.Bool
)

// CountWork turns the process totals on or off. Off by default: counting
// costs two atomic adds a Run, nothing next to a whole simulation but
// measurable where Run is called for a handful of events (the kernel's
// benchmarks).
func CountWork(on bool) { counting.Store(on) }

// ProcessTotals is the work done by every Run that has returned so far
// while CountWork was on.
func ProcessTotals() Totals {
	return Totals{Cycles: totalCycles.Load(), Events: totalEvents.Load()}
}

// account adds one Run's work to the process totals (once a Run, never per
// event).
func (e *Engine) account(from Time, events, ticks uint64) {
	totalCycles.Add(uint64(e.now - from))
	totalEvents.Add(e.events - events + e.ticks - ticks)
}
