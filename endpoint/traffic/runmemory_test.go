package traffic

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/router"
)

// The latency histogram gives exactly the mean and empirical quantiles of
// the full sorted list of latencies, dense and far values alike.
func TestLatHistMatchesSortedList(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		var h latHist
		var all []float64
		n := 1 + r.IntN(3000)
		for range n {
			var l des.Time
			switch r.IntN(10) {
			case 0:
				l = denseLatency + des.Time(r.IntN(5*denseLatency))
			case 1:
				l = denseLatency - 1 + des.Time(r.IntN(3))
			default:
				l = des.Time(r.IntN(200))
			}
			h.add(l)
			all = append(all, float64(l))
		}
		slices.Sort(all)
		if h.n != len(all) {
			t.Fatalf("trial %d: counted %d latencies, added %d", trial, h.n, len(all))
		}
		if got, want := float64(h.sum)/float64(h.n), stat.Mean(all, nil); got != want {
			t.Fatalf("trial %d: mean %v, want %v", trial, got, want)
		}
		x, w := h.values()
		for _, p := range []float64{0, 0.01, 0.5, 0.95, 0.99, 1} {
			if got, want := stat.Quantile(p, stat.Empirical, x, w), stat.Quantile(p, stat.Empirical, all, nil); got != want {
				t.Fatalf("trial %d: quantile %v = %v, want %v", trial, p, got, want)
			}
		}
	}
}

// peakLiveHeap runs s and samples the live heap (after a collection) every
// 500 cycles of the run; it returns the largest sample and the result.
func peakLiveHeap(t *testing.T, s Synthetic) (uint64, SynthResult) {
	var peak uint64
	var ms runtime.MemStats
	sample := &phase{"sample", nil}
	s.onStart = func(eng *des.Engine) {
		sample.fn = func(now des.Time) {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			eng.Schedule(now+500, sample, 0)
		}
		eng.Schedule(0, sample, 0)
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	return peak, res
}

// Peak memory does not depend on a run's length: measuring ten times
// longer keeps the live heap within 1.2x. (A list of every packet's
// latency, which the histogram replaced, took the longer run to 2.6x the
// short one's peak here.)
func TestPeakMemoryIndependentOfLength(t *testing.T) {
	m, _ := mesh.New(8, 8)
	p, _ := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	base := Synthetic{Mesh: m, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: 0.3,
		PacketFlits: 5, Warmup: 1000, Measure: 4000, DrainMax: 5000, Watchdog: 10000, Seed: 1}
	long := base
	long.Measure *= 10
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	short, rs := peakLiveHeap(t, base)
	longPeak, rl := peakLiveHeap(t, long)
	if rs.Saturated || rl.Saturated || rl.Delivered < 9*rs.Delivered {
		t.Fatalf("runs saturated (%v, %v) or the long one delivered %d packets against %d: not a steady load", rs.Saturated, rl.Saturated, rl.Delivered, rs.Delivered)
	}
	// Measured above what was live before, so that the test binary's own
	// heap does not dilute the ratio.
	s, l := float64(short-before), float64(longPeak-before)
	t.Logf("peak live heap of the run: %.0f KiB measuring %d cycles, %.0f KiB measuring %d", s/1024, base.Measure, l/1024, long.Measure)
	if l > 1.2*s {
		t.Fatalf("the run ten times longer peaked at %.0f KiB, %.2fx the short run's %.0f KiB; want at most 1.2x", l/1024, l/s, s/1024)
	}
}

// Visiting in id order (as Synthetic.Run does) allocates nothing once the
// network is in steady state either: the busy set is a bit set made when
// tickers register.
func TestSteadyStateByIDDoesNotAllocate(t *testing.T) {
	m, _ := mesh.New(8, 8)
	p, _ := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	s := &Synthetic{Mesh: m, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: 0.3, PacketFlits: 5}
	eng := des.New()
	eng.TickByID()
	f := endpoint.NewFabric(eng, m, s.Router, s.Endpoint)
	g := &generator{s: s, f: f, eng: eng, rng: rand.New(rand.NewPCG(1, 2)), p: s.Rate / 5, on: true,
		mStart: des.Never, mEnd: des.Never, end: des.Never}
	g.logq = math.Log1p(-g.p)
	for i := 0; i < m.Nodes(); i++ {
		d, _ := g.gap()
		eng.Schedule(d-1, g, int64(i))
	}
	if err := eng.Run(20000); err != nil {
		t.Fatal(err)
	}
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	if err := eng.Run(eng.Now() + 5000); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&b)
	if n := b.Mallocs - a.Mallocs; n != 0 {
		t.Fatalf("%d allocations in 5000 steady-state cycles visited in id order, want 0", n)
	}
	if f.Net.Totals().Traversals == 0 {
		t.Fatal("no traffic flowed")
	}
}
