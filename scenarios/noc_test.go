package scenarios_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"nocsim/endpoint/traffic"
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
		{"injection poisson", func(s *scenarios.Scenario) { s.Noc.Injection = "poisson" }, "injection", []string{"bernoulli, on_off"}},
		{"on_off without burst_packets", func(s *scenarios.Scenario) { s.Noc.Injection = "on_off" }, "burst_packets", []string{"1..1e6 packets"}},
		{"burst_packets with bernoulli", func(s *scenarios.Scenario) { s.Noc.BurstPackets = 3 }, "burst_packets", []string{"unless injection = on_off"}},
		// Default router: bursts at 2 flits/cycle of 5-flit packets, 1
		// packet each: the load is at most 2/(1+0.4) flits/node/cycle.
		{"on_off rate above its bound", func(s *scenarios.Scenario) {
			s.Noc.Injection, s.Noc.BurstPackets, s.Noc.Rates = "on_off", 1, []float64{0.1, 1.5}
		}, "rates", []string{"0..1.429 flits/node/cycle with injection on_off"}},
		{"packet_sizes with 0", func(s *scenarios.Scenario) { s.Noc.PacketSizes = []int{0, 4} }, "packet_sizes", []string{"1..64"}},
		{"weights without sizes", func(s *scenarios.Scenario) { s.Noc.PacketSizeWeights = []float64{1, 2} }, "packet_size_weights", []string{"none without packet_sizes"}},
		{"weights of another length", func(s *scenarios.Scenario) {
			s.Noc.PacketSizes, s.Noc.PacketSizeWeights = []int{1, 5}, []float64{1, 2, 3}
		}, "packet_size_weights", []string{"one weight per packet_sizes entry"}},
		{"reply_flits above the queue", func(s *scenarios.Scenario) { s.Noc.ReplyFlits = 65 }, "reply_flits", []string{"1..64"}},
		// The last measured request's round trip over the diameter: 80
		// there, 1 turnaround, 80 back.
		{"drain_cycles below the round trip", func(s *scenarios.Scenario) { s.Noc.ReplyFlits = 5; s.Noc.DrainCycles = 160 }, "drain_cycles", []string{"at least 161", "round trip"}},
		{"drain_cycles below the longest size", func(s *scenarios.Scenario) { s.Noc.PacketSizes = []int{1, 9}; s.Noc.DrainCycles = 80 }, "drain_cycles", []string{"at least 84"}},
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
		{"[noc]\ninjection = \"on_off\"\n", "default [noc] burst_packets = 0: allowed 1..1e6 packets"},
		{"[noc]\nreply_flits = 100\n", "f.toml: [noc] reply_flits = 100"},
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

// The traffic keys reach every point, and a scenario that leaves them
// unset writes none of them (results and configuration dumps from before
// they existed stay byte for byte), while one that sets them writes them.
func TestNocTrafficKeysReachPointsAndDump(t *testing.T) {
	sc := scenarios.Defaults()
	eff, err := sc.EffectiveTOML(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"injection", "burst_packets", "packet_sizes", "packet_size_weights", "reply_flits"} {
		if strings.Contains(eff, k+" =") {
			t.Errorf("unset key %s written:\n%s", k, eff)
		}
	}
	sc.Noc.Injection, sc.Noc.BurstPackets = "on_off", 4
	sc.Noc.PacketSizes, sc.Noc.PacketSizeWeights, sc.Noc.ReplyFlits = []int{1, 5}, []float64{3, 1}, 2
	pts, err := sc.NocPoints(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		if p.Injection != "on_off" || p.BurstPackets != 4 || !slices.Equal(p.PacketSizes, []int{1, 5}) ||
			!slices.Equal(p.SizeWeights, []float64{3, 1}) || p.ReplyFlits != 2 {
			t.Errorf("point does not carry the traffic keys: %+v", p)
		}
	}
	eff, err = sc.EffectiveTOML(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{`injection = "on_off"`, "burst_packets = 4.0", "packet_sizes = [1, 5]", "packet_size_weights = [3.0, 1.0]", "reply_flits = 2"} {
		if !strings.Contains(eff, line) {
			t.Errorf("set key not written as %q:\n%s", line, eff)
		}
	}
	if why := sc.UnusedKeys()["noc.packet_flits"]; !strings.Contains(why, "packet_sizes") {
		t.Errorf("packet_flits with packet_sizes set: unused reason %q", why)
	}
}
