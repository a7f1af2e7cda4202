package scenarios

import (
	"strings"
	"testing"

	"nocsim/logp"
	"nocsim/mesh"
)

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

// TierParamsFor places the ranks on the fitted mesh while it holds them
// (a hop function, per-hop terms kept) and takes every latency at the
// fit's average distance past it or with no mesh (no hop function, the
// per-hop terms folded into L).
func TestTierParamsForPlacesOrFolds(t *testing.T) {
	p := logp.Params{P: 16, Protocol: "scmp", Source: logp.SourceSimulator, Mesh: "4x4", AvgHops: 2.5,
		Segments: []logp.Segment{{L: 107.25, Lh: 15, Os: 44, Or: 20, Gap: 158.375, G: 0.25}}}
	noMesh := p
	noMesh.Mesh = ""
	for _, c := range []struct {
		p      logp.Params
		ranks  int
		placed bool
	}{{p, 16, true}, {p, 4, true}, {p, 17, false}, {noMesh, 4, false}} {
		q, err := TierParamsFor(c.p, c.ranks, 0)
		if err != nil {
			t.Fatal(err)
		}
		if placed := q.Hops != nil; placed != c.placed {
			t.Errorf("mesh %q, %d ranks: placed on the mesh %v, want %v", c.p.Mesh, c.ranks, placed, c.placed)
		}
		if c.placed && (q.Segments[0].Lh != 15 || q.Hops(0, c.ranks-1) != (mesh.Mesh{W: 4, H: 4}).Hops(0, c.ranks-1)) {
			t.Errorf("%d ranks on the 4x4 mesh: segment %+v", c.ranks, q.Segments[0])
		}
		if !c.placed && (q.Segments[0].Lh != 0 || q.Segments[0].L != 107.25+2.5*15) {
			t.Errorf("mesh %q, %d ranks: folded segment %+v", c.p.Mesh, c.ranks, q.Segments[0])
		}
	}
}

// Parameters whose handshake was fitted on a cooperative machine, used on
// one whose threads preempt (or the reverse), get a warning.
func TestParamsAgainstRunCooperative(t *testing.T) {
	p := logp.Params{P: 16, Protocol: "scmp", Source: logp.SourceSimulator, Mesh: "4x4", Cooperative: true,
		Segments: []logp.Segment{{L: 107.25, Lh: 15, Os: 44, Or: 20, Gap: 158.375, G: 0.25, Handshake: true, Lcts: 49, Ldata: 58.25}}}
	for _, preempt := range []bool{false, true} {
		sc := Defaults()
		sc.Network.Mesh = "4x4"
		sc.Node.PreemptThreads = preempt
		ws, err := sc.ParamsAgainstRun(&p)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(strings.Join(ws, "\n"), "preempt_threads = true"); got != preempt {
			t.Errorf("preempt_threads = %v: warnings %q", preempt, ws)
		}
	}
}
