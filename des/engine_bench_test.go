package des

import (
	"fmt"
	"math/rand/v2"
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

func BenchmarkScheduleAndRun(b *testing.B) {
	for _, n := range []int{64, 1000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			s := newSteady(n, 1)
			for range 10 * n { // reach steady state before measuring
				s.step()
			}
			start := s.e.Events()
			b.ReportAllocs()
			for b.Loop() {
				s.step()
			}
			handled := s.e.Events() - start
			if s.e.Pending() != n {
				b.Fatalf("Pending = %d, want %d", s.e.Pending(), n)
			}
			b.ReportMetric(float64(handled)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

func TestScheduleDoesNotAllocate(t *testing.T) {
	for _, n := range []int{1, 64, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := newSteady(n, 2)
			for range 10 * n { // let the heap grow to its steady size
				s.step()
			}
			before := s.e.Events()
			allocs := testing.AllocsPerRun(1000, s.step)
			if got := s.e.Events() - before; got != 1001 { // AllocsPerRun warms up once
				t.Fatalf("handled %d events in 1001 steps; each step must handle exactly one", got)
			}
			if s.e.Pending() != n {
				t.Fatalf("Pending = %d, want %d", s.e.Pending(), n)
			}
			if allocs != 0 {
				t.Fatalf("%v allocations per Schedule+handle, want 0", allocs)
			}
		})
	}
}
