package des

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// steady keeps a fixed number of events pending: every handled event
// schedules one new event a small random distance ahead (gaps precomputed,
// so the RNG is not measured) and stops the run, so one Run call handles
// exactly one event.
type steady struct {
	e    *Engine
	gaps []Time
	i    int
}

func (s *steady) Handle(now Time, arg int64) {
	s.e.Schedule(now+s.gaps[s.i], s, arg)
	s.i++
	if s.i == len(s.gaps) {
		s.i = 0
	}
	s.e.Stop()
}

func newSteady(pending int, seed uint64) *steady {
	r := rand.New(rand.NewPCG(seed, 3))
	s := &steady{e: New(), gaps: make([]Time, 4096)}
	for i := range s.gaps {
		s.gaps[i] = 1 + Time(r.IntN(16))
	}
	for i := range pending {
		s.e.Schedule(Time(r.IntN(16)), s, int64(i))
	}
	return s
}

// step handles exactly one event.
func (s *steady) step() {
	if err := s.e.Run(-1); err != nil {
		panic(err)
	}
}

// BenchmarkScheduleAndRun measures the event kernel: events handled per
// second of the process's CPU time (ProcessCPUTime, so that other load on a
// shared machine does not count), with n events pending.
//
//	go test ./des -run '^$' -bench ScheduleAndRun -count 6
func BenchmarkScheduleAndRun(b *testing.B) {
	for _, n := range []int{64, 1000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			s := newSteady(n, 1)
			for range 10 * n { // reach steady state before measuring
				s.step()
			}
			start := s.e.Events()
			b.ReportAllocs()
			c0, ok := ProcessCPUTime()
			if !ok {
				b.Skip("process CPU time not available on this system")
			}
			for b.Loop() {
				s.step()
			}
			c1, _ := ProcessCPUTime()
			handled := s.e.Events() - start
			if s.e.Pending() != n {
				b.Fatalf("Pending = %d, want %d", s.e.Pending(), n)
			}
			b.ReportMetric(float64(handled)/(c1-c0).Seconds(), "events/cpu-s")
		})
	}
}

// mallocs counts the heap allocations made while f runs. Unlike
// testing.AllocsPerRun, whose integer division lets an allocation every
// other run through, it sees a single allocation.
func mallocs(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.Mallocs - a.Mallocs
}

// allocEvery is a handler that allocates once every k events, to show
// that the allocation check catches it.
type allocEvery struct {
	k, n int
}

var sink *[64]byte

func (h *allocEvery) Handle(now Time, _ int64) {
	if h.n++; h.n%h.k == 0 {
		sink = new([64]byte)
	}
}

func TestScheduleDoesNotAllocate(t *testing.T) {
	for _, n := range []int{1, 64, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := newSteady(n, 2)
			for range 10 * n { // let the heap grow to its steady size
				s.step()
			}
			// The count is the process's, so now and then a runtime or
			// testing goroutine's allocation lands in a window (about one
			// run in a thousand): a window is measured again, up to three
			// times. An allocation of the engine's, even one in a thousand
			// events, lands in every window (TestMallocsCatchesRareAllocation).
			var got uint64
			for range 3 {
				before := s.e.Events()
				got = mallocs(func() {
					for range 5000 {
						s.step()
					}
				})
				if handled := s.e.Events() - before; handled != 5000 {
					t.Fatalf("handled %d events in 5000 steps; each step must handle exactly one", handled)
				}
				if s.e.Pending() != n {
					t.Fatalf("Pending = %d, want %d", s.e.Pending(), n)
				}
				if got == 0 {
					break
				}
			}
			if got != 0 {
				t.Fatalf("%d allocations in 5000 Schedule+handle steps, three windows running, want 0", got)
			}
		})
	}
}

// The check above is sharp: one allocation in a thousand events fails it.
func TestMallocsCatchesRareAllocation(t *testing.T) {
	e := New()
	h := &allocEvery{k: 1000}
	for i := range 5000 {
		e.Schedule(Time(i), h, 0)
	}
	got := mallocs(func() {
		if err := e.Run(-1); err != nil {
			t.Fatal(err)
		}
	})
	if got < 5 {
		t.Fatalf("%d allocations counted over 5000 events allocating every 1000th; want at least 5", got)
	}
}

// BenchmarkTickers measures the ticker kernel: n tickers that tick a few
// cycles at a time, sleep and wake each other (the hoppers of the id-order
// tests), visited in wake order or in id order; it reports ticks per
// second of the process's CPU time.
//
//	go test ./des -run '^$' -bench Tickers -count 6
func BenchmarkTickers(b *testing.B) {
	for _, n := range []int{64, 4096} {
		for _, byID := range []bool{false, true} {
			b.Run(fmt.Sprintf("N=%d/byID=%v", n, byID), func(b *testing.B) {
				var ticks uint64
				c0, ok := ProcessCPUTime()
				if !ok {
					b.Skip("process CPU time not available on this system")
				}
				for b.Loop() {
					ticks += uint64(len(runHoppers(n, byID)))
				}
				c1, _ := ProcessCPUTime()
				b.ReportMetric(float64(ticks)/(c1-c0).Seconds(), "ticks/cpu-s")
			})
		}
	}
}
