package endpoint

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// echoMachine has node 0 send rounds THREAD messages to node 1, one at a
// time; each handler writes the round number back, and a handler panics
// when its round is panicAt (0: never).
func echoMachine(t *testing.T, rounds, panicAt int) *Machine {
	m := newTestMachine(t, 2, 1, nil)
	ack := m.Register("ack", func(th *Thread, a []uint32) {
		if int(a[0]) == panicAt {
			panic("handler asked to fail")
		}
		th.Compute(3) // suspends once, so the coroutine holds a frame
		if err := th.SendInt(0, 100, a[0]); err != nil {
			t.Error(err)
		}
	})
	m.Nodes[0].Start("main", func(th *Thread) {
		for i := 1; i <= rounds; i++ {
			if err := th.CreateThread(1, ack, uint32(i)); err != nil {
				t.Error(err)
				return
			}
			th.Poll(100, uint32(i))
		}
	})
	return m
}

// A THREAD message reuses an idle coroutine: a run of many messages, one
// handler at a time, creates no more coroutines than threads ever ran at
// once (the main thread and one handler), and keeps that many.
func TestCoroutinesAreReused(t *testing.T) {
	const rounds = 500
	m := echoMachine(t, rounds, 0)
	if err := m.Run(-1); err != nil {
		t.Fatal(err)
	}
	if m.cosMade > 2 {
		t.Fatalf("%d coroutines created for %d THREAD messages handled one at a time; want at most 2", m.cosMade, rounds)
	}
	if got := m.Nodes[0].Mem.Read(100); got != rounds {
		t.Fatalf("last reply %d, want %d", got, rounds)
	}
}

// A handler's panic, in a coroutine that has run 29 handlers before it,
// ends the run with its message, and the earlier handlers all ran.
func TestPanicInPooledCoroutine(t *testing.T) {
	m := echoMachine(t, 50, 30)
	err := m.Run(-1)
	if err == nil || !strings.Contains(err.Error(), "handler asked to fail") || !strings.Contains(err.Error(), "ack on") {
		t.Fatalf("run ended with %v, want the handler's panic", err)
	}
	if got := m.Nodes[0].Mem.Read(100); got != 29 {
		t.Fatalf("rounds before the panic replied up to %d, want 29", got)
	}
}

// goroutinesSettle waits (briefly) for the goroutine count to fall to at
// most want; a stopped coroutine's goroutine exits just after stop returns.
func goroutinesSettle(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 200 && n > want; i++ {
		time.Sleep(time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// Close ends every coroutine: threads blocked in a deadlock, threads
// stopped mid-computation by a run limit, and idle ones in the pool.
func TestCloseLeaksNoGoroutines(t *testing.T) {
	before := goroutinesSettle(runtime.NumGoroutine())
	for _, c := range []struct {
		name  string
		until int64
	}{{"finished", -1}, {"deadlocked", -1}, {"cut short", 200}} {
		m := echoMachine(t, 20, 0)
		if c.name == "deadlocked" {
			// A second main thread waits for a word nobody writes.
			m.Nodes[1].Start("stuck", func(th *Thread) { th.Poll(200, 1) })
		}
		err := m.Run(c.until)
		if c.name == "deadlocked" {
			if err == nil || !strings.Contains(err.Error(), "word 200 to become 1") {
				t.Fatalf("%s: run ended with %v, want a deadlock naming the wait", c.name, err)
			}
		} else if err != nil && c.name == "finished" {
			t.Fatalf("%s: %v", c.name, err)
		}
		if runtime.NumGoroutine() <= before && c.name != "finished" {
			t.Fatalf("%s: no coroutine goroutine alive before Close: the test checks nothing", c.name)
		}
		m.Close()
		if n := goroutinesSettle(before); n > before {
			t.Fatalf("%s: %d goroutines after Close, %d before the run", c.name, n, before)
		}
	}
}
