package endpoint

import (
	"fmt"
	"slices"
	"strings"

	"nocsim/des"
)

// Node is a tile's processor: one main thread for the program and up to
// thread_contexts threads created by THREAD messages, scheduled
// cooperatively (or with THREAD messages preempting the main thread).
type Node struct {
	ID   int
	Name string
	NIU  *NIU
	Mem  *Memory
	Main *Thread

	m       *Machine
	cpu     *CPUSpec
	running *Thread
	lastRun *Thread
	ready   []*Thread
	waiting []*Thread
	threads []*Thread // unfinished threads, in creation order
	ctxUsed int
	holding bool // a computation is under way (the watchdog is held)
	parDone int  // parExecute threads reported finished

	// Busy is the processor time spent computing, in cycles.
	Busy des.Time
	// Ops is the operations the node's kernels have charged (Charge,
	// Flops), by class.
	Ops Ops
}

// Start runs body as the node's main thread from the current cycle.
func (n *Node) Start(name string, body func(t *Thread)) {
	n.Main = n.m.newThread(n, name, true)
	n.Main.body = body
	n.adopt(n.Main)
	n.makeReady(n.Main, false)
}

// reserveContext claims a thread context for an arriving THREAD message.
func (n *Node) reserveContext() bool {
	if n.ctxUsed >= n.cpu.ThreadContexts {
		return false
	}
	n.ctxUsed++
	return true
}

// threadArrived makes a thread for a THREAD message whose context was
// reserved at its head. args is copied: the caller may reuse it.
func (n *Node) threadArrived(h HandlerID, args []uint32) {
	fn, name := n.m.handler(h)
	if fn == nil {
		n.m.fault(fmt.Errorf("%s: THREAD message for unknown handler %d", n.Name, h))
		return
	}
	t := n.m.newThread(n, name, false)
	t.fn = fn
	t.args = append(t.args[:0], args...)
	n.adopt(t)
	n.m.Eng.Schedule(n.m.Eng.Now()+n.cpu.ThreadCreateCycles, threadReadyEvent{t}, 0)
}

// controlArrived runs a control message's handler in the NIU.
func (n *Node) controlArrived(h HandlerID, args []uint32) {
	if int(h) >= len(n.m.handlers) || n.m.handlers[h].control == nil {
		n.m.fault(fmt.Errorf("%s: control message for unknown handler %d", n.Name, h))
		return
	}
	n.m.handlers[h].control(n, args)
}

type threadReadyEvent struct{ t *Thread }

func (e threadReadyEvent) Handle(des.Time, int64) {
	e.t.node.makeReady(e.t, e.t.node.cpu.PreemptThreads)
}

// makeReady queues t to run. A preempting handler goes first, ahead of a
// main thread whose computation it interrupts.
func (n *Node) makeReady(t *Thread, preempt bool) {
	t.state = threadReady
	if preempt && n.running == n.Main && n.Main.computeEnd > n.m.Eng.Now() {
		m := n.Main
		m.remaining = m.computeEnd - n.m.Eng.Now()
		n.Busy -= m.remaining
		m.computeEnd = 0
		m.gen++
		m.state = threadReady
		n.running = nil
		n.release()
		n.ready = slices.Insert(n.ready, 0, t, m)
	} else if preempt {
		// Ahead of the main thread, behind handlers that came earlier.
		i := 0
		for i < len(n.ready) && n.ready[i] != n.Main {
			i++
		}
		n.ready = append(n.ready, nil)
		copy(n.ready[i+1:], n.ready[i:])
		n.ready[i] = t
	} else {
		n.ready = append(n.ready, t)
	}
	n.dispatch()
}

// dispatch gives an idle processor to the first ready thread.
func (n *Node) dispatch() {
	if n.running != nil || len(n.ready) == 0 {
		return
	}
	// Shift rather than reslice: the list stays short, and reslicing
	// from the front would make every later append reallocate.
	t := n.ready[0]
	copy(n.ready, n.ready[1:])
	n.ready[len(n.ready)-1] = nil
	n.ready = n.ready[:len(n.ready)-1]
	n.running = t
	t.state = threadRunning
	cost := t.remaining
	t.remaining = 0
	if t != n.lastRun {
		cost += n.cpu.ThreadDispatchCycles
	}
	if cost == 0 {
		n.run(t)
		return
	}
	n.compute(t, cost)
}

