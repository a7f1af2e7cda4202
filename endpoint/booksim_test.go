package endpoint

import (
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

// With the booksim preset a lone packet takes BookSim's zero-load latency,
// 5*D + 7 + (L-1) cycles for D router-to-router hops and L flits, between
// every pair of a 4x4 mesh (the formula written out here, not taken from
// Spec.ZeroLoadLatency).
func TestBookSimPresetZeroLoad(t *testing.T) {
	rs, err := router.Preset(router.PresetBookSim)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := mesh.New(4, 4)
	for _, length := range []int{1, 2, 5, 16} {
		for src := 0; src < m.Nodes(); src++ {
			for dst := 0; dst < m.Nodes(); dst++ {
				got := loneLatency(t, m, rs, src, dst, length)
				d := m.Hops(src, dst)
				if want := des.Time(5*d + 7 + length - 1); got != want {
					t.Fatalf("%d->%d (%d hops), %d flits: latency %d, BookSim %d", src, dst, d, length, got, want)
				}
			}
		}
	}
}

// Under uniform traffic with 2 VCs, round-robin VC allocation spreads the
// router-to-router flits evenly: each VC carries 40-60% of them, for
// 1-flit and 5-flit packets, with both presets. Granting the lowest free
// VC does not: VC0 carries well over 60% at the same load, which is what
// the test would catch if round_robin fell back to it.
func TestVCBalanceUniform(t *testing.T) {
	if testing.Short() {
		t.Skip("8x8 runs")
	}
	m, _ := mesh.New(8, 8)
	pat, err := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	if err != nil {
		t.Fatal(err)
	}
	for _, preset := range router.PresetNames {
		for _, length := range []int{1, 5} {
			for _, policy := range []string{router.VCAllocRoundRobin, router.VCAllocLowest} {
				rs, _ := router.Preset(preset)
				rs.VCs, rs.VCAlloc = 2, policy
				s := Synthetic{Mesh: m, Router: rs, Endpoint: DefaultSpec(), Pattern: pat, Rate: 0.15, PacketFlits: length,
					Warmup: 500, Measure: 2000, DrainMax: 5000, Watchdog: 5000, Seed: 3}
				res, err := s.Run()
				if err != nil {
					t.Fatal(err)
				}
				if len(res.VCShare) != 2 || res.Saturated {
					t.Fatalf("%s %d flits %s: shares %v, saturated %v", preset, length, policy, res.VCShare, res.Saturated)
				}
				sum := res.VCShare[0] + res.VCShare[1]
				if sum < 1-1e-12 || sum > 1+1e-12 {
					t.Errorf("%s %d flits %s: shares %v do not add up to 1", preset, length, policy, res.VCShare)
				}
				var flits uint64
				for _, l := range res.Links {
					for _, n := range l.VCFlits {
						flits += n
					}
				}
				if want := res.LinkUtilMean * float64(len(res.Links)) * float64(s.Measure); float64(flits) < want-0.5 || float64(flits) > want+0.5 {
					t.Errorf("%s %d flits %s: per-VC link counts sum to %d, link utilisation says %.1f", preset, length, policy, flits, want)
				}
				balanced := res.VCShare[0] >= 0.4 && res.VCShare[0] <= 0.6
				if policy == router.VCAllocRoundRobin && !balanced {
					t.Errorf("%s %d flits round_robin: VC shares %v, want each 0.4..0.6", preset, length, res.VCShare)
				}
				if policy == router.VCAllocLowest && res.VCShare[0] <= 0.6 {
					t.Errorf("%s %d flits lowest: VC0 share %.3f, expected the lowest VC to dominate", preset, length, res.VCShare[0])
				}
			}
		}
	}
}
