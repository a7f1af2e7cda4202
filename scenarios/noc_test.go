package scenarios_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/router"
	"nocsim/scenarios"
)

// ---------------------------------------------------------------- validation

func TestNocPointsErrors(t *testing.T) {
	tests := []struct {
		name    string
		mod     func(*scenarios.Scenario)
		key     string   // must be named in the error
		allowed []string // one of these must say what is allowed
	}{
		{"mesh 0x4", func(s *scenarios.Scenario) { s.Network.Mesh = "0x4" }, "mesh", []string{"1 <= W, H <= 256"}},
		{"mesh 8by8", func(s *scenarios.Scenario) { s.Network.Mesh = "8by8" }, "mesh", []string{"WxH"}},
		{"mesh 300x2", func(s *scenarios.Scenario) { s.Network.Mesh = "300x2" }, "mesh", []string{"256"}},
		{"mesh empty", func(s *scenarios.Scenario) { s.Network.Mesh = "" }, "mesh", []string{"WxH"}},
		{"vcs 0", func(s *scenarios.Scenario) { s.Network.VCs = 0 }, "vcs", []string{"1..12"}},
		{"vcs 13", func(s *scenarios.Scenario) { s.Network.VCs = 13 }, "vcs", []string{"1..12"}},
		{"vc_buf 0", func(s *scenarios.Scenario) { s.Network.VCBuf = 0 }, "vc_buf", []string{"1..1024"}},
		{"link_latency 0", func(s *scenarios.Scenario) { s.Network.LinkLatency = 0 }, "link_latency", []string{"1..1000"}},
		{"credit_delay 0", func(s *scenarios.Scenario) { s.Network.CreditDelay = 0 }, "credit_delay", []string{"1..1000"}},
		{"route_delay -1", func(s *scenarios.Scenario) { s.Network.RouteDelay = -1 }, "route_delay", []string{"0..1000"}},
		{"niu_queue_flits 0", func(s *scenarios.Scenario) { s.Network.QueueFlits = 0 }, "niu_queue_flits", []string{"1..65536"}},
		{"memory_words 0", func(s *scenarios.Scenario) { s.Network.MemoryWords = 0 }, "memory_words", []string{"1..268435456"}},
		{"rates [-1]", func(s *scenarios.Scenario) { s.Noc.Rates = []float64{-1} }, "rates", []string{"allowed 0.."}},
		{"rates [3]", func(s *scenarios.Scenario) { s.Noc.Rates = []float64{3} }, "rates", []string{"allowed 0..2"}},
		{"rates [0.1, NaN]", func(s *scenarios.Scenario) { s.Noc.Rates = []float64{0.1, math.NaN()} }, "rates", []string{"allowed 0.."}},
		{"rates [+Inf]", func(s *scenarios.Scenario) { s.Noc.Rates = []float64{math.Inf(1)} }, "rates", []string{"allowed 0.."}},
		{"rates []", func(s *scenarios.Scenario) { s.Noc.Rates = nil }, "rates", []string{"one or more"}},
		{"packet_flits 0", func(s *scenarios.Scenario) { s.Noc.PacketFlits = 0 }, "packet_flits", []string{"1..64"}},
		{"packet_flits > niu_queue_flits", func(s *scenarios.Scenario) { s.Network.QueueFlits = 16; s.Noc.PacketFlits = 17 }, "packet_flits", []string{"1..16"}},
		{"traffic [foo]", func(s *scenarios.Scenario) { s.Noc.Traffic = []string{"foo"} }, "traffic", []string{"uniform, transpose"}},
		{"traffic [uniform, foo]", func(s *scenarios.Scenario) { s.Noc.Traffic = []string{"uniform", "foo"} }, "traffic", []string{"uniform, transpose"}},
		{"traffic []", func(s *scenarios.Scenario) { s.Noc.Traffic = []string{} }, "traffic", []string{"one or more of uniform"}},
		{"transpose on 4x3", func(s *scenarios.Scenario) { s.Network.Mesh = "4x3"; s.Noc.Traffic = []string{"transpose"} }, "traffic", []string{"square"}},
		{"bitrev on 3x3", func(s *scenarios.Scenario) { s.Network.Mesh = "3x3"; s.Noc.Traffic = []string{"bitrev"} }, "traffic", []string{"power-of-two"}},
		{"shuffle on 3x4", func(s *scenarios.Scenario) { s.Network.Mesh = "3x4"; s.Noc.Traffic = []string{"shuffle"} }, "traffic", []string{"power-of-two"}},
		{"hotspot without nodes", func(s *scenarios.Scenario) { s.Noc.Traffic = []string{"hotspot"} }, "hotspot_nodes", []string{"node ids in 0..63"}},
		{"hotspot node out of range", func(s *scenarios.Scenario) {
			s.Noc.Traffic = []string{"hotspot"}
			s.Noc.HotspotNodes = []int{3, 64}
		}, "hotspot_nodes", []string{"0..63"}},
		{"hotspot node negative", func(s *scenarios.Scenario) {
			s.Noc.Traffic = []string{"hotspot"}
			s.Noc.HotspotNodes = []int{-1}
		}, "hotspot_nodes", []string{"0..63"}},
		{"hotspot fraction 1.5", func(s *scenarios.Scenario) {
			s.Noc.Traffic = []string{"hotspot"}
			s.Noc.HotspotNodes = []int{0}
			s.Noc.HotspotFraction = 1.5
		}, "hotspot_fraction", []string{"0..1"}},
		{"hotspot fraction NaN", func(s *scenarios.Scenario) {
			s.Noc.Traffic = []string{"hotspot"}
			s.Noc.HotspotNodes = []int{0}
			s.Noc.HotspotFraction = math.NaN()
		}, "hotspot_fraction", []string{"0..1"}},
		{"warmup_cycles -1", func(s *scenarios.Scenario) { s.Noc.WarmupCycles = -1 }, "warmup_cycles", []string{"0..1000000000"}},
		{"measure_cycles 0", func(s *scenarios.Scenario) { s.Noc.MeasureCycles = 0 }, "measure_cycles", []string{"1..1000000000"}},
		{"drain_cycles -1", func(s *scenarios.Scenario) { s.Noc.DrainCycles = -1 }, "drain_cycles", []string{"0..1000000000"}},
		// 8x8 diameter 14 hops, 5 flits, default router: 1 + 15*4 + 14 + 1 + 4.
		{"drain_cycles below the diameter's latency", func(s *scenarios.Scenario) { s.Noc.DrainCycles = 79 }, "drain_cycles", []string{"at least 80"}},
		{"watchdog_cycles 0", func(s *scenarios.Scenario) { s.Noc.WatchdogCycles = 0 }, "watchdog_cycles", []string{"1..1000000000"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := scenarios.Defaults()
			tc.mod(&sc)
			var (
				pts []endpoint.Synthetic
				err error
			)
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("NocPoints panicked: %v", r)
					}
				}()
				pts, err = sc.NocPoints(nil)
			}()
			if err == nil {
				t.Fatalf("NocPoints accepted it and returned %d points", len(pts))
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.key) {
				t.Errorf("error %q does not name the key %q", msg, tc.key)
			}
			if !slices.ContainsFunc(tc.allowed, func(s string) bool { return strings.Contains(msg, s) }) {
				t.Errorf("error %q does not say what is allowed (want one of %q)", msg, tc.allowed)
			}
			if pts != nil {
				t.Errorf("NocPoints returned %d points with an error", len(pts))
			}
		})
	}
}

