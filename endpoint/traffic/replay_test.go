package traffic

import (
	"path/filepath"
	"reflect"
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/endpoint/energy"
	"nocsim/endpoint/traffic/netrace"
	"nocsim/mesh"
	"nocsim/router"
)

func readTrace(t testing.TB, file string, opt netrace.Options) *netrace.Trace {
	tr, err := netrace.ReadFile(filepath.Join("netrace", "testdata", file), opt)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func replayOf(tr *netrace.Trace, w, h int) Replay {
	span := tr.Cycles
	if !tr.Complete {
		span = tr.Packets[len(tr.Packets)-1].Cycle
	}
	return Replay{Topo: mesh.Mesh{W: w, H: h}, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(),
		Trace: tr, Span: span, FlitBits: 32, Deps: true, Scale: 1, Watchdog: 10000}
}

// With an ideal network (every packet delivered the cycle it is
// injected), the dependency-driven replay injects every packet at its
// trace cycle and finishes exactly at the last one: the latest cycle of
// any packet, found here by a scan of the trace.
func TestReplayIdealFinishesAtLastCycle(t *testing.T) {
	for _, file := range []string{"shrtex.tra.bz2", "example.tra.bz2", "multiregion.tra.bz2", "lngrex.tra.bz2"} {
		for _, scale := range []float64{1, 2} {
			tr := readTrace(t, file, netrace.Options{})
			var last uint64
			for _, p := range tr.Packets {
				last = max(last, p.Cycle)
			}
			r := replayOf(tr, 8, 8)
			r.Ideal, r.Scale = true, scale
			late := 0
			r.onRecord = func(i int, inject, done des.Time) {
				if inject != des.Time(float64(tr.Packets[i].Cycle)*scale) || done != inject {
					late++
				}
			}
			res, err := r.Run()
			if err != nil {
				t.Fatal(err)
			}
			want := des.Time(float64(last) * scale)
			if res.LastDelivery != want || res.LastInjection != want || late != 0 || res.Delivered != len(tr.Packets) {
				t.Errorf("%s x%g: last delivery %d, injection %d, want %d; %d packets off their cycle; %d of %d delivered",
					file, scale, res.LastDelivery, res.LastInjection, want, late, res.Delivered, len(tr.Packets))
			}
			if res.Slowdown != 1 || res.AvgDepWait != 0 {
				t.Errorf("%s x%g: slowdown %g, dependency wait %g on an ideal network", file, scale, res.Slowdown, res.AvgDepWait)
			}
		}
	}
}

// On the mesh every packet is injected exactly when the rule says: at
// the later of its trace cycle and the delivery of the last packet it
// depends on (computed here from the recorded deliveries and the trace's
// dependency lists); without dependencies, at its trace cycle.
func TestReplayHonoursDependencies(t *testing.T) {
	tr := readTrace(t, "example.tra.bz2", netrace.Options{})
	for _, deps := range []bool{true, false} {
		r := replayOf(tr, 8, 8)
		r.Deps = deps
		n := len(tr.Packets)
		inject, done := make([]des.Time, n), make([]des.Time, n)
		seen := make([]bool, n)
		r.onRecord = func(i int, in, d des.Time) { inject[i], done[i], seen[i] = in, d, true }
		res, err := r.Run()
		if err != nil {
			t.Fatal(err)
		}
		index := map[uint32]int{}
		for i, p := range tr.Packets {
			index[p.ID] = i
		}
		want := make([]des.Time, n)
		for i, p := range tr.Packets {
			want[i] = max(want[i], des.Time(p.Cycle))
			if !deps {
				continue
			}
			for _, id := range tr.Deps(i) {
				j := index[id]
				want[j] = max(want[j], done[i])
			}
		}
		waited := 0
		for i := range n {
			if !seen[i] || inject[i] != want[i] || done[i] <= inject[i] {
				t.Fatalf("deps %v: packet %d injected %d, delivered %d; want injection at %d", deps, tr.Packets[i].ID, inject[i], done[i], want[i])
			}
			if want[i] > des.Time(tr.Packets[i].Cycle) {
				waited++
			}
		}
		if deps && waited == 0 {
			t.Error("no packet waited for a dependency: the check checked nothing")
		}
		if res.Slowdown < 1 || res.Runtime != max(res.LastDelivery, des.Time(tr.Cycles)) {
			t.Errorf("deps %v: runtime %d, last delivery %d, slowdown %g", deps, res.Runtime, res.LastDelivery, res.Slowdown)
		}
	}
}

// Regions: their packets and flits add up to the whole replay's, and so
// do their runtimes (each runs from the previous one's end); a replay is
// deterministic.
func TestReplayRegions(t *testing.T) {
	tr := readTrace(t, "multiregion.tra.bz2", netrace.Options{MaxPackets: 9400})
	r := replayOf(tr, 8, 8)
	res, err := r.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Regions) != 2 {
		t.Fatalf("%d regions, want 2 (9400 packets reach into region 2)", len(res.Regions))
	}
	var packets, flits int64
	var runtime, recorded des.Time
	for _, g := range res.Regions {
		packets += int64(g.Packets)
		flits += g.Flits
		runtime += g.Runtime
		recorded += g.Recorded
		if g.Packets != g.ControlPackets+g.DataPackets {
			t.Errorf("region %d: %d packets, %d control + %d data", g.Region, g.Packets, g.ControlPackets, g.DataPackets)
		}
	}
	if packets != 9400 || flits != res.Flits || runtime != res.Runtime || recorded != res.Recorded {
		t.Errorf("regions sum to %d packets, %d flits, %d runtime, %d recorded; whole %d, %d, %d, %d",
			packets, flits, runtime, recorded, res.Packets, res.Flits, res.Runtime, res.Recorded)
	}
	if want := int64(res.ControlPackets*2 + res.DataPackets*18); res.Flits != want {
		t.Errorf("%d flits, want %d (2 per 8-byte, 18 per 72-byte packet at 32 bits)", res.Flits, want)
	}
	again, err := r.Run()
	if err != nil {
		t.Fatal(err)
	}
	res.WallSeconds, again.WallSeconds = 0, 0
	if !reflect.DeepEqual(res, again) {
		t.Error("two replays differ")
	}
}

