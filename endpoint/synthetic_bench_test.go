package endpoint

import (
	"testing"

	"nocsim/mesh"
	"nocsim/router"
)

func benchSynthetic(b *testing.B, rate float64) {
	m, _ := mesh.New(8, 8)
	p, _ := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	var cycles, hops, events float64
	for b.Loop() {
		s := Synthetic{Mesh: m, Router: router.DefaultSpec(), Endpoint: DefaultSpec(), Pattern: p, Rate: rate,
			PacketFlits: 5, Warmup: 1000, Measure: 5000, DrainMax: 5000, Watchdog: 10000, Seed: 1}
		res, err := s.Run()
		if err != nil {
			b.Fatal(err)
		}
		cycles += float64(res.Cycles)
		hops += float64(res.FlitHops)
		events += float64(res.Events + res.Ticks)
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(cycles/sec, "simcycles/s")
	b.ReportMetric(hops/sec, "flithops/s")
	b.ReportMetric(events/sec, "events/s")
}

// BenchmarkMesh8x8Uniform measures an 8x8 mesh under uniform traffic with
// 5-flit packets, below and near saturation.
func BenchmarkMesh8x8Uniform(b *testing.B) {
	b.Run("rate=0.1", func(b *testing.B) { benchSynthetic(b, 0.1) })
	b.Run("rate=0.3", func(b *testing.B) { benchSynthetic(b, 0.3) })
}
