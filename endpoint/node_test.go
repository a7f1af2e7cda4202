package endpoint

import (
	"errors"
	"strings"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

func newTestMachine(t *testing.T, w, h int, mod func(*CPUSpec)) *Machine {
	t.Helper()
	m, _ := mesh.New(w, h)
	cs := DefaultCPUSpec()
	if mod != nil {
		mod(&cs)
	}
	es := DefaultSpec()
	es.MemoryWords = 1 << 16
	eng := des.New()
	eng.SetWatchdog(100000, nil)
	mc := NewMachine(eng, m, router.DefaultSpec(), es, cs)
	t.Cleanup(mc.Close)
	return mc
}

// A thread created by a THREAD message runs on the remote tile with the
// message's words as arguments, and its reply lands in the caller's memory.
func TestCreateThreadAndReply(t *testing.T) {
	m := newTestMachine(t, 4, 4, nil)
	var ranAt des.Time
	echo := m.Register("echo", func(th *Thread, a []uint32) {
		ranAt = th.Now()
		if th.Node().ID != 15 {
			t.Errorf("handler ran on node %d", th.Node().ID)
		}
		if err := th.SendInt(int(a[0]), a[1], a[2]+a[3]); err != nil {
			t.Error(err)
		}
	})
	var done des.Time
	m.Nodes[0].Start("main", func(th *Thread) {
		if err := th.CreateThread(15, echo, 0, 100, 40, 2); err != nil {
			t.Error(err)
		}
		th.Poll(100, 42)
		done = th.Now()
	})
	if err := m.Run(-1); err != nil {
		t.Fatal(err)
	}
	if got := m.Nodes[0].Mem.Read(100); got != 42 {
		t.Fatalf("reply word %d, want 42", got)
	}
	// The round trip cannot beat two zero-load crossings of six hops.
	rs := router.DefaultSpec()
	if min := rs.ZeroLoadLatency(6, 6) + rs.ZeroLoadLatency(6, 3); done < min || ranAt <= 0 {
		t.Fatalf("reply at %d (handler at %d), faster than the network allows (%d)", done, ranAt, min)
	}
	if err := m.CheckQuiescent(); err != nil {
		t.Fatal(err)
	}
}

// Under cooperative threads a handler waits for a computing main thread to
// yield; with preempt_threads it runs in the middle of the computation.
func TestCooperativeVersusPreemptive(t *testing.T) {
	reply := func(preempt bool) des.Time {
		m := newTestMachine(t, 2, 1, func(c *CPUSpec) { c.PreemptThreads = preempt })
		ping := m.Register("ping", func(th *Thread, a []uint32) { th.SendInt(0, 7, 1) })
		var at des.Time
		m.Nodes[1].Start("busy", func(th *Thread) { th.Compute(50000) })
		m.Nodes[0].Start("main", func(th *Thread) {
			th.CreateThread(1, ping)
			th.Poll(7, 1)
			at = th.Now()
		})
		if err := m.Run(-1); err != nil {
			t.Fatal(err)
		}
		if b := m.Nodes[1].Busy; b < 50000 {
			t.Fatalf("preempt=%v: the busy node computed only %d cycles", preempt, b)
		}
		return at
	}
	coop, pre := reply(false), reply(true)
	if coop < 50000 {
		t.Errorf("cooperative: reply at %d, before the computation (50000) ended", coop)
	}
	if pre >= 1000 {
		t.Errorf("preemptive: reply at %d, want it well before the computation ends", pre)
	}
}

// With one thread context, THREAD messages to a busy tile wait in its NIU
// (and the network) instead of being lost, and all of them run in order.
func TestThreadContextsBackPressure(t *testing.T) {
	m := newTestMachine(t, 3, 1, func(c *CPUSpec) { c.ThreadContexts = 1 })
	var order []uint32
	live, most := 0, 0
	work := m.Register("work", func(th *Thread, a []uint32) {
		live++
		most = max(most, live)
		th.Compute(300)
		order = append(order, a[0])
		live--
	})
	m.Nodes[2].Start("busy", func(th *Thread) { th.Compute(5000) })
	m.Nodes[0].Start("main", func(th *Thread) {
		for i := uint32(0); i < 12; i++ {
			th.CreateThread(2, work, i)
		}
	})
	if err := m.Run(-1); err != nil {
		t.Fatal(err)
	}
	if len(order) != 12 || most != 1 {
		t.Fatalf("ran %v with up to %d at once; want all 12, one at a time", order, most)
	}
	for i, v := range order {
		if v != uint32(i) {
			t.Fatalf("ran in order %v", order)
		}
	}
}

// Two programs that wait on each other end with a report of what each is
// waiting for, not a hang.
func TestProgramDeadlockIsReported(t *testing.T) {
	m := newTestMachine(t, 2, 1, nil)
	for i := range 2 {
		m.Nodes[i].Start("main", func(th *Thread) { th.Poll(5, 1) })
	}
	err := m.Run(-1)
	var d *DeadlockError
	if !errors.As(err, &d) {
		t.Fatalf("Run = %v, want a DeadlockError", err)
	}
	for _, want := range []string{"node(0,0) main: waiting for word 5 to become 1", "node(1,0) main"} {
		if !strings.Contains(d.Error(), want) {
			t.Errorf("report lacks %q:\n%s", want, d)
		}
	}
}

// A program that panics ends the run with an error naming it.
func TestProgramPanicIsAnError(t *testing.T) {
	m := newTestMachine(t, 2, 1, nil)
	m.Nodes[1].Start("broken", func(th *Thread) {
		var s []int
		_ = s[3]
	})
	err := m.Run(-1)
	if err == nil || !strings.Contains(err.Error(), "broken on node(1,0): panic") {
		t.Fatalf("Run = %v, want the panic reported", err)
	}
}

// parExecute runs a handler on every node and returns when all are done;
// getBlock pulls a strided block from a remote memory.
func TestParExecuteAndGetBlock(t *testing.T) {
	m := newTestMachine(t, 3, 3, nil)
	hits := make([]int, 9)
	mark := m.Register("mark", func(th *Thread, a []uint32) {
		hits[th.Node().ID] += int(a[0])
		th.Compute(100)
	})
	for i := uint32(0); i < 10; i++ {
		m.Nodes[8].Mem.Write(1000+2*i, 500+i)
	}
	m.Nodes[0].Start("main", func(th *Thread) {
		if err := th.ParExecute(9, mark, 3); err != nil {
			t.Error(err)
		}
		for i, h := range hits {
			if h != 3 {
				t.Errorf("node %d ran the handler %d/3 times when parExecute returned", i, h)
			}
		}
		if err := th.GetBlock(8, 200, 1, 1000, 2, 10, 300); err != nil {
			t.Error(err)
		}
		th.Poll(300, 1)
	})
	if err := m.Run(-1); err != nil {
		t.Fatal(err)
	}
	for i := uint32(0); i < 10; i++ {
		if got := m.Nodes[0].Mem.Read(200 + i); got != 500+i {
			t.Fatalf("word %d: %d, want %d", i, got, 500+i)
		}
	}
}

func TestHeapAllocFree(t *testing.T) {
	mem := newMemory(1 << 12)
	a, b1, err := mem.Alloc(10)
	if err != nil || len(b1) != 10 || a != mem.HeapBase() {
		t.Fatalf("Alloc(10) = %d, %d bytes, %v", a, len(b1), err)
	}
	b, b2, _ := mem.Alloc(4000)
	copy(b1, []byte{1, 2, 3, 4, 5})
	if got := mem.Read(a); got != 0x04030201 {
		t.Fatalf("word view of the bytes: %#x", got)
	}
	if err := mem.Write(b+3, 0xdeadbeef); err != nil || b2[12] != 0xef {
		t.Fatalf("DMA write not visible in the bytes: %v %x", err, b2[12:16])
	}
	if err := mem.Write(b+1000+10, 1); err == nil {
		t.Fatal("write past every block accepted")
	}
	if _, _, err := mem.Alloc(4 * 4096); err == nil {
		t.Fatal("allocation larger than the heap accepted")
	}
	if err := mem.Free(a); err != nil {
		t.Fatal(err)
	}
	if err := mem.Free(a); err == nil {
		t.Fatal("double free accepted")
	}
	mem.Free(b)
	// Freed blocks coalesce: the whole heap is one block again.
	if _, _, err := mem.Alloc(int(mem.Size()-mem.HeapBase()) * 4); err != nil {
		t.Fatalf("heap did not coalesce: %v", err)
	}
}
