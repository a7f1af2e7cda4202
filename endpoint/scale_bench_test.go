package endpoint

import (
	"runtime"
	"testing"

	"nocsim/mesh"
	"nocsim/router"
)

// BenchmarkMesh256x256 runs one short light-load point on the largest
// mesh allowed (65536 tiles) and reports the heap it needed: heap-MB is the
// heap obtained from the operating system by the end of the run (it never
// shrinks, so it bounds the peak), live-MB what is still reachable from
// the finished point.
//
//	go test ./endpoint -run '^$' -bench Mesh256x256 -benchtime 1x
func BenchmarkMesh256x256(b *testing.B) {
	m, _ := mesh.New(256, 256)
	p, _ := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	var ms runtime.MemStats
	for b.Loop() {
		s := Synthetic{Mesh: m, Router: router.DefaultSpec(), Endpoint: DefaultSpec(), Pattern: p, Rate: 0.0005,
			PacketFlits: 5, Warmup: 100, Measure: 200, DrainMax: 2000, Watchdog: 10000, Seed: 1}
		res, err := s.Run()
		if err != nil {
			b.Fatal(err)
		}
		if res.Delivered == 0 {
			b.Fatal("nothing delivered")
		}
		b.ReportMetric(float64(res.Cycles), "simcycles")
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-MB")
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-MB")
}