// Bad settings are refused before anything runs.
func TestReplayValidate(t *testing.T) {
	tr := readTrace(t, "shrtex.tra.bz2", netrace.Options{})
	for name, edit := range map[string]func(r *Replay){
		"small mesh": func(r *Replay) { r.Topo = mesh.Mesh{W: 4, H: 4} },
		"scale":      func(r *Replay) { r.Scale = 0 },
		"flit bits":  func(r *Replay) { r.FlitBits = 8 }, // 72 flits > 64
	} {
		r := replayOf(tr, 8, 8)
		edit(&r)
		if err := r.Validate(); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// Each shipped trace replays whole on an 8x8 mesh: every packet is
// delivered, the runtime is the later of the last delivery and the
// recorded end (so the slowdown is at least 1), and the energy model
// priced exactly the flits the replay counted (the NIUs ejected them).
func TestReplayShippedTracesOn8x8(t *testing.T) {
	for _, file := range []string{"shrtex.tra.bz2", "example.tra.bz2", "multiregion.tra.bz2", "lngrex.tra.bz2"} {
		tr := readTrace(t, file, netrace.Options{})
		r := replayOf(tr, 8, 8)
		r.Energy = energy.Params{Model: energy.DSENT, Tech: "45nm", FlitBits: 32, TileMM: 1, ClockHz: 1e9}
		res, err := r.Run()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var want int64
		for _, p := range tr.Packets {
			want += int64(PacketFlits(p.Bytes(), 32))
		}
		if res.Delivered != len(tr.Packets) || res.Flits != want {
			t.Errorf("%s: %d of %d packets, %d flits of %d", file, res.Delivered, len(tr.Packets), res.Flits, want)
		}
		if res.Recorded != des.Time(tr.Cycles) || res.Runtime != max(res.LastDelivery, res.Recorded) || res.Slowdown < 1 {
			t.Errorf("%s: recorded %d (header %d), runtime %d, last delivery %d, slowdown %g", file, res.Recorded, tr.Cycles, res.Runtime, res.LastDelivery, res.Slowdown)
		}
		if res.Activity == nil || res.Activity.Totals().Ejected != uint64(want) {
			t.Errorf("%s: energy activity %v, want %d flits ejected", file, res.Activity, want)
		}
		t.Logf("%s: %d packets, slowdown %.5f, mean latency %.1f cycles", file, res.Packets, res.Slowdown, res.AvgLatency)
	}
}
