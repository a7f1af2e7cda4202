package traffic

import (
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/router"
)

// benchSynthetic runs one k x k uniform point per iteration and reports
// its speed per CPU second of the process (des.ProcessCPUTime, so that
// other processes on a shared machine do not inflate it). A traversal is
// one flit through one router's switch: a flit crossing h links traverses
// h+1 routers, its source's and its destination's included (SynthResult's
// FlitHops, the routers' Stats.Traversals).
func benchSynthetic(b *testing.B, k int, rate float64, warmup, measure des.Time) {
	m, _ := mesh.New(k, k)
	benchSyntheticOn(b, m, m, rate, warmup, measure, 0)
}

// benchSyntheticOn is benchSynthetic on the tiles of m joined by topo.
// sample is the sampling window (Synthetic.Sample; 0 off).
func benchSyntheticOn(b *testing.B, m mesh.Mesh, topo mesh.Topology, rate float64, warmup, measure, sample des.Time) {
	p, _ := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	var cycles, traversals, events float64
	cpu0, ok := des.ProcessCPUTime()
	if !ok {
		b.Skip("no process CPU time on this platform")
	}
	for b.Loop() {
		s := Synthetic{Mesh: m, Topo: topo, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: rate,
			PacketFlits: 5, Warmup: warmup, Measure: measure, DrainMax: 5000, Watchdog: 10000, Seed: 1, Sample: sample}
		res, err := s.Run()
		if err != nil {
			b.Fatal(err)
		}
		cycles += float64(res.Cycles)
		traversals += float64(res.FlitHops)
		events += float64(res.Events + res.Ticks)
	}
	cpu1, _ := des.ProcessCPUTime()
	sec := (cpu1 - cpu0).Seconds()
	b.ReportMetric(cycles/sec, "simcycles/cpu-s")
	b.ReportMetric(traversals/sec, "traversals/cpu-s")
	b.ReportMetric(sec*1e9/traversals, "cpu-ns/traversal")
	b.ReportMetric(events/sec, "events/cpu-s")
}

// BenchmarkMesh8x8Uniform measures an 8x8 mesh under uniform traffic with
// 5-flit packets, below and near saturation.
//
//	go test ./endpoint -run '^$' -bench Mesh8x8Uniform -count 6
func BenchmarkMesh8x8Uniform(b *testing.B) {
	b.Run("rate=0.1", func(b *testing.B) { benchSynthetic(b, 8, 0.1, 1000, 5000) })
	b.Run("rate=0.3", func(b *testing.B) { benchSynthetic(b, 8, 0.3, 1000, 5000) })
}

// BenchmarkCMesh8x8Uniform is the same tiles as a concentrated mesh (4x4
// routers of eight ports), below and near its saturation (about 0.2 with
// these 5-flit packets and the default router).
//
//	go test ./endpoint/traffic -run '^$' -bench CMesh8x8Uniform -count 6
func BenchmarkCMesh8x8Uniform(b *testing.B) {
	m, _ := mesh.New(8, 8)
	c, _ := mesh.NewCMesh(8, 8)
	b.Run("rate=0.05", func(b *testing.B) { benchSyntheticOn(b, m, c, 0.05, 1000, 5000, 0) })
	b.Run("rate=0.15", func(b *testing.B) { benchSyntheticOn(b, m, c, 0.15, 1000, 5000, 0) })
}

// BenchmarkMesh8x8Sampled is BenchmarkMesh8x8Uniform's point at 0.3 with
// the time series on (a window every 100 cycles, the finest a run of
// 6,000 cycles would be drawn with) and off: sampling's cost is the
// ratio of the two, measured in one sitting.
//
//	go test ./endpoint/traffic -run '^$' -bench Mesh8x8Sampled -count 6
func BenchmarkMesh8x8Sampled(b *testing.B) {
	m, _ := mesh.New(8, 8)
	b.Run("sample=off", func(b *testing.B) { benchSyntheticOn(b, m, m, 0.3, 1000, 5000, 0) })
	b.Run("sample=100", func(b *testing.B) { benchSyntheticOn(b, m, m, 0.3, 1000, 5000, 100) })
}