// An invalid value read from a file is reported as that file's entry; an
// invalid default-valued key (made invalid by another key) as the default.
func TestNocPointsErrorsNameSource(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"[network]\nvcs = 0\n", "f.toml: [network] vcs = 0: allowed 1..12"},
		{"[network]\nmesh = \"0x4\"\n", "f.toml: [network] mesh"},
		{"[noc]\nrates = [0.1, 7]\n", "f.toml: [noc] rates = 7"},
		{"[noc]\nmeasure_cycles = 0\n", "f.toml: [noc] measure_cycles"},
		{"[noc]\ntraffic = [\"nope\"]\n", "f.toml: [noc] traffic"},
		{"[noc]\ntraffic = [\"hotspot\"]\n", "default [noc] hotspot_nodes"},
		{"[network]\nniu_queue_flits = 4\n", "default [noc] packet_flits = 5: allowed 1..4"},
	}
	for _, tc := range tests {
		sc, src := decode(t, "f.toml", tc.text)
		_, err := sc.NocPoints(src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: NocPoints error %v, want it to contain %q", tc.text, err, tc.want)
		}
	}
}

func TestNocPointsOrder(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	sc.Noc.Traffic = []string{"transpose", "uniform", "hotspot", "bitrev"}
	sc.Noc.Rates = []float64{0.3, 0.01, 0.2}
	sc.Noc.HotspotNodes = []int{5}
	pts, err := sc.NocPoints(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 12 {
		t.Fatalf("%d points, want 12", len(pts))
	}
	i := 0
	for _, tr := range sc.Noc.Traffic {
		for _, r := range sc.Noc.Rates {
			p := pts[i]
			if p.Pattern.Name() != tr || p.Rate != r {
				t.Errorf("point %d is (%s, %v), want (%s, %v)", i, p.Pattern.Name(), p.Rate, tr, r)
			}
			if p.Mesh.W != 4 || p.Mesh.H != 4 || p.PacketFlits != sc.Noc.PacketFlits || p.Seed != uint64(sc.Noc.Seed) ||
				p.Router != sc.Network.RouterSpec || p.Endpoint != sc.Network.NodeSpec ||
				p.Warmup != sc.Noc.WarmupCycles || p.Measure != sc.Noc.MeasureCycles ||
				p.DrainMax != sc.Noc.DrainCycles || p.Watchdog != sc.Noc.WatchdogCycles {
				t.Errorf("point %d does not carry the scenario's settings: %+v", i, p)
			}
			if err := p.Validate(); err != nil {
				t.Errorf("point %d: %v", i, err)
			}
			i++
		}
	}
}

// ---------------------------------------------------------------- running

// smallScenario is a 4x4 sweep that takes a fraction of a second.
func smallScenario() scenarios.Scenario {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	sc.Noc.Traffic = []string{"uniform", "transpose"}
	sc.Noc.Rates = []float64{0.05, 0.2, 0.4} // transpose saturates near 1/3 on 4x4
	sc.Noc.WarmupCycles = 300
	sc.Noc.MeasureCycles = 1500
	sc.Noc.DrainCycles = 2000
	return sc
}

func points(t *testing.T, sc scenarios.Scenario) []endpoint.Synthetic {
	t.Helper()
	pts, err := sc.NocPoints(nil)
	if err != nil {
		t.Fatal(err)
	}
	return pts
}

// List-valued fields (per-VC shares, per-link counts) are JSON only: a CSV
// row has one value per column.
func jsonKeys(t reflect.Type) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag == "-" || t.Field(i).Type.Kind() == reflect.Slice {
			continue
		}
		if tag == "" {
			tag = t.Field(i).Name
		}
		keys = append(keys, tag)
	}
	return keys
}

