package study

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"nocsim/config"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"strings"
	"testing"
)

func pairsRun(t *testing.T, sc *scenarios.Scenario, p *Pairs) []report.PairsRow {
	t.Helper()
	if err := p.Check(sc, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := p.Run(sc, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !r.Correct {
			t.Fatalf("%s, %d pairs, %d bytes: %s", r.Version, r.Pairs, r.SizeBytes, r.Error)
		}
	}
	return rows
}

func within(got, want, frac float64) bool { return math.Abs(got-want) <= frac*math.Abs(want) }

// One native pair streams DMA blocks of words+2 flits (a head and an
// address flit before the data words, endpoint.Fabric.SendBlock), each
// flit one 4-byte word, at the narrowest of the link, injection and
// ejection widths (router.Spec.StreamWidth). Its bandwidth can never pass
// 4*w*words/(words+2) bytes per cycle, and with large blocks it comes
// within the start-up (call overhead and the head's zero-load latency,
// tens of cycles) of it.
func TestPairsNativeLinkBound(t *testing.T) {
	for _, link := range []int{1, 2} {
		for _, reps := range []int{1, 3} {
			sc := scenarios.Defaults()
			sc.Network.LinkWidth = link
			rows := pairsRun(t, &sc, &Pairs{Pairs: []int{1}, Sizes: []int{64, 4096, 65536}, Reps: reps, Versions: []string{"native"}, Placement: "neighbor"})
			w := float64(sc.Network.RouterSpec.StreamWidth())
			for _, r := range rows {
				words := float64(r.SizeBytes / 4)
				bound := 4 * w * words / (words + 2)
				if r.MeanPairBW > bound {
					t.Errorf("link %d, reps %d, %d bytes: %.4f bytes/cycle, above the link's %.4f", link, reps, r.SizeBytes, r.MeanPairBW, bound)
				}
				// The start-up is the same whatever the size: a window
				// longer than the blocks' streaming time by more than
				// 100 cycles would be a gap between blocks.
				stream := float64(reps) * (words + 2) / w
				if r.SizeBytes == 65536 && float64(r.WindowCycles) > stream+100 {
					t.Errorf("link %d, reps %d, %d bytes: %d cycles, want within 100 of the %.0f the flits take to stream", link, reps, r.SizeBytes, r.WindowCycles, stream)
				}
			}
		}
	}
}

// With one pair and reps transfers, the MPI stream takes no longer than
// reps one-way times of the ping-pong (half its round trip) between the
// same ranks: a stream overlaps one transfer's overheads with the next.
// At 64 KiB the data's streaming time dominates both, and the two agree
// within 1%; every protocol.
func TestPairsMPIOnePairAgainstPingPong(t *testing.T) {
	sizes := []int{16, 1024, 65536}
	for _, proto := range []string{"scmp", "eager", "niu"} {
		sc := scenarios.Defaults()
		sc.MPI.Protocol = proto
		pr, _, err := (&PingPong{From: 0, To: 1, Sizes: sizes, Reps: 3}).Run(&sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, reps := range []int{1, 10} {
			rows := pairsRun(t, &sc, &Pairs{Pairs: []int{1}, Sizes: sizes, Reps: reps, Versions: []string{"mpi"}, Placement: "neighbor"})
			for i, r := range rows {
				oneWays := float64(reps) * pr[i].OneWayCycles
				if float64(r.WindowCycles) > oneWays {
					t.Errorf("%s, reps %d, %d bytes: stream of %d cycles, slower than %d one-way times (%.0f cycles)", proto, reps, r.SizeBytes, r.WindowCycles, reps, oneWays)
				}
				if r.SizeBytes == 65536 && !within(float64(r.WindowCycles), oneWays, 0.01) {
					t.Errorf("%s, reps %d, %d bytes: stream of %d cycles, want within 1%% of %d one-way times (%.0f cycles)", proto, reps, r.SizeBytes, r.WindowCycles, reps, oneWays)
				}
				if bw := float64(reps*r.SizeBytes) / float64(r.WindowCycles); bw != r.MeanPairBW {
					t.Errorf("%s: bandwidth %v, want bytes over window %v", proto, r.MeanPairBW, bw)
				}
			}
		}
	}
}

// Conservation: every pair's bandwidth times its window gives back its
// bytes, the aggregate times the common window gives back all of them,
// and the common window holds every pair's, so the aggregate is at most
// the sum of the pairs' bandwidths and at least their mean.
func TestPairsConservation(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	rows := pairsRun(t, &sc, &Pairs{Pairs: []int{1, 3, 8}, Sizes: []int{16, 4096}, Reps: 2, Versions: []string{"mpi", "native"}, Placement: "across"})
	for _, r := range rows {
		name := fmt.Sprintf("%s, %d pairs, %d bytes", r.Version, r.Pairs, r.SizeBytes)
		if len(r.PairCycles) != r.Pairs {
			t.Fatalf("%s: %d pair windows", name, len(r.PairCycles))
		}
		var moved, sum float64
		minBW := math.Inf(1)
		for _, c := range r.PairCycles {
			bw := float64(r.Messages*r.SizeBytes) / float64(c)
			moved += bw * float64(c)
			sum += bw
			minBW = math.Min(minBW, bw)
			if c > r.WindowCycles {
				t.Errorf("%s: a pair's window %d past the common %d", name, c, r.WindowCycles)
			}
		}
		if !within(moved, float64(r.TotalBytes), 1e-9) || r.TotalBytes != int64(r.Pairs*r.Messages*r.SizeBytes) {
			t.Errorf("%s: pairs moved %.0f bytes, total %d", name, moved, r.TotalBytes)
		}
		if !within(r.AggregateBW*float64(r.WindowCycles), float64(r.TotalBytes), 1e-9) {
			t.Errorf("%s: aggregate %v x window %d is not the %d bytes", name, r.AggregateBW, r.WindowCycles, r.TotalBytes)
		}
		if r.AggregateBW > sum*(1+1e-12) || r.AggregateBW < r.MeanPairBW*(1-1e-12) {
			t.Errorf("%s: aggregate %v outside [mean %v, sum %v] of the pairs", name, r.AggregateBW, r.MeanPairBW, sum)
		}
		if !within(r.MeanPairBW, sum/float64(r.Pairs), 1e-12) || r.MinPairBW != minBW {
			t.Errorf("%s: mean %v min %v, want %v %v", name, r.MeanPairBW, r.MinPairBW, sum/float64(r.Pairs), minBW)
		}
		if !within(r.MeanPairMBps, r.MeanPairBW*sc.Node.ClockHz/1e6, 1e-12) || !within(r.AggregateMBps, r.AggregateBW*sc.Node.ClockHz/1e6, 1e-12) {
			t.Errorf("%s: MB/s %v, %v not bytes/cycle at %g Hz", name, r.MeanPairMBps, r.AggregateMBps, sc.Node.ClockHz)
		}
	}
}

// On a mesh, neighbor pairs (2j -> 2j+1) each use their own east link, so
// Radke's KSR1 result holds: the bandwidth per pair at a large size does
// not fall as pairs are added (within 2%), and the aggregate grows with
// them.
func TestPairsMeshNeighborDoesNotFall(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	rows := pairsRun(t, &sc, &Pairs{Pairs: []int{1, 2, 4, 8}, Sizes: []int{65536}, Reps: 2, Versions: []string{"mpi", "native"}, Placement: "neighbor"})
	one := map[string]float64{}
	for _, r := range rows {
		if r.Pairs == 1 {
			one[r.Version] = r.MeanPairBW
			continue
		}
		if !within(r.MinPairBW, one[r.Version], 0.02) || !within(r.MeanPairBW, one[r.Version], 0.02) {
			t.Errorf("%s, %d pairs: per pair mean %.4f, min %.4f bytes/cycle; want within 2%% of one pair's %.4f", r.Version, r.Pairs, r.MeanPairBW, r.MinPairBW, one[r.Version])
		}
		if !within(r.AggregateBW, float64(r.Pairs)*one[r.Version], 0.02) {
			t.Errorf("%s, %d pairs: aggregate %.4f, want %d x %.4f", r.Version, r.Pairs, r.AggregateBW, r.Pairs, one[r.Version])
		}
	}
}

// On an 8x1 line, across pairs (j -> j+4) all cross the link between
// tiles 3 and 4. k flows over one link share it: together they get one
// pair's bandwidth (the aggregate stays within 2% of it), and the pair
// that finishes last, which shared the link for its whole window, gets
// 1/k of it (within 2%). Radke's ProLiant bus in miniature.
func TestPairsAcrossShareOneLink(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "8x1"
	rows := pairsRun(t, &sc, &Pairs{Pairs: []int{1, 2, 4}, Sizes: []int{65536}, Reps: 2, Versions: []string{"mpi", "native"}, Placement: "across"})
	one := map[string]float64{}
	for _, r := range rows {
		if r.Pairs == 1 {
			one[r.Version] = r.MeanPairBW
			continue
		}
		k := float64(r.Pairs)
		if !within(r.AggregateBW, one[r.Version], 0.02) {
			t.Errorf("%s, %d pairs: aggregate %.4f bytes/cycle, want one link's %.4f", r.Version, r.Pairs, r.AggregateBW, one[r.Version])
		}
		if !within(r.MinPairBW, one[r.Version]/k, 0.02) {
			t.Errorf("%s, %d pairs: slowest pair %.4f bytes/cycle, want 1/%d of %.4f", r.Version, r.Pairs, r.MinPairBW, r.Pairs, one[r.Version])
		}
	}
}

// Same inputs, same bytes, whatever the number of workers.
func TestPairsDeterministic(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	p := &Pairs{Pairs: []int{1, 2, 8}, Sizes: []int{16, 1024}, Reps: 2, Versions: []string{"mpi", "native"}, Placement: "neighbor"}
	var out [2]bytes.Buffer
	for i, workers := range []int{1, 3} {
		rows, err := p.Run(&sc, scenarios.RunOptions{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if err := report.WriteJSON(&out[i], rows); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Error("two runs of the same benchmark differ")
	}
}

// Every bad value is refused before anything runs, naming its key.
func TestPairsCheck(t *testing.T) {
	ok := Pairs{Pairs: []int{1, 8}, Sizes: []int{16}, Reps: 3, Versions: []string{"mpi", "native"}, Placement: "neighbor"}
	for _, c := range []struct {
		key  string
		edit func(p *Pairs, sc *scenarios.Scenario)
	}{
		{"", func(*Pairs, *scenarios.Scenario) {}},
		{"pairs", func(p *Pairs, _ *scenarios.Scenario) { p.Pairs = []int{0} }},
		{"pairs", func(p *Pairs, _ *scenarios.Scenario) { p.Pairs = []int{9} }},
		{"pairs", func(p *Pairs, sc *scenarios.Scenario) { sc.MPI.Procs = 8; p.Pairs = []int{5} }},
		{"pairs", func(p *Pairs, _ *scenarios.Scenario) { p.Pairs = nil }},
		{"sizes", func(p *Pairs, _ *scenarios.Scenario) { p.Sizes = []int{0} }},
		{"sizes", func(p *Pairs, _ *scenarios.Scenario) { p.Sizes = []int{18} }},
		{"", func(p *Pairs, _ *scenarios.Scenario) { p.Sizes = []int{18}; p.Versions = []string{"mpi"} }},
		{"sizes", func(p *Pairs, _ *scenarios.Scenario) { p.Sizes = []int{pairsMaxBytes + 4} }},
		{"sizes", func(p *Pairs, sc *scenarios.Scenario) { sc.Network.MemoryWords = 4096; p.Sizes = []int{16384} }},
		{"reps", func(p *Pairs, _ *scenarios.Scenario) { p.Reps = 0 }},
		{"reps", func(p *Pairs, _ *scenarios.Scenario) { p.Reps = 1001 }},
		{"placement", func(p *Pairs, _ *scenarios.Scenario) { p.Placement = "ring" }},
		{"versions", func(p *Pairs, _ *scenarios.Scenario) { p.Versions = []string{"shmem"} }},
		{"versions", func(p *Pairs, _ *scenarios.Scenario) { p.Versions = nil }},
		{"mesh", func(p *Pairs, sc *scenarios.Scenario) { sc.Network.Mesh = "1x1" }},
	} {
		sc, p := scenarios.Defaults(), ok
		sc.Network.Mesh = "4x4"
		c.edit(&p, &sc)
		err := p.Check(&sc, nil)
		var ke *config.KeyError
		switch {
		case c.key == "" && err != nil:
			t.Errorf("%+v: %v", p, err)
		case c.key != "" && (!errors.As(err, &ke) || ke.Key != c.key):
			t.Errorf("%+v: got %v, want an error naming %s", p, err, c.key)
		}
	}
	// The memory refusal names the largest size that fits, and that size
	// runs.
	sc, p := scenarios.Defaults(), ok
	sc.Network.Mesh = "4x4"
	sc.Network.MemoryWords = 4096
	p.Sizes = []int{16384}
	err := p.Check(&sc, nil)
	var ke *config.KeyError
	if !errors.As(err, &ke) {
		t.Fatal(err)
	}
	var largest int
	if _, err := fmt.Sscanf(ke.Allowed, "at most %d bytes", &largest); err != nil || largest <= 0 {
		t.Fatalf("%q: no largest size (%v)", ke.Allowed, err)
	}
	p.Sizes, p.Pairs, p.Reps = []int{largest}, []int{8}, 1
	pairsRun(t, &sc, &p)
}

// Check never panics, whatever it is given, and refuses what it should.
func FuzzPairsCheck(f *testing.F) {
	f.Add(1, 16, 3, "neighbor", "mpi", 16)
	f.Add(0, -4, 0, "", "", 1)
	f.Add(8, 65536, 1000, "across", "native", 1<<20)
	f.Fuzz(func(t *testing.T, k, size, reps int, placement, version string, words int) {
		sc := scenarios.Defaults()
		sc.Network.Mesh = "4x4"
		sc.Network.MemoryWords = words
		p := &Pairs{Pairs: []int{k}, Sizes: []int{size}, Reps: reps, Versions: []string{version}, Placement: placement}
		if p.Check(&sc, nil) == nil && (k < 1 || k > 8 || size < 1 || reps < 1 || reps > 1000) {
			t.Errorf("accepted %+v", p)
		}
	})
}

// Radke's contrast on 16 tiles, neighbor pairs at 64 KiB, one study over
// every topology: on the bus all transfers share one medium, so the
// aggregate stays at one pair's bandwidth (within 2%) and the slowest pair
// gets 1/k of it (within 2%), Radke's ProLiant; on the mesh, the torus
// and the bidirectional ring the pairs use disjoint links and the
// bandwidth per pair does not fall (within 2%), Radke's KSR1. The rows say their
// topology, in the order asked.
func TestPairsTopologies(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	topos := []string{scenarios.TopoMesh, scenarios.TopoTorus, scenarios.TopoRing, scenarios.TopoBus}
	rows := pairsRun(t, &sc, &Pairs{Pairs: []int{1, 2, 8}, Sizes: []int{65536}, Reps: 2, Versions: []string{"native"}, Placement: "neighbor", Topologies: topos})
	if len(rows) != 12 {
		t.Fatalf("%d rows, want 4 topologies x 3 pair counts", len(rows))
	}
	one := map[string]float64{}
	for i, r := range rows {
		if want := topos[i/3]; r.Topology != want {
			t.Fatalf("row %d: topology %q, want %q", i, r.Topology, want)
		}
		if r.Pairs == 1 {
			one[r.Topology] = r.MeanPairBW
			continue
		}
		k := float64(r.Pairs)
		switch r.Topology {
		case scenarios.TopoBus:
			if !within(r.AggregateBW, one[r.Topology], 0.02) || !within(r.MinPairBW, one[r.Topology]/k, 0.02) {
				t.Errorf("bus, %d pairs: aggregate %.4f, slowest pair %.4f bytes/cycle; want one pair's %.4f and 1/%d of it",
					r.Pairs, r.AggregateBW, r.MinPairBW, one[r.Topology], r.Pairs)
			}
		default:
			if !within(r.MinPairBW, one[r.Topology], 0.02) {
				t.Errorf("%s, %d pairs: slowest pair %.4f bytes/cycle, want one pair's %.4f", r.Topology, r.Pairs, r.MinPairBW, one[r.Topology])
			}
		}
	}
	if err := (&Pairs{Pairs: []int{1}, Sizes: []int{64}, Reps: 1, Versions: []string{"mpi"}, Placement: "neighbor", Topologies: []string{"hypercube"}}).Check(&sc, nil); err == nil || !strings.Contains(err.Error(), "topologies") {
		t.Errorf("topology hypercube: got %v, want an error naming topologies", err)
	}
}