func (n *Node) compute(t *Thread, cycles des.Time) {
	now := n.m.Eng.Now()
	t.computeEnd = now + cycles
	t.gen++
	n.Busy += cycles
	if !n.holding {
		n.holding = true
		n.m.Eng.Hold()
	}
	n.m.Eng.Schedule(t.computeEnd, t, t.gen)
}

func (n *Node) release() {
	if n.holding {
		n.holding = false
		n.m.Eng.Release()
	}
}

// run lets t execute until it computes, suspends, waits or ends.
func (n *Node) run(t *Thread) {
	n.release()
	n.running = t
	n.lastRun = t
	t.state = threadRunning
	if c := t.then; c > 0 {
		// The second half of a ComputeThen, charged as the thread
		// would charge it on resuming.
		t.then = 0
		n.m.Eng.Progress()
		n.compute(t, c)
		return
	}
	if t.pollDue {
		// Woken from a wait loop: the loop's turn (WaitUntil) is charged
		// here, as the thread would charge it first thing on resuming.
		t.pollDue = false
		t.cond, t.what, t.whatS = nil, "", nil
		if c := n.cpu.PollCycles; c > 0 {
			n.m.Eng.Progress()
			n.compute(t, c)
			return
		}
	}
	if t.co == nil {
		n.m.startCoroutine(t)
	}
	_, alive := t.co.next()
	n.m.Eng.Progress()
	if !alive || t.ended || t.err != nil {
		n.finish(t)
		return
	}
	switch t.req.kind {
	case reqCompute:
		t.then = t.req.then
		n.compute(t, t.req.cycles)
	case reqSuspend:
		t.state = threadReady
		n.running = nil
		n.ready = append(n.ready, t)
		n.dispatch()
	case reqBlock:
		t.pollDue = true
		t.state = threadBlocked
		n.running = nil
		n.waiting = append(n.waiting, t)
		n.dispatch()
	}
}

// adopt lists a new thread as live on the node and the machine.
func (n *Node) adopt(t *Thread) {
	n.threads = append(n.threads, t)
	n.m.live++
}

// finish ends t and drops it from every list; its coroutine and record
// go back to the machine's pools for the next THREAD message, so a long
// run keeps only as many as ever ran at once.
func (n *Node) finish(t *Thread) {
	t.state = threadDone
	t.gen++ // no resume event of this incarnation may match again
	if i := slices.Index(n.threads, t); i >= 0 {
		n.threads = slices.Delete(n.threads, i, i+1)
	}
	n.m.live--
	n.running = nil
	if n.lastRun == t {
		n.lastRun = nil
	}
	if t.err != nil {
		n.m.fault(t.err)
	}
	main := t.main
	n.m.recycle(t)
	if !main {
		n.ctxUsed--
		n.NIU.contextFreed()
	}
	n.poke()
	n.dispatch()
}

// poke re-checks waiting threads after something on the tile changed.
func (n *Node) poke() {
	moved := false
	for i := 0; i < len(n.waiting); {
		w := n.waiting[i]
		if w.cond() {
			n.waiting = append(n.waiting[:i], n.waiting[i+1:]...)
			w.state = threadReady
			n.ready = append(n.ready, w)
			moved = true
			continue
		}
		i++
	}
	if moved {
		n.dispatch()
	}
}

// Alloc reserves n bytes of the tile's heap; see Memory.Alloc.
func (n *Node) Alloc(bytes int) (uint32, []byte, error) { return n.Mem.Alloc(bytes) }

// describe lists the node's unfinished threads and what they wait for.
func (n *Node) describe(b *strings.Builder) {
	for _, t := range n.threads {
		switch t.state {
		case threadBlocked:
			fmt.Fprintf(b, "  %s %s: waiting for %s\n", n.Name, t.Name, t.waitingFor())
		case threadReady:
			fmt.Fprintf(b, "  %s %s: ready\n", n.Name, t.Name)
		case threadRunning:
			fmt.Fprintf(b, "  %s %s: running\n", n.Name, t.Name)
		}
	}
}