// reproducible returns the rows' JSON with the wall-clock columns zeroed.
func reproducible(t *testing.T, rows []scenarios.NocRow) []byte {
	t.Helper()
	rows = slices.Clone(rows)
	typ := reflect.TypeFor[scenarios.NocRow]()
	for i := range rows {
		v := reflect.ValueOf(&rows[i]).Elem()
		for _, col := range scenarios.WallClockColumns {
			found := false
			for f := 0; f < typ.NumField(); f++ {
				if tag, _, _ := strings.Cut(typ.Field(f).Tag.Get("json"), ","); tag == col {
					v.Field(f).SetZero()
					found = true
				}
			}
			if !found {
				t.Fatalf("WallClockColumns names %q, which is no NocRow JSON key", col)
			}
		}
	}
	var b bytes.Buffer
	if err := scenarios.WriteJSON(&b, rows); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRunNocDeterministic(t *testing.T) {
	t.Cleanup(func(p int) func() { return func() { runtime.GOMAXPROCS(p) } }(runtime.GOMAXPROCS(0)))
	sc := smallScenario()
	pts := points(t, sc)
	run := func(procs, workers int) []byte {
		runtime.GOMAXPROCS(procs)
		res, err := scenarios.RunNoc(pts, scenarios.RunOptions{Workers: workers})
		if err != nil {
			t.Fatalf("GOMAXPROCS %d, %d workers: %v", procs, workers, err)
		}
		if len(res) != len(pts) {
			t.Fatalf("%d results for %d points", len(res), len(pts))
		}
		rows := scenarios.NocRows(pts, res)
		for i, r := range rows {
			if r.Traffic != pts[i].Pattern.Name() || r.OfferedRate != pts[i].Rate || r.Mesh != "4x4" {
				t.Fatalf("row %d is (%s %s %v), point is (%s %v): results out of point order",
					i, r.Mesh, r.Traffic, r.OfferedRate, pts[i].Pattern.Name(), pts[i].Rate)
			}
		}
		if rows[0].DeliveredPackets == 0 || rows[0].Cycles == 0 {
			t.Fatalf("row 0 is empty: %+v", rows[0])
		}
		return reproducible(t, rows)
	}
	want := run(1, 1)
	for _, c := range []struct{ procs, workers int }{{2, 2}, {2, 1}, {1, 2}, {3, 0}, {2, 10}, {1, 1}} {
		if got := run(c.procs, c.workers); !bytes.Equal(got, want) {
			t.Errorf("GOMAXPROCS %d, %d workers: results differ from 1 worker:\n%s", c.procs, c.workers, firstDiff(want, got))
		}
	}

	// A point's result does not depend on the other points of the sweep.
	res, err := scenarios.RunNoc(pts[len(pts)-2:], scenarios.RunOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var all []scenarios.NocRow
	if err := json.Unmarshal(want, &all); err != nil {
		t.Fatal(err)
	}
	alone := reproducible(t, scenarios.NocRows(pts[len(pts)-2:], res))
	if sub := reproducible(t, all[len(all)-2:]); !bytes.Equal(alone, sub) {
		t.Errorf("points run alone differ from the same points in the sweep:\n%s", firstDiff(sub, alone))
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: %q vs %q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d lines", len(al), len(bl))
}

func TestRunNocProgressAndFirstError(t *testing.T) {
	sc := smallScenario()
	sc.Noc.Rates = []float64{0.05}
	sc.Noc.MeasureCycles = 200
	pts := points(t, sc)
	pts = append(pts, pts...) // 4 points

	var calls []int
	var mu sync.Mutex
	res, err := scenarios.RunNoc(pts, scenarios.RunOptions{Workers: 2, Progress: func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if total != len(pts) {
			t.Errorf("progress total %d, want %d", total, len(pts))
		}
		calls = append(calls, done)
	}})
	if err != nil || len(res) != len(pts) {
		t.Fatalf("RunNoc: %d results, %v", len(res), err)
	}
	if want := []int{1, 2, 3, 4}; !slices.Equal(calls, want) {
		t.Errorf("progress called with %v, want %v", calls, want)
	}

	// Points 2 and 4 cannot run; the error is point 2's whatever the workers.
	bad := slices.Clone(pts)
	bad[1].PacketFlits = 0
	bad[3].Measure = 0
	for _, w := range []int{1, 2, 4} {
		res, err := scenarios.RunNoc(bad, scenarios.RunOptions{Workers: w})
		if err == nil || !strings.Contains(err.Error(), "point 2 ") || !strings.Contains(err.Error(), "packet_flits") {
			t.Errorf("%d workers: error %v, want point 2's packet_flits error", w, err)
		}
		if res != nil {
			t.Errorf("%d workers: results returned with an error", w)
		}
	}

	// No points, no work, no hang.
	if res, err := scenarios.RunNoc(nil, scenarios.RunOptions{}); err != nil || len(res) != 0 {
		t.Errorf("RunNoc(nil) = %v, %v", res, err)
	}
}

// Every measured packet of an unsaturated point is delivered, across
// patterns and seeds, and the saturation flag agrees with its reason.
func TestConservationAcrossSeedsAndPatterns(t *testing.T) {
	var pts []endpoint.Synthetic
	for seed := uint64(1); seed <= 4; seed++ {
		sc := smallScenario()
		sc.Noc.Traffic = []string{"uniform", "transpose", "bitcomp", "bitrev", "shuffle", "tornado", "neighbor", "hotspot"}
		sc.Noc.HotspotNodes = []int{5, 10}
		sc.Noc.Rates = []float64{0.05}
		sc.Noc.Seed = int64(seed)
		pts = append(pts, points(t, sc)...)
	}
	res, err := scenarios.RunNoc(pts, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		p := pts[i]
		name := fmt.Sprintf("%s at %v, seed %d", r.Traffic, p.Rate, p.Seed)
		checkConservation(t, name, r)
		// 0.05 is far below every pattern's channel-load bound on 4x4.
		if r.Saturated {
			t.Errorf("%s: saturated at a light load: %s", name, r.SaturationReason)
		}
	}
}

func checkConservation(t *testing.T, name string, r endpoint.SynthResult) {
	t.Helper()
	if r.Delivered > r.Measured || r.Measured < 0 {
		t.Errorf("%s: delivered %d of %d measured packets", name, r.Delivered, r.Measured)
	}
	if r.Saturated != (r.SaturationReason != "") {
		t.Errorf("%s: saturated=%v but reason %q", name, r.Saturated, r.SaturationReason)
	}
	if r.Saturated {
		return
	}
	if r.Measured == 0 && r.OfferedRate > 0 {
		t.Errorf("%s: no packets measured", name)
	}
	if r.Delivered != r.Measured {
		t.Errorf("%s: unsaturated, but delivered %d of %d measured packets", name, r.Delivered, r.Measured)
	}
	if r.AcceptedRate < 0.95*r.GeneratedRate {
		t.Errorf("%s: unsaturated, but accepted %v of %v generated", name, r.AcceptedRate, r.GeneratedRate)
	}
	if r.Delivered > 0 && !(r.P50 <= r.P95 && r.P95 <= r.P99 && r.AvgPacketLatency >= r.AvgNetworkLatency && r.AvgNetworkLatency > 0) {
		t.Errorf("%s: inconsistent latencies: avg %v net %v p50 %v p95 %v p99 %v", name,
			r.AvgPacketLatency, r.AvgNetworkLatency, r.P50, r.P95, r.P99)
	}
}

// A valid but tiny offered load creates (almost surely) no packet at all.
// Rates are allowed down to 0, so 1e-20 must not produce traffic.
func TestTinyRateGeneratesNoTraffic(t *testing.T) {
	sc := smallScenario()
	sc.Noc.Traffic = []string{"uniform"}
	sc.Noc.Rates = []float64{1e-20} // p = 2e-21 packets/node/cycle
	sc.Noc.MeasureCycles = 1000
	sc.Noc.WarmupCycles = 100
	sc.Noc.DrainCycles = 1000
	pts := points(t, sc)
	r, err := pts[0].Run()
	if err != nil {
		t.Fatal(err)
	}
	if r.Measured != 0 || r.AcceptedRate != 0 || r.FlitHops != 0 {
		t.Errorf("rate 1e-20 on 4x4 for 1100 cycles: %d packets measured, accepted %v flits/node/cycle, %d flit-hops; want no traffic",
			r.Measured, r.AcceptedRate, r.FlitHops)
	}
}

// Cycle counts are validated only from below, so counts that overflow the
// simulated time must be refused by NocPoints, before any simulation, not
// crash the run.
func TestNocPointsRejectsCycleCountsThatOverflow(t *testing.T) {
	tests := []struct {
		name                   string
		warmup, measure, drain int64
	}{
		{"measure_cycles = MaxInt64", 300, math.MaxInt64, 1000},
		{"warmup_cycles + measure_cycles overflows", math.MaxInt64 - 1000, 10000, 1000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := smallScenario()
			sc.Noc.Traffic, sc.Noc.Rates = []string{"uniform"}, []float64{0.02}
			sc.Noc.WarmupCycles, sc.Noc.MeasureCycles, sc.Noc.DrainCycles = tc.warmup, tc.measure, tc.drain
			pts, err := sc.NocPoints(nil)
			if err != nil {
				if !strings.Contains(err.Error(), "_cycles") {
					t.Errorf("error %q does not name a cycles key", err)
				}
				return
			}
			t.Errorf("NocPoints accepted warmup %d, measure %d, drain %d", tc.warmup, tc.measure, tc.drain)
			// Show what happens instead: run it, guarded against a panic and a hang.
			done := make(chan string, 1)
			go func() {
				defer func() {
					if r := recover(); r != nil {
						done <- fmt.Sprintf("Run panicked: %v", r)
					}
				}()
				_, err := pts[0].Run()
				done <- fmt.Sprintf("Run returned %v", err)
			}()
			select {
			case msg := <-done:
				t.Log(msg)
			case <-time.After(10 * time.Second):
				t.Log("Run did not return within 10 s")
			}
		})
	}
}

// ---------------------------------------------------------------- physics

// channelLoadBound is the offered load (flits/node/cycle) at which the
// busiest router-to-router link of m is fully used by pattern p under XY
// routing, computed from the pattern's distribution and the routing
// function, independently of the simulator.
func channelLoadBound(t *testing.T, m mesh.Mesh, p mesh.Pattern) float64 {
	t.Helper()
	load := map[[2]int]float64{}
	for s := 0; s < m.Nodes(); s++ {
		p.Dist(s, func(d int, w float64) {
			n := s
			dx, dy := m.Offsets(s, d)
			for {
				var port mesh.Port
				port, dx, dy = m.Route(dx, dy)
				if port == mesh.Local {
					if n != d {
						t.Fatalf("route %d->%d ends at %d", s, d, n)
					}
					return
				}
				load[[2]int{n, int(port)}] += w
				var ok bool
				if n, ok = m.Neighbor(n, port); !ok {
					t.Fatalf("route %d->%d leaves the mesh", s, d)
				}
			}
		})
	}
	mx := 0.0
	for _, l := range load {
		mx = max(mx, l)
	}
	return 1 / mx
}

// zeroLoad is the analytic zero-load latency averaged over all sources and
// the pattern's destinations.
func zeroLoad(m mesh.Mesh, rs router.Spec, p mesh.Pattern, flits int) float64 {
	sum := 0.0
	for s := 0; s < m.Nodes(); s++ {
		p.Dist(s, func(d int, w float64) { sum += w * float64(rs.ZeroLoadLatency(m.Hops(s, d), flits)) })
	}
	return sum / float64(m.Nodes())
}

func TestChannelLoadBounds(t *testing.T) {
	m, _ := mesh.New(8, 8)
	for _, c := range []struct {
		name string
		want float64
	}{{"uniform", 0.5}, {"transpose", 1.0 / 7}} {
		p, err := mesh.NewPattern(c.name, m, mesh.HotspotSpec{})
		if err != nil {
			t.Fatal(err)
		}
		if got := channelLoadBound(t, m, p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s on 8x8: channel-load bound %v, want %v", c.name, got, c.want)
		}
	}
}

// The physics points run once on the default 8x8 network (2 VCs x 8 flits,
// 5-flit packets) with a 5000-cycle window, in parallel across cores.
var physics struct {
	once sync.Once
	pts  []endpoint.Synthetic
	res  []endpoint.SynthResult
	err  error
}

const transposeBound = 1.0 / 7

func physicsResults(t *testing.T) ([]endpoint.Synthetic, []endpoint.SynthResult) {
	t.Helper()
	physics.once.Do(func() {
		base := scenarios.Defaults()
		if base.Network.Mesh != "8x8" || base.Network.VCs != 2 || base.Network.VCBuf != 8 || base.Noc.PacketFlits != 5 {
			physics.err = fmt.Errorf("defaults are no longer 8x8, 2 VCs x 8 flits, 5-flit packets: %+v", base)
			return
		}
		base.Noc.MeasureCycles = 5000
		uni := base
		uni.Noc.Traffic, uni.Noc.Rates = []string{"uniform"}, []float64{0.02, 0.3, 0.5}
		tr := base
		tr.Noc.Traffic, tr.Noc.Rates = []string{"transpose"}, []float64{0.05, transposeBound}
		for _, sc := range []scenarios.Scenario{uni, tr} {
			pts, err := sc.NocPoints(nil)
			if err != nil {
				physics.err = err
				return
			}
			physics.pts = append(physics.pts, pts...)
		}
		physics.res, physics.err = scenarios.RunNoc(physics.pts, scenarios.RunOptions{})
	})
	if physics.err != nil {
		t.Fatal(physics.err)
	}
	return physics.pts, physics.res
}

func physicsPoint(t *testing.T, traffic string, rate float64) (endpoint.Synthetic, endpoint.SynthResult) {
	t.Helper()
	pts, res := physicsResults(t)
	for i, p := range pts {
		if p.Pattern.Name() == traffic && p.Rate == rate {
			return p, res[i]
		}
	}
	t.Fatalf("no physics point for %s at %v", traffic, rate)
	return endpoint.Synthetic{}, endpoint.SynthResult{}
}

func describe(r endpoint.SynthResult) string {
	return fmt.Sprintf("offered %.4f generated %.4f accepted %.4f, avg latency %.1f (zero-load %.1f, p99 %.0f), link util max %.3f, delivered %d/%d, reason %q",
		r.OfferedRate, r.GeneratedRate, r.AcceptedRate, r.AvgPacketLatency, r.ZeroLoadLatency, r.P99, r.LinkUtilMax,
		r.Delivered, r.Measured, r.SaturationReason)
}

// Uniform random traffic on 8x8 has a channel-load bound of 0.5: at 0.3 the
// network keeps up, at 0.5 it cannot.
func TestUniformSaturation8x8(t *testing.T) {
	if _, r := physicsPoint(t, "uniform", 0.3); r.Saturated {
		t.Errorf("uniform at 0.3 (60%% of the bound) reported saturated: %s", describe(r))
	}
	if _, r := physicsPoint(t, "uniform", 0.5); !r.Saturated {
		t.Errorf("uniform at 0.5 (the channel-load bound) not reported saturated: %s", describe(r))
	}
}

// Transpose on 8x8 loads its busiest link with 7 sources: its channel-load
// bound is 1/7. At 0.05 it keeps up.
func TestTransposeUnsaturatedAtLightLoad8x8(t *testing.T) {
	if _, r := physicsPoint(t, "transpose", 0.05); r.Saturated {
		t.Errorf("transpose at 0.05 reported saturated: %s", describe(r))
	}
}

// At exactly its channel-load bound of 1/7 flits/node/cycle, transpose
// traffic saturates the 8x8 mesh: the busiest link would have to be busy
// every cycle.
func TestTransposeSaturatedAtChannelLoadBound8x8(t *testing.T) {
	if _, r := physicsPoint(t, "transpose", transposeBound); !r.Saturated {
		t.Errorf("transpose at 1/7 (its channel-load bound) not reported saturated: %s", describe(r))
	}
}

// At a light load a packet rarely waits: the mean latency is the analytic
// zero-load latency within 5%, and the network accepts what is generated.
func TestLowLoadMatchesZeroLoad8x8(t *testing.T) {
	p, r := physicsPoint(t, "uniform", 0.02)
	t0 := zeroLoad(p.Mesh, p.Router, p.Pattern, p.PacketFlits)
	if math.Abs(r.ZeroLoadLatency-t0) > 1e-9 {
		t.Errorf("reported zero-load latency %v, analytic %v", r.ZeroLoadLatency, t0)
	}
	if r.Delivered == 0 || math.Abs(r.AvgPacketLatency-t0) > 0.05*t0 {
		t.Errorf("average packet latency %v is not within 5%% of the zero-load latency %v: %s", r.AvgPacketLatency, t0, describe(r))
	}
	if r.AvgPacketLatency < float64(p.Router.ZeroLoadLatency(0, p.PacketFlits)) {
		t.Errorf("average latency %v below the zero-hop latency", r.AvgPacketLatency)
	}
	if math.Abs(r.AcceptedRate-r.GeneratedRate) > 0.02*r.GeneratedRate {
		t.Errorf("accepted %v, generated %v: differ by more than 2%%", r.AcceptedRate, r.GeneratedRate)
	}
	// The generator produces the offered load, within five standard
	// deviations of a Bernoulli count.
	n := float64(p.Mesh.Nodes()) * float64(p.Measure) * p.Rate / float64(p.PacketFlits)
	if math.Abs(r.GeneratedRate-p.Rate) > 5*p.Rate/math.Sqrt(n) {
		t.Errorf("generated %v flits/node/cycle for an offered %v", r.GeneratedRate, p.Rate)
	}
	if r.Saturated {
		t.Errorf("saturated at 0.02: %s", describe(r))
	}
}

func TestPhysicsPointsConserve(t *testing.T) {
	pts, res := physicsResults(t)
	for i, r := range res {
		checkConservation(t, fmt.Sprintf("8x8 %s at %v", r.Traffic, pts[i].Rate), r)
	}
}

// ---------------------------------------------------------------- outputs

// distinctRow fills every field of a NocRow with a different value, so a
// swapped or shifted column cannot go unnoticed. Strings carry a comma and a
// quote to exercise CSV quoting.
func distinctRow(k int) scenarios.NocRow {
	var r scenarios.NocRow
	v := reflect.ValueOf(&r).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		base := 100*k + i + 1
		switch f.Kind() {
		case reflect.String:
			f.SetString(fmt.Sprintf("s%d, \"q\"", base))
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(base * 1000))
		case reflect.Uint64:
			f.SetUint(uint64(base*1000 + 1))
		case reflect.Float64:
			f.SetFloat(float64(base) + 0.25)
		case reflect.Bool:
			f.SetBool(k%2 == 0)
		case reflect.Slice:
			switch f.Interface().(type) {
			case []float64:
				f.Set(reflect.ValueOf([]float64{float64(base) + 0.5, float64(base) + 0.75}))
			case []endpoint.LinkVCFlits:
				f.Set(reflect.ValueOf([]endpoint.LinkVCFlits{{From: base, To: base + 1, Dir: "E", VCFlits: []uint64{uint64(base), uint64(base + 2)}}}))
			default:
				panic("unhandled NocRow slice field " + f.Type().String())
			}
		default:
			panic("unhandled NocRow field kind " + f.Kind().String())
		}
	}
	return r
}

