package endpoint

import (
	"fmt"
	"strings"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

// HandlerID names a THREAD message's handler: what SCMP puts in the
// address flit as the new thread's instruction pointer.
type HandlerID uint32

// ThreadFunc is the body of a thread created by a THREAD message; args are
// the message's data words. The thread's record and args are reused once
// the handler returns, so it must not keep either.
type ThreadFunc func(t *Thread, args []uint32)

// Machine is the whole chip: the network, and a processor with memory at
// every tile. Programs run on its nodes as threads.
type Machine struct {
	*Fabric
	Nodes []*Node
	CPU   CPUSpec

	handlers []handlerEntry
	live     int // unfinished threads on all nodes
	err      error

	freeThreads []*Thread    // finished handler threads, for reuse
	freeCos     []*coroutine // idle coroutines, for reuse
	cosMade     int          // coroutines ever created (tests check reuse)
}

type handlerEntry struct {
	name    string
	fn      ThreadFunc
	control ControlFunc
}

// ControlFunc handles a control message in the receiving NIU: it runs at
// the message's arrival, takes no processor time, and must not block.
type ControlFunc func(n *Node, args []uint32)

// NewMachine builds the chip on a fresh engine.
func NewMachine(eng *des.Engine, topo mesh.Topology, rs router.Spec, es Spec, cs CPUSpec) *Machine {
	m := &Machine{Fabric: NewFabric(eng, topo, rs, es), CPU: cs}
	m.Nodes = make([]*Node, topo.Nodes())
	for i, u := range m.NIUs {
		n := &Node{ID: i, Name: "node" + topo.Label(i), NIU: u, Mem: &u.Mem, m: m, cpu: &m.CPU}
		u.node = n
		m.Nodes[i] = n
	}
	m.Fabric.machine = m
	m.registerNative()
	return m
}

// Register makes fn callable by THREAD messages. Ids follow registration
// order, so a machine built the same way always gives the same ids.
func (m *Machine) Register(name string, fn ThreadFunc) HandlerID {
	m.handlers = append(m.handlers, handlerEntry{name: name, fn: fn})
	return HandlerID(len(m.handlers) - 1)
}

// RegisterControl makes fn callable by control messages (KindControl).
func (m *Machine) RegisterControl(name string, fn ControlFunc) HandlerID {
	m.handlers = append(m.handlers, handlerEntry{name: name, control: fn})
	return HandlerID(len(m.handlers) - 1)
}

func (m *Machine) handler(h HandlerID) (ThreadFunc, string) {
	if int(h) >= len(m.handlers) {
		return nil, ""
	}
	return m.handlers[h].fn, m.handlers[h].name
}

func (m *Machine) fault(err error) {
	if m.err == nil {
		m.err = err
		m.Eng.Stop()
	}
}

// DeadlockError is a program that cannot finish: threads wait for
// something that nothing left in the simulation will bring.
type DeadlockError struct {
	At     des.Time
	Report string
}

func (e *DeadlockError) Error() string {
	return fmt.Sprintf("deadlock at cycle %d: every remaining thread is blocked and nothing is in flight\n%s", e.At, e.Report)
}

// Run simulates until every thread has ended (nil), a thread fails or the
// network misbehaves (that error), the watchdog fires (*des.Stall), or
// threads remain blocked with nothing left to wake them (*DeadlockError).
// until < 0 means no limit.
func (m *Machine) Run(until des.Time) error {
	m.Eng.SetWatchdog(m.Eng.Watchdog(), m.Describe)
	err := m.Eng.Run(until)
	if m.live == 0 {
		// Nothing left to run: end the idle coroutines now rather than at
		// Close, so that a finished machine holds no goroutines (each one
		// a stack the garbage collector scans).
		m.stopIdle()
	}
	switch {
	case m.err != nil:
		return m.err
	case m.Fabric.err != nil:
		return m.Fabric.err
	case err != nil:
		return err
	}
	if until >= 0 && m.Eng.Now() >= until && m.Eng.Busy() {
		return nil
	}
	if m.live > 0 {
		return &DeadlockError{At: m.Eng.Now(), Report: m.Describe()}
	}
	return nil
}

// Describe reports every unfinished thread, router VC and NIU holding
// work, and what each waits for.
func (m *Machine) Describe() string {
	var b strings.Builder
	for _, n := range m.Nodes {
		n.describe(&b)
	}
	b.WriteString(m.Fabric.Describe())
	return b.String()
}

// Close ends every coroutine, suspended in a thread or idle in the pool,
// so an abandoned run leaves no goroutine behind.
func (m *Machine) Close() {
	for _, n := range m.Nodes {
		for _, t := range n.threads {
			if t.co != nil {
				t.co.stop()
				t.co = nil
			}
			t.state = threadDone
		}
		clear(n.threads)
		n.threads = n.threads[:0]
	}
	m.stopIdle()
	clear(m.freeThreads)
	m.freeThreads = m.freeThreads[:0]
	m.live = 0
}

// stopIdle ends the pooled coroutines.
func (m *Machine) stopIdle() {
	for _, c := range m.freeCos {
		c.stop()
	}
	clear(m.freeCos)
	m.freeCos = m.freeCos[:0]
}

// Seconds converts cycles to seconds at the machine's clock.
func (m *Machine) Seconds(c des.Time) float64 { return m.CPU.Seconds(c) }
