package study_test

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
	"nocsim/scenarios/study"
)

func TestRunNocDeterministic(t *testing.T) {
	t.Cleanup(func(p int) func() { return func() { runtime.GOMAXPROCS(p) } }(runtime.GOMAXPROCS(0)))
	sc := smallScenario()
	pts := points(t, sc)
	run := func(procs, workers int) []byte {
		runtime.GOMAXPROCS(procs)
		res, err := study.RunNoc(pts, scenarios.RunOptions{Workers: workers})
		if err != nil {
			t.Fatalf("GOMAXPROCS %d, %d workers: %v", procs, workers, err)
		}
		if len(res) != len(pts) {
			t.Fatalf("%d results for %d points", len(res), len(pts))
		}
		rows := study.NocRows(pts, res)
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
	res, err := study.RunNoc(pts[len(pts)-2:], scenarios.RunOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var all []report.NocRow
	if err := json.Unmarshal(want, &all); err != nil {
		t.Fatal(err)
	}
	alone := reproducible(t, study.NocRows(pts[len(pts)-2:], res))
	if sub := reproducible(t, all[len(all)-2:]); !bytes.Equal(alone, sub) {
		t.Errorf("points run alone differ from the same points in the sweep:\n%s", firstDiff(sub, alone))
	}
}

func TestRunNocProgressAndFirstError(t *testing.T) {
	sc := smallScenario()
	sc.Noc.Rates = []float64{0.05}
	sc.Noc.MeasureCycles = 200
	pts := points(t, sc)
	pts = append(pts, pts...) // 4 points

	var calls []int
	var mu sync.Mutex
	res, err := study.RunNoc(pts, scenarios.RunOptions{Workers: 2, Progress: func(done, total int) {
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
		res, err := study.RunNoc(bad, scenarios.RunOptions{Workers: w})
		if err == nil || !strings.Contains(err.Error(), "point 2 ") || !strings.Contains(err.Error(), "packet_flits") {
			t.Errorf("%d workers: error %v, want point 2's packet_flits error", w, err)
		}
		if res != nil {
			t.Errorf("%d workers: results returned with an error", w)
		}
	}

	// No points, no work, no hang.
	if res, err := study.RunNoc(nil, scenarios.RunOptions{}); err != nil || len(res) != 0 {
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
	res, err := study.RunNoc(pts, scenarios.RunOptions{})
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

// A chart of a real sweep validates and saves.
func TestNocChartOfRun(t *testing.T) {
	sc := smallScenario()
	sc.Noc.MeasureCycles = 500
	pts := points(t, sc)
	res, err := study.RunNoc(pts, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows := study.NocRows(pts, res)
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

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: %q vs %q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d lines", len(al), len(bl))
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