func TestWriteNocCSV(t *testing.T) {
	pts := points(t, func() scenarios.Scenario {
		sc := smallScenario()
		sc.Noc.Rates = []float64{0.05, 0.4}
		sc.Noc.MeasureCycles = 500
		return sc
	}())
	res, err := scenarios.RunNoc(pts, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	real := scenarios.NocRows(pts, res)
	rows := append([]scenarios.NocRow{distinctRow(0), distinctRow(1)}, real...)

	var b bytes.Buffer
	if err := scenarios.WriteNocCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("CSV does not parse: %v", err)
	}
	keys := jsonKeys(reflect.TypeFor[scenarios.NocRow]())
	if len(recs) != len(rows)+1 {
		t.Fatalf("%d records, want a header and %d rows", len(recs), len(rows))
	}
	if !slices.Equal(recs[0], keys) {
		t.Fatalf("CSV header\n%q\nJSON keys\n%q", recs[0], keys)
	}
	for i, row := range rows {
		rec := recs[i+1]
		if len(rec) != len(keys) {
			t.Fatalf("row %d has %d fields, want %d", i, len(rec), len(keys))
		}
		js, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil {
			t.Fatal(err)
		}
		exact := i < 2 // distinct rows hold values CSV writes exactly
		for c, key := range keys {
			if err := sameValue(obj[key], rec[c], exact); err != nil {
				t.Errorf("row %d column %s: %v", i, key, err)
			}
		}
	}
	// A few fields by name, read back as numbers.
	for i, row := range real {
		rec := recs[i+3]
		col := func(k string) string { return rec[slices.Index(keys, k)] }
		if n, _ := strconv.Atoi(col("measured_packets")); n != row.MeasuredPackets {
			t.Errorf("row %d measured_packets %q, want %d", i, col("measured_packets"), row.MeasuredPackets)
		}
		if n, _ := strconv.ParseInt(col("cycles"), 10, 64); n != row.Cycles {
			t.Errorf("row %d cycles %q, want %d", i, col("cycles"), row.Cycles)
		}
		if x, _ := strconv.ParseFloat(col("offered_flits_per_node_cycle"), 64); x != row.OfferedRate {
			t.Errorf("row %d offered_flits_per_node_cycle %q, want %v", i, col("offered_flits_per_node_cycle"), row.OfferedRate)
		}
		if x, _ := strconv.ParseFloat(col("avg_packet_latency_cycles"), 64); !near(x, row.AvgPacketLatency) {
			t.Errorf("row %d avg_packet_latency_cycles %q, want %v", i, col("avg_packet_latency_cycles"), row.AvgPacketLatency)
		}
		if col("saturated") != strconv.FormatBool(row.Saturated) || col("traffic") != row.Traffic {
			t.Errorf("row %d: saturated %q traffic %q, want %v %q", i, col("saturated"), col("traffic"), row.Saturated, row.Traffic)
		}
	}
}

