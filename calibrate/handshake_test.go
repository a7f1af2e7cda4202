package calibrate

import (
	"math"
	"strings"
	"testing"
)

// legs is a handshake to synthesize measurements from.
type legs struct{ Lpost, Lcts, LctsH, Ldata, LdataH, Octs, GapData float64 }

// synthHS is every benchmark's value on a machine with one LogGP segment
// (L = 100, L_per_hop = 15, o_s = 40, o_r = 20, g = 150, G = 0.25) and
// handshake h, each by its formula: rtt = 2(o_s + L + hL_per_hop + (m-1)G
// + o_r); ctswait = d + L_data(h) + o_r + (m-1)G; late = L_post +
// L_cts(h) + L_data(h) + o_r + (m-1)G; fanout = max(o_cts, g_data +
// (m-1)G). A preempting machine's data arrives during the computation:
// ctswait is then L + hL_per_hop + o_r + (m-1)G, below d.
func synthHS(h legs, preempt bool) []Measurement {
	var ms []Measurement
	const d = 1000
	for _, m := range []int{64, 128, 256, 1024, 4096} {
		b := float64(m-1) * 0.25
		for _, hops := range []int{1, 6} {
			x := float64(hops)
			wait := d + h.Ldata + x*h.LdataH + 20 + b
			if preempt {
				wait = 100 + 15*x + 20 + b
			}
			ms = append(ms,
				Measurement{Kind: KindRTT, Bytes: m, Hops: hops, N: 1, Cycles: 2 * (40 + 100 + 15*x + b + 20)},
				Measurement{Kind: KindSend, Bytes: m, Hops: hops, N: 1, Cycles: 40},
				Measurement{Kind: KindRecv, Bytes: m, Hops: hops, N: 1, Cycles: 20},
				Measurement{Kind: KindTrain, Bytes: m, Hops: hops, N: 8, Cycles: 8 * 150},
				Measurement{Kind: KindCTSWait, Bytes: m, Hops: hops, N: 1, Delay: d, Cycles: wait},
				Measurement{Kind: KindLate, Bytes: m, Hops: hops, N: 1, Cycles: h.Lpost + h.Lcts + x*h.LctsH + h.Ldata + x*h.LdataH + 20 + b})
		}
		ms = append(ms, Measurement{Kind: KindFanout, Bytes: m, Hops: 3, N: 4, Delay: FanoutCompute, Cycles: math.Max(h.Octs, h.GapData+b)})
	}
	return ms
}

// Fit recovers the legs from their benchmarks. End-to-end times fix L_post
// + L_cts, not the split: the fit's convention (L_cts at most what L
// leaves after L_data, the rest L_post) recovers it whenever the truth
// follows it, a request flying 0 cycles at 0 hops with L_post > 0, or
// L_post = 0.
func TestFitHandshakeRecovers(t *testing.T) {
	for _, want := range []legs{
		{Lpost: 10, Lcts: 40, LctsH: 5, Ldata: 60, LdataH: 4, Octs: 50, GapData: 3},
		{Lpost: 0, Lcts: 25, LctsH: 6, Ldata: 55, LdataH: 5, Octs: 70, GapData: 7},
	} {
		rep, err := Fit(synthHS(want, false), Options{P: 16, Protocol: "scmp", Source: "synthetic", Machine: Machine{Handshake: true, Cooperative: true}})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Params.Segments) != 1 || !rep.Params.Cooperative {
			t.Fatalf("%d segments, cooperative %v: want one, true (warnings %v)", len(rep.Params.Segments), rep.Params.Cooperative, rep.Warnings)
		}
		s := rep.Params.Segments[0]
		got := legs{s.Lpost, s.Lcts, s.LctsH, s.Ldata, s.LdataH, s.Octs, s.GapData}
		ok := s.Handshake
		for _, p := range [][2]float64{{got.Lpost, want.Lpost}, {got.Lcts, want.Lcts}, {got.LctsH, want.LctsH}, {got.Ldata, want.Ldata},
			{got.LdataH, want.LdataH}, {got.Octs, want.Octs}, {got.GapData, want.GapData}} {
			ok = ok && math.Abs(p[0]-p[1]) < 1e-6
		}
		if !ok {
			t.Errorf("fitted %+v (handshake %v), want %+v; warnings %v", got, s.Handshake, want, rep.Warnings)
		}
		if err := rep.Params.Validate(); err != nil {
			t.Errorf("fitted parameters refused: %v", err)
		}
		// The fan-out check reproduces every spacing (they were fitted
		// from the form the tier runs); the train is only reported.
		fan := 0
		for _, c := range rep.Segments[0].Handshake.Checks {
			if c.Kind == KindFanout {
				fan++
				if math.Abs(c.RelErr) > 1e-9 {
					t.Errorf("fan-out %d B: tier %v, measured %v", c.Bytes, c.Predicted, c.Measured)
				}
			}
		}
		if fan != 5 {
			t.Errorf("%d fan-out checks, want 5", fan)
		}
	}
}

// No handshake where it cannot be told apart (a preempting machine's
// data arrives during the computation) or is not asked for.
func TestFitHandshakeRefuses(t *testing.T) {
	h := legs{Lpost: 10, Lcts: 40, LctsH: 5, Ldata: 60, LdataH: 4, Octs: 50, GapData: 3}
	rep, err := Fit(synthHS(h, true), Options{P: 16, Protocol: "scmp", Source: "synthetic", Machine: Machine{Handshake: true}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Params.Segments[0].Handshake || !strings.Contains(strings.Join(rep.Warnings, "\n"), "handlers preempt") {
		t.Errorf("preempting machine: handshake %v, warnings %v", rep.Params.Segments[0].Handshake, rep.Warnings)
	}
	rep, err = Fit(synthHS(h, false), Options{P: 16, Protocol: "scmp", Source: "synthetic"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Params.Segments[0].Handshake || rep.Segments[0].Handshake != nil {
		t.Error("handshake fitted without Options.Handshake")
	}
}

// The fan-out needs two distinct receivers other than the root.
func TestRunFanoutRejects(t *testing.T) {
	for _, to := range [][]int{{1}, {1, 1}, {0, 2}, {-1, 2}} {
		if _, err := RunFanout(nil, 0, to, 1, []int{8}, 1); err == nil {
			t.Errorf("fan-out from 0 to %v accepted", to)
		}
	}
}
