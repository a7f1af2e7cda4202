package traffic

import (
	"fmt"
	"runtime"
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/router"
)

// bisectionRate is 20% of a k x k mesh's bisection bound under uniform
// traffic: half of all flits cross the bisection's k links each way, so the
// bound is 4/k flits per node per cycle.
func bisectionRate(k int) float64 { return 0.2 * 4 / float64(k) }

// cpuNow is the process's CPU time in seconds; a benchmark that cannot read
// it fails rather than quoting wall time.
func cpuNow(b *testing.B) float64 {
	t, ok := des.ProcessCPUTime()
	if !ok {
		b.Skip("process CPU time not available on this system")
	}
	return t.Seconds()
}

// BenchmarkMeshScaleUniform runs uniform traffic at 20% of the bisection
// bound on k x k meshes, with the 8x8 benchmark's phases (1000 cycles of
// warm-up, 5000 measured, up to 5000 of drain), and reports CPU time per
// flit-router traversal: a simulator whose cost per traversal does not grow
// with the mesh has the same ns/traversal at every size. The CPU time is
// the process's (des.ProcessCPUTime), so other load on the machine does not
// inflate it; the GC's time counts.
//
//	go test ./endpoint -run '^$' -bench MeshScaleUniform -benchtime 1x -count 6
func BenchmarkMeshScaleUniform(b *testing.B) {
	for _, k := range []int{8, 16, 32, 64} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) { benchScale(b, k) })
	}
}

func benchScale(b *testing.B, k int) {
	m, _ := mesh.New(k, k)
	p, _ := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	var hops float64
	c0 := cpuNow(b)
	for b.Loop() {
		s := Synthetic{Mesh: m, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: bisectionRate(k),
			PacketFlits: 5, Warmup: 1000, Measure: 5000, DrainMax: 5000, Watchdog: 10000, Seed: 1}
		res, err := s.Run()
		if err != nil {
			b.Fatal(err)
		}
		if res.Saturated || res.Delivered == 0 {
			b.Fatalf("%dx%d at rate %g: saturated=%v, delivered %d; 20%% of the bound must be a stable point", k, k, s.Rate, res.Saturated, res.Delivered)
		}
		hops += float64(res.FlitHops)
	}
	cpu := cpuNow(b) - c0
	b.ReportMetric(cpu*1e9/hops, "ns-cpu/traversal")
	b.ReportMetric(hops/cpu, "traversals/cpu-s")
}

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
		s := Synthetic{Mesh: m, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: 0.0005,
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