func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// sameValue compares a JSON value with the CSV text of the same field.
func sameValue(j any, text string, exact bool) error {
	switch v := j.(type) {
	case string:
		if v != text {
			return fmt.Errorf("CSV %q, JSON %q", text, v)
		}
	case bool:
		if strconv.FormatBool(v) != text {
			return fmt.Errorf("CSV %q, JSON %v", text, v)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			if c, err := strconv.ParseInt(text, 10, 64); err != nil || c != i {
				// an integral float may print as an integer in JSON
				if f, err := strconv.ParseFloat(text, 64); err != nil || f != float64(i) {
					return fmt.Errorf("CSV %q, JSON %v", text, v)
				}
			}
			return nil
		}
		if u, err := strconv.ParseUint(v.String(), 10, 64); err == nil {
			if c, err := strconv.ParseUint(text, 10, 64); err != nil || c != u {
				return fmt.Errorf("CSV %q, JSON %v", text, v)
			}
			return nil
		}
		jf, _ := v.Float64()
		cf, err := strconv.ParseFloat(text, 64)
		if err != nil || (exact && cf != jf) || !near(cf, jf) {
			return fmt.Errorf("CSV %q, JSON %v", text, v)
		}
	default:
		return fmt.Errorf("unexpected JSON value %v (%T)", j, j)
	}
	return nil
}

