package traffic

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/router"
)

// A synthetic point gives the same result, field for field, with and
// without shuffled visiting order, and twice in a row.
func TestSyntheticDeterministic(t *testing.T) {
	m, _ := mesh.New(4, 4)
	p, _ := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	run := func(shuffle bool) SynthResult {
		s := Synthetic{Mesh: m, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: 0.4,
			PacketFlits: 4, Warmup: 300, Measure: 2000, DrainMax: 2000, Watchdog: 1000, Seed: 9, Shuffle: shuffle}
		r, err := s.Run()
		if err != nil {
			t.Fatal(err)
		}
		// Ticks are the simulator's work, not a result: a credit
		// returned to a router that has ticked in the cycle already
		// spares it a tick, so the visiting order may change them.
		r.WallSeconds, r.Ticks = 0, 0
		return r
	}
	a, b, c := run(false), run(false), run(true)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different results:\n%+v\n%+v", a, b)
	}
	if !reflect.DeepEqual(a, c) {
		t.Fatalf("shuffled visiting order changed the result:\n%+v\n%+v", a, c)
	}
	if a.Delivered == 0 || math.IsNaN(a.AvgPacketLatency) {
		t.Fatalf("nothing measured: %+v", a)
	}
}

// After warm-up, simulating more cycles allocates nothing: events, flits,
// credits and packets all reuse storage, at every network rate.
func TestSteadyStateDoesNotAllocate(t *testing.T) {
	for _, rate := range []int{1, 2} {
		t.Run(fmt.Sprintf("link_flits_per_cycle=%d", rate), func(t *testing.T) { steadyStateAllocs(t, rate) })
	}
}

func steadyStateAllocs(t *testing.T, rate int) {
	m, _ := mesh.New(8, 8)
	p, _ := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	rs := router.DefaultSpec()
	rs.LinkWidth = rate
	// 0.3 flits/node/cycle is below saturation at both rates (about 0.37
	// at rate 1, 0.57 at rate 2); above it source queues grow for ever,
	// and growing them is allocating.
	s := &Synthetic{Mesh: m, Router: rs, Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: 0.3, PacketFlits: 5}
	eng := des.New()
	f := endpoint.NewFabric(eng, m, s.Router, s.Endpoint)
	g := &generator{s: s, f: f, eng: eng, rng: rand.New(rand.NewPCG(1, 2)), p: s.Rate / 5, on: true,
		mStart: des.Never, mEnd: des.Never, end: des.Never}
	g.logq = math.Log1p(-g.p)
	for i := 0; i < m.Nodes(); i++ {
		d, _ := g.gap()
		eng.Schedule(d-1, g, int64(i))
	}
	// Long enough for source queues and pipes to reach their high-water
	// marks: growing one is amortized, not per event.
	if err := eng.Run(20000); err != nil {
		t.Fatal(err)
	}
	// Mallocs, not testing.AllocsPerRun, whose integer division would let
	// an allocation every other run through. The count is the process's,
	// so now and then a runtime goroutine's allocation lands in a window:
	// a window is measured again, up to three times. An allocation of the
	// simulator's, even one in thousands of events, lands in every window.
	var n uint64
	var work uint64
	for range 3 {
		var a, b runtime.MemStats
		ev0 := eng.Events() + eng.Ticks()
		runtime.ReadMemStats(&a)
		if err := eng.Run(eng.Now() + 5000); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&b)
		n, work = b.Mallocs-a.Mallocs, eng.Events()+eng.Ticks()-ev0
		if n == 0 {
			break
		}
	}
	if n != 0 {
		t.Fatalf("%d allocations in 5000 steady-state cycles (%d events and ticks), three windows running, want 0", n, work)
	}
	if f.Net.Totals().Traversals == 0 {
		t.Fatal("no traffic flowed")
	}
}
