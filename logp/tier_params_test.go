package logp_test

import (
	"strings"
	"testing"

	"nocsim/logp"
	"nocsim/logp/goal"
	"nocsim/logp/loggops"
	"nocsim/mesh"
)

// Tier keeps every fitted segment and the hop term: an isolated
// message on the tier takes exactly logp's one-way time PointToPoint for
// its size and the XY distance between the tiles its ranks sit on, with
// the handshake (legs as calibrate fits them on the 4x4 mesh, the
// request to send flying 5 cycles per hop) or without. (The test takes
// the simulator's mesh, which the tier itself does not import, to check
// that mesh.Topology is a loggops.Topology.)
func TestTierOneWay(t *testing.T) {
	for _, hs := range []bool{false, true} {
		p := logp.Params{P: 16, Protocol: "scmp", Source: logp.SourceSimulator, Mesh: "4x4", Cooperative: hs, Segments: []logp.Segment{
			{MaxBytes: 64, L: 125, Lh: 15, Os: 44, Or: 20, Gap: 177},
			{L: 107.25, Lh: 15, Os: 44, Or: 20, Gap: 158.375, G: 0.25},
		}}
		if hs {
			for i, ld := range []float64{76, 58.25} {
				g := &p.Segments[i]
				g.Handshake, g.Lpost, g.Lcts, g.LctsH, g.Ldata, g.LdataH, g.Octs, g.GapData = true, 23, 49, 5, ld, 5, 54, 2.9
			}
		}
		var m mesh.Topology = mesh.Mesh{W: 4, H: 4}
		q, err := p.Tier(m, []int{5, 0, 15, 3}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if q.Cooperative != hs || q.Segments[1].Handshake != hs || hs && (q.Segments[1].Ldata != 58.25 || q.Segments[0].LctsH != 5) {
			t.Fatalf("handshake %v: tier parameters %+v", hs, q)
		}
		checkOneWay(t, p, q)
	}
}

func checkOneWay(t *testing.T, p logp.Params, q loggops.Params) {
	t.Helper()
	m := mesh.Mesh{W: 4, H: 4}
	place := []int{5, 0, 15, 3} // ranks on scattered tiles
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

func TestTierRejects(t *testing.T) {
	good := logp.Params{P: 4, Source: logp.SourceSimulator, Segments: []logp.Segment{{L: 1}}}
	m := mesh.Mesh{W: 2, H: 2}
	if _, err := good.Tier(m, []int{0, 4}, 0); err == nil || !strings.Contains(err.Error(), "rank 1 on tile 4") {
		t.Errorf("tile outside the mesh: %v", err)
	}
	bad := good
	bad.Segments = []logp.Segment{{L: -1}}
	if _, err := bad.Tier(m, []int{0, 1}, 0); err == nil {
		t.Error("negative latency accepted")
	}
	if _, err := bad.TierAvgHops(0); err == nil {
		t.Error("negative latency accepted without a placement")
	}
}

// With no placement every latency is taken at the fit's average
// distance, the handshake's legs alike: an isolated message then takes
// PointToPoint at avg_hops.
func TestTierAvgHopsFoldsHandshake(t *testing.T) {
	p := logp.Params{P: 16, Protocol: "scmp", Source: logp.SourceSimulator, Mesh: "4x4", AvgHops: 2.5, Cooperative: true,
		Segments: []logp.Segment{{L: 107.25, Lh: 15, Os: 44, Or: 20, Gap: 158.375, G: 0.25,
			Handshake: true, Lpost: 23, Lcts: 49, LctsH: 5, Ldata: 58.25, LdataH: 5, Octs: 54, GapData: 2.9}}}
	q, err := p.TierAvgHops(0)
	if err != nil {
		t.Fatal(err)
	}
	if g := q.Segments[0]; g.Lh != 0 || g.LctsH != 0 || g.Lcts != 49+2.5*5 || g.Ldata != 58.25+2.5*5 || !q.Cooperative {
		t.Fatalf("folded segment %+v", g)
	}
	for _, size := range []uint64{1, 100, 4096} {
		b := goal.NewBuilder(40, 2)
		b.AddSend(7, 33, size, 0)
		b.AddRecv(33, 7, size, 0)
		s, err := b.Schedule()
		if err != nil {
			t.Fatal(err)
		}
		res, err := loggops.Simulate(s, q, loggops.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want := p.PointToPoint(int(size), 2.5); res.Finish[33] != want {
			t.Errorf("%d B: tier %v, one-way at avg_hops %v", size, res.Finish[33], want)
		}
	}
}