func TestWriteJSONKeys(t *testing.T) {
	var b bytes.Buffer
	if err := scenarios.WriteJSON(&b, []scenarios.NocRow{distinctRow(0)}); err != nil {
		t.Fatal(err)
	}
	var back []scenarios.NocRow
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 1 || !reflect.DeepEqual(back[0], distinctRow(0)) {
		t.Fatalf("JSON does not round-trip: %+v", back)
	}
}

func TestNocChart(t *testing.T) {
	row := func(traffic string, rate, lat, zl float64, sat bool, delivered int) scenarios.NocRow {
		return scenarios.NocRow{Traffic: traffic, OfferedRate: rate, AvgPacketLatency: lat, ZeroLoadLatency: zl,
			Saturated: sat, DeliveredPackets: delivered, MeasuredPackets: delivered + 1}
	}
	rows := []scenarios.NocRow{
		row("uniform", 0.02, 36, 35, false, 10),
		row("uniform", 0.3, 48, 35, false, 10),
		row("transpose", 0.05, 37, 35, false, 10),
		row("uniform", 0.5, 1800, 35, true, 10),
		row("transpose", 0.1, 0, 35, true, 0), // nothing delivered: no point to draw
		row("transpose", 0.2, 2500, 35, true, 10),
	}
	c := scenarios.NocChart(rows, "test chart")
	if err := c.Validate(); err != nil {
		t.Fatalf("chart does not validate: %v", err)
	}
	if c.Title != "test chart" || !strings.Contains(c.XLabel, "flits/node/cycle") || !strings.Contains(c.YLabel, "cycles") {
		t.Errorf("labels: %q / %q / %q", c.Title, c.XLabel, c.YLabel)
	}
	if len(c.Series) != 4 {
		t.Fatalf("%d series, want a solid and a dashed one per traffic pattern (4)", len(c.Series))
	}
	want := []struct {
		traffic string
		x, y    []float64
		marks   []bool
	}{
		{"uniform", []float64{0.02, 0.3, 0.5}, []float64{36, 48, 1800}, []bool{false, false, true}},
		{"transpose", []float64{0.05, 0.2}, []float64{37, 2500}, []bool{false, true}},
	}
	for i, w := range want {
		s, z := c.Series[2*i], c.Series[2*i+1]
		if s.Name != w.traffic || s.Dashed || s.Companion {
			t.Errorf("series %d: %q dashed=%v companion=%v, want solid %q", 2*i, s.Name, s.Dashed, s.Companion, w.traffic)
		}
		if !slices.Equal(s.X, w.x) || !slices.Equal(s.Y, w.y) || !slices.Equal(s.Marks, w.marks) {
			t.Errorf("series %q: X %v Y %v marks %v, want %v %v %v", s.Name, s.X, s.Y, s.Marks, w.x, w.y, w.marks)
		}
		if !z.Dashed || !z.Companion || !strings.Contains(z.Name, w.traffic) || !strings.Contains(z.Name, "zero-load") {
			t.Errorf("series %d: %q dashed=%v companion=%v, want a dashed companion zero-load series", 2*i+1, z.Name, z.Dashed, z.Companion)
		}
		// The model line covers every load, measured or not.
		var zx []float64
		for _, r := range rows {
			if r.Traffic == w.traffic {
				zx = append(zx, r.OfferedRate)
			}
		}
		if !slices.Equal(z.X, zx) || slices.ContainsFunc(z.Y, func(y float64) bool { return y != 35 }) || slices.Contains(z.Marks, true) {
			t.Errorf("zero-load series %q: X %v Y %v marks %v", z.Name, z.X, z.Y, z.Marks)
		}
	}
	if c.MarkLegend == "" {
		t.Error("saturated marks have no legend")
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "chart.png")
	if err := c.Save(path, 0, 0); err != nil {
		t.Fatalf("Save: %v", err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("PNG is %v", b)
	}
}

// A chart of a real sweep validates and saves.
func TestNocChartOfRun(t *testing.T) {
	sc := smallScenario()
	sc.Noc.MeasureCycles = 500
	pts := points(t, sc)
	res, err := scenarios.RunNoc(pts, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows := scenarios.NocRows(pts, res)
	c := scenarios.NocChart(rows, "4x4")
	if len(c.Series) != 2*len(sc.Noc.Traffic) {
		t.Fatalf("%d series for %d patterns", len(c.Series), len(sc.Noc.Traffic))
	}
	marked := 0
	for _, s := range c.Series {
		for _, m := range s.Marks {
			if m {
				marked++
			}
		}
	}
	saturated := 0
	for _, r := range rows {
		if r.Saturated && r.DeliveredPackets > 0 {
			saturated++
		}
	}
	if marked != saturated {
		t.Errorf("%d marked points, %d saturated rows", marked, saturated)
	}
	if err := c.Save(filepath.Join(t.TempDir(), "run.png"), 0, 0); err != nil {
		t.Fatal(err)
	}
}

func TestWriteNocTable(t *testing.T) {
	rows := []scenarios.NocRow{distinctRow(0), distinctRow(1)}
	rows[0].Saturated, rows[1].Saturated = true, false
	rows[0].SaturationReason = "too much"
	var b bytes.Buffer
	if err := scenarios.WriteNocTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.Contains(lines[0], "saturated") || !strings.Contains(lines[0], "offered") {
		t.Errorf("header %q lacks columns", lines[0])
	}
	if len(lines) < 2+len(rows) {
		t.Fatalf("table has %d lines", len(lines))
	}
	if !strings.Contains(lines[2], "YES") || !strings.Contains(lines[3], "no") {
		t.Errorf("saturated column: %q / %q", lines[2], lines[3])
	}
	if !strings.Contains(out, "too much") {
		t.Error("saturation reason not shown")
	}
}

// A drain equal to the longest zero-load latency is enough: accepted.
func TestNocDrainAtDiameterLatencyAccepted(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Noc.DrainCycles = 80
	if _, err := sc.NocPoints(nil); err != nil {
		t.Fatal(err)
	}
}
