package scenarios

import (
	"strings"
	"testing"

	"nocsim/logp"
	"nocsim/logp/goal"
	"nocsim/logp/loggops"
	"nocsim/mesh"
)

// TierParams keeps every fitted segment and the hop term: an isolated
// message on the tier takes exactly logp's one-way time PointToPoint for
// its size and the XY distance between the tiles its ranks sit on.
func TestTierParamsOneWay(t *testing.T) {
	p := logp.Params{P: 16, Protocol: "scmp", Source: logp.SourceSimulator, Mesh: "4x4", Segments: []logp.Segment{
		{MaxBytes: 64, L: 125, Lh: 15, Os: 44, Or: 20, Gap: 177},
		{L: 107.25, Lh: 15, Os: 44, Or: 20, Gap: 158.375, G: 0.25},
	}}
	m := mesh.Mesh{W: 4, H: 4}
	place := []int{5, 0, 15, 3} // ranks on scattered tiles
	q, err := TierParams(p, m, place, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []int{0, 1, 2, 3} {
		for _, dst := range []int{0, 1, 2, 3} {
			if src == dst {
				continue
			}
			for _, size := range []uint64{0, 1, 8, 64, 65, 1000, 65536} {
				b := goal.NewBuilder(4, 2)
				b.AddSend(src, dst, size, 0)
				b.AddRecv(dst, src, size, 0)
				s, err := b.Schedule()
				if err != nil {
					t.Fatal(err)
				}
				res, err := loggops.Simulate(s, q, loggops.Options{})
				if err != nil {
					t.Fatal(err)
				}
				want := p.PointToPoint(int(size), float64(m.Hops(place[src], place[dst])))
				if d := res.Finish[dst] - want; d > 1e-9 || d < -1e-9 {
					t.Errorf("%d B from rank %d (tile %d) to %d (tile %d): tier %v, fitted one-way %v", size, src, place[src], dst, place[dst], res.Finish[dst], want)
				}
			}
		}
	}
}

func TestTierParamsRejects(t *testing.T) {
	good := logp.Params{P: 4, Source: logp.SourceSimulator, Segments: []logp.Segment{{L: 1}}}
	m := mesh.Mesh{W: 2, H: 2}
	if _, err := TierParams(good, m, []int{0, 4}, 0); err == nil || !strings.Contains(err.Error(), "rank 1 on tile 4") {
		t.Errorf("tile outside the mesh: %v", err)
	}
	bad := good
	bad.Segments = []logp.Segment{{L: -1}}
	if _, err := TierParams(bad, m, []int{0, 1}, 0); err == nil {
		t.Error("negative latency accepted")
	}
}

// The threshold follows the protocol: every scmp and niu message is a
// rendezvous; eager sends up to eager_bytes without the receiver.
func TestRendezvousThreshold(t *testing.T) {
	sc := Defaults()
	for proto, want := range map[string]uint64{"scmp": 0, "niu": 0, "eager": uint64(sc.MPI.EagerBytes)} {
		sc.MPI.Protocol = proto
		if got := sc.RendezvousThreshold(); got != want {
			t.Errorf("%s: S = %d, want %d", proto, got, want)
		}
	}
}
