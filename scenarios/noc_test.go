package scenarios_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"nocsim/endpoint/traffic"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
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
				pts []traffic.Synthetic
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

func points(t *testing.T, sc scenarios.Scenario) []traffic.Synthetic {
	t.Helper()
	pts, err := sc.NocPoints(nil)
	if err != nil {
		t.Fatal(err)
	}
	return pts
}

// reproducible returns the rows' JSON with the wall-clock columns zeroed.
func reproducible(t *testing.T, rows []report.NocRow) []byte {
	t.Helper()
	rows = slices.Clone(rows)
	typ := reflect.TypeFor[report.NocRow]()
	for i := range rows {
		v := reflect.ValueOf(&rows[i]).Elem()
		for _, col := range report.WallClockColumns {
			found := false
			for f := 0; f < typ.NumField(); f++ {
				if tag, _, _ := strings.Cut(typ.Field(f).Tag.Get("json"), ","); tag == col {
					v.Field(f).SetZero()
					found = true
				}
			}
			if !found {
				t.Fatalf("WallClockColumns names %q, which is no report.NocRow JSON key", col)
			}
		}
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, rows); err != nil {
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
	var all []report.NocRow
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
	var pts []traffic.Synthetic
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

func checkConservation(t *testing.T, name string, r traffic.SynthResult) {
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

// A drain equal to the longest zero-load latency is enough: accepted.
func TestNocDrainAtDiameterLatencyAccepted(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Noc.DrainCycles = 80
	if _, err := sc.NocPoints(nil); err != nil {
		t.Fatal(err)
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
	c := report.NocChart(rows, "4x4")
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
