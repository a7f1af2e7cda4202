package endpoint

import (
	"errors"
	"fmt"
	"iter"
	"runtime/debug"

	"nocsim/des"
)

// Thread is one thread of a tile's processor: the main program, or a
// handler created by a THREAD message. Its body is ordinary Go code run as
// a coroutine: it holds the processor until it computes, suspends or waits,
// and exactly one coroutine of the whole machine runs at any moment, so a
// run is deterministic and never depends on wall-clock time.
//
// A handler's Thread and its coroutine are recycled when it ends (the
// machine keeps a pool of each), so a long run's THREAD messages neither
// allocate nor accumulate: a handler must not keep its *Thread, or its
// args slice, past its return.
type Thread struct {
	Name string
	node *Node
	main bool

	co   *coroutine // while started: the coroutine running the body
	body func(t *Thread)
	fn   ThreadFunc // a handler's body, with args
	args []uint32   // a handler's arguments (its own copy, reused)

	req        request
	cond       func() bool  // while blocked: what it waits for
	what       string       // the same, for reports
	whatS      fmt.Stringer // or this, formatted only for a report
	gen        int64        // generation of its resume event; older ones are stale
	computeEnd des.Time     // while computing: when the computation ends
	pollDue    bool         // woken from a wait loop: its poll turn is still to be charged
	then       des.Time     // computing: a computation to charge straight after (ComputeThen)
	remaining  des.Time     // computation left after a preemption
	state      threadState
	ended      bool // the body returned (or panicked)
	err        error
}

type threadState uint8

const (
	threadReady threadState = iota
	threadRunning
	threadBlocked
	threadDone
)

type requestKind uint8

const (
	reqCompute requestKind = iota
	reqSuspend
	reqBlock
)

type request struct {
	kind   requestKind
	cycles des.Time
	then   des.Time // a second computation straight after (ComputeThen)
}

// errStopped unwinds a coroutine whose machine is shutting down.
var errStopped = errors.New("thread stopped")

// coroutine runs thread bodies one after another: when a body ends it
// reports so and waits, suspended, for the next thread the machine gives
// it. Creating one (iter.Pull) costs a goroutine and several allocations;
// reusing one costs a switch.
type coroutine struct {
	next    func() (struct{}, bool)
	stop    func()
	yield   func(struct{}) bool
	t       *Thread // the thread it runs now
	stopped bool    // Close unwound it
}

func newCoroutine() *coroutine {
	c := &coroutine{}
	c.next, c.stop = iter.Pull(func(yield func(struct{}) bool) {
		c.yield = yield
		for {
			c.runBody()
			if c.stopped {
				return
			}
			c.t.ended = true
			c.t = nil
			// Idle until the machine hands it the next thread.
			if !yield(struct{}{}) {
				return
			}
		}
	})
	return c
}

// runBody runs the current thread's body, turning a panic into the
// thread's error (with its stack) and a shutdown into a stop.
func (c *coroutine) runBody() {
	t := c.t
	defer func() {
		if r := recover(); r != nil {
			if r == errStopped {
				c.stopped = true
				return
			}
			t.err = fmt.Errorf("%s on %s: panic: %v\n%s", t.Name, t.node.Name, r, debug.Stack())
		}
	}()
	if t.fn != nil {
		t.fn(t, t.args)
	} else {
		t.body(t)
	}
}

// newThread makes a thread with a recycled record when one is free; gen
// carries on across reuse, so a stale resume event never matches.
func (m *Machine) newThread(n *Node, name string, main bool) *Thread {
	var t *Thread
	if k := len(m.freeThreads); k > 0 {
		t = m.freeThreads[k-1]
		m.freeThreads[k-1] = nil
		m.freeThreads = m.freeThreads[:k-1]
	} else {
		t = &Thread{}
	}
	t.Name, t.node, t.main = name, n, main
	t.state, t.ended, t.err, t.pollDue, t.then = threadReady, false, nil, false, 0
	t.computeEnd, t.remaining = 0, 0
	return t
}

