package endpoint

import (
	"runtime"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

// peakHeapPingPong runs rounds THREAD-message round trips from node 0 to
// node 1 (each creates a thread there that writes a reply word back) and
// returns the largest live heap seen after a GC, sampled ten times.
func peakHeapPingPong(t *testing.T, rounds int) uint64 {
	// Not newTestMachine: its cleanup would keep this machine alive
	// while the next one is measured.
	mm, _ := mesh.New(2, 1)
	es := DefaultSpec()
	es.MemoryWords = 1 << 16
	m := NewMachine(des.New(), mm, router.DefaultSpec(), es, DefaultCPUSpec())
	defer m.Close()
	ack := m.Register("ack", func(th *Thread, a []uint32) {
		if err := th.SendInt(0, 100, a[0]); err != nil {
			t.Error(err)
		}
	})
	var peak uint64
	sample := func() {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	m.Nodes[0].Start("main", func(th *Thread) {
		for i := 1; i <= rounds; i++ {
			if err := th.CreateThread(1, ack, uint32(i)); err != nil {
				t.Error(err)
				return
			}
			th.Poll(100, uint32(i))
			if i%(rounds/10) == 0 {
				sample()
			}
		}
	})
	if err := m.Run(-1); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckQuiescent(); err != nil {
		t.Fatal(err)
	}
	return peak
}

// Finished threads are released: ten times as many THREAD messages need no
// more live heap (within 20%), where keeping every finished thread's
// coroutine and closure would cost about a kilobyte per message.
func TestFinishedThreadsAreReleased(t *testing.T) {
	const n = 2000
	small := peakHeapPingPong(t, n)
	large := peakHeapPingPong(t, 10*n)
	if float64(large) > 1.2*float64(small) {
		t.Fatalf("peak live heap %d bytes after %d messages, %d after %d: grows with the message count", small, n, large, 10*n)
	}
	t.Logf("peak live heap: %d bytes after %d round trips, %d after %d", small, n, large, 10*n)
}
