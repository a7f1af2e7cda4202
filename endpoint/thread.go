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
type Thread struct {
	Name string
	node *Node
	main bool

	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool

	req        request
	cond       func() bool // while blocked: what it waits for
	what       string      // the same, for reports
	gen        int64       // generation of its resume event; older ones are stale
	computeEnd des.Time    // while computing: when the computation ends
	remaining  des.Time    // computation left after a preemption
	state      threadState
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
}

// errStopped unwinds a coroutine whose machine is shutting down.
var errStopped = errors.New("thread stopped")

func newThread(n *Node, name string, main bool, body func(t *Thread)) *Thread {
	t := &Thread{Name: name, node: n, main: main}
	t.next, t.stop = iter.Pull(func(yield func(struct{}) bool) {
		t.yield = yield
		defer func() {
			if r := recover(); r != nil && r != errStopped {
				t.err = fmt.Errorf("%s on %s: panic: %v\n%s", t.Name, n.Name, r, debug.Stack())
			}
		}()
		body(t)
	})
	return t
}

// Node is the tile the thread runs on.
func (t *Thread) Node() *Node { return t.node }

// Now is the current simulated cycle.
func (t *Thread) Now() des.Time { return t.node.m.Eng.Now() }

func (t *Thread) pause(r request) {
	t.req = r
	if !t.yield(struct{}{}) {
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

// Flops charges n floating-point operations at flop_cycles each.
func (t *Thread) Flops(n int64) { t.Compute(t.node.cpu.Cycles(Ops{Flops: n})) }

// Suspend gives the processor to threads that are ready (suspendThread);
// the thread continues after them.
func (t *Thread) Suspend() { t.pause(request{kind: reqSuspend}) }

// WaitUntil is a wait loop: while cond is false the thread gives up the
// processor, and it checks again, at poll_cycles a turn, whenever something
// on its tile changes (a message arrives, a thread ends). what describes
// the wait for deadlock reports.
func (t *Thread) WaitUntil(what string, cond func() bool) {
	for !cond() {
		t.cond, t.what = cond, what
		t.pause(request{kind: reqBlock})
		t.cond, t.what = nil, ""
		t.Compute(t.node.cpu.PollCycles)
	}
}

// Handle resumes the thread when its computation (or dispatch) ends.
func (t *Thread) Handle(now des.Time, gen int64) {
	if gen != t.gen || t.state == threadDone {
		return
	}
	t.computeEnd = 0
	t.node.run(t)
}