// startCoroutine gives t a coroutine from the pool, or a new one.
func (m *Machine) startCoroutine(t *Thread) {
	var c *coroutine
	if k := len(m.freeCos); k > 0 {
		c = m.freeCos[k-1]
		m.freeCos[k-1] = nil
		m.freeCos = m.freeCos[:k-1]
	} else {
		c = newCoroutine()
		m.cosMade++
	}
	c.t = t
	t.co = c
}

// recycle returns a finished thread's coroutine and record to the pools.
// Main threads keep their record: programs may hold it.
func (m *Machine) recycle(t *Thread) {
	if t.co != nil && !t.co.stopped {
		m.freeCos = append(m.freeCos, t.co)
	}
	t.co = nil
	t.body, t.fn = nil, nil
	t.cond, t.what, t.whatS = nil, "", nil
	if !t.main {
		t.node = nil
		t.args = t.args[:0]
		m.freeThreads = append(m.freeThreads, t)
	}
}

// Node is the tile the thread runs on.
func (t *Thread) Node() *Node { return t.node }

// Now is the current simulated cycle.
func (t *Thread) Now() des.Time { return t.node.m.Eng.Now() }

func (t *Thread) pause(r request) {
	t.req = r
	if !t.co.yield(struct{}{}) {
		panic(errStopped)
	}
}

// Compute occupies the processor for cycles cycles. Under cooperative
// threads nothing else runs on the tile meanwhile; with preempt_threads a
// THREAD message's handler may run in the middle, and the computation
// resumes after it.
func (t *Thread) Compute(cycles int64) {
	if cycles > 0 {
		t.pause(request{kind: reqCompute, cycles: cycles})
	}
}

// ComputeThen is Compute(a) followed at once by Compute(b), with the same
// times and events, but the thread is resumed only once both are over:
// the scheduler charges b when a ends (Node.run), which spares a switch
// into the thread's coroutine and back. The caller must do nothing in
// between that another component could see at a different time.
func (t *Thread) ComputeThen(a, b int64) {
	switch {
	case a <= 0:
		t.Compute(b)
	case b <= 0:
		t.Compute(a)
	default:
		t.pause(request{kind: reqCompute, cycles: a, then: b})
	}
}

// Flops charges n floating-point operations at flop_cycles each.
func (t *Thread) Flops(n int64) { t.Charge(Ops{Flops: n}) }

// Suspend gives the processor to threads that are ready (suspendThread);
// the thread continues after them.
func (t *Thread) Suspend() { t.pause(request{kind: reqSuspend}) }

// WaitUntil is a wait loop: while cond is false the thread gives up the
// processor, and it checks again, at poll_cycles a turn, whenever something
// on its tile changes (a message arrives, a thread ends). what describes
// the wait for deadlock reports.
//
// The poll turn after a wake-up is charged by the scheduler before it
// resumes the thread (Node.run), not by a Compute here: the thread would
// only resume to pause again at once, and the switch into its coroutine
// and back is a good part of a message's cost. Time and event order are
// the same either way.
func (t *Thread) WaitUntil(what string, cond func() bool) {
	for !cond() {
		t.cond, t.what = cond, what
		t.pause(request{kind: reqBlock})
	}
}

// WaitFor is WaitUntil with a description formatted only if a report
// needs it, so that a wait costs no formatting.
func (t *Thread) WaitFor(what fmt.Stringer, cond func() bool) {
	for !cond() {
		t.cond, t.whatS = cond, what
		t.pause(request{kind: reqBlock})
	}
}

// waitingFor describes what a blocked thread waits for.
func (t *Thread) waitingFor() string {
	if t.whatS != nil {
		return t.whatS.String()
	}
	return t.what
}

// Handle resumes the thread when its computation (or dispatch) ends.
func (t *Thread) Handle(now des.Time, gen int64) {
	if gen != t.gen || t.state == threadDone {
		return
	}
	t.computeEnd = 0
	t.node.run(t)
}
