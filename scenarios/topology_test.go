package scenarios_test

import (
	"errors"
	"strings"
	"testing"

	"nocsim/config"
	"nocsim/mesh"
	"nocsim/scenarios"
)

// Network.Topology builds what the key names over the mesh key's tiles,
// and refuses an unknown name, a ring or torus without an even number of
// VCs, a torus side past mesh.MaxTorusDim, a cmesh side that is odd and a
// cmesh with more VCs than its 8-port routers' masks hold, naming the key,
// the value and what is allowed.
func TestNetworkTopology(t *testing.T) {
	base := scenarios.Defaults().Network
	base.Mesh = "4x3"
	for _, tc := range []struct {
		topo string
		vcs  int
		want mesh.Topology
		key  string
	}{
		{"", 2, mesh.Mesh{W: 4, H: 3}, ""},
		{"mesh", 3, mesh.Mesh{W: 4, H: 3}, ""},
		{"torus", 2, mesh.Torus{W: 4, H: 3}, ""},
		{"torus", 6, mesh.Torus{W: 4, H: 3}, ""},
		{"ring", 2, mesh.Ring{N: 12}, ""},
		{"ring_uni", 4, mesh.Ring{N: 12, Uni: true}, ""},
		{"bus", 1, mesh.Bus{N: 12}, ""},
		{"cmesh 4x6", 8, mesh.CMesh{W: 4, H: 6}, ""},
		{"cmesh 4x6", 9, nil, "vcs"},
		{"cmesh", 2, nil, "mesh"}, // 4x3: an odd side
		{"ring", 3, nil, "vcs"},
		{"ring_uni", 1, nil, "vcs"},
		{"torus", 3, nil, "vcs"},
		{"torus", 0, nil, "vcs"},
		{"torus 256x2", 2, nil, "mesh"},
		{"hypercube", 2, nil, "topology"},
		{"Ring", 2, nil, "topology"},
	} {
		n := base
		n.Topo, n.VCs = tc.topo, tc.vcs
		if name, side, ok := strings.Cut(tc.topo, " "); ok {
			n.Topo, n.Mesh = name, side
		}
		got, err := n.Topology()
		if tc.key == "" {
			if err != nil || got != tc.want {
				t.Errorf("topology %q vcs %d: %v, %v; want %v", tc.topo, tc.vcs, got, err, tc.want)
			}
			continue
		}
		var ke *config.KeyError
		if !errors.As(err, &ke) || ke.Key != tc.key || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("topology %q vcs %d: error %v, want a KeyError on %s", tc.topo, tc.vcs, err, tc.key)
			continue
		}
		if tc.key == "topology" && (!strings.Contains(ke.Value, tc.topo) || !strings.Contains(ke.Allowed, "ring_uni")) {
			t.Errorf("topology %q: error %q should name the value and the allowed list", tc.topo, err)
		}
		if tc.key == "mesh" && n.Topo == "torus" && (!strings.Contains(ke.Value, n.Mesh) || !strings.Contains(ke.Allowed, "MaxTorusDim") || !strings.Contains(ke.Allowed, "255")) {
			t.Errorf("torus %s: error %q should name the side and the bound", n.Mesh, err)
		}
		if tc.key == "mesh" && n.Topo == "cmesh" && (!strings.Contains(ke.Value, n.Mesh) || !strings.Contains(ke.Allowed, "even")) {
			t.Errorf("cmesh %s: error %q should name the sides and that they must be even", n.Mesh, err)
		}
		if tc.key == "vcs" && !strings.Contains(ke.Allowed, n.Topo) {
			t.Errorf("vcs on %s: error %q should name the topology", tc.topo, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("error %q is not one line", err)
		}
	}
}

// A noc sweep on a ring records the topology with the tiles, and its
// drain check uses the ring's diameter: a unidirectional ring of 16 needs
// a longer drain than the bidirectional one.
func TestNocPointsOnRing(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "16x1"
	rs := sc.Network.RouterSpec
	for _, tc := range []struct {
		topo  string
		ok    bool
		drain int64
	}{
		{"ring", true, int64(rs.ZeroLoadLatency(8, sc.Noc.PacketFlits))},
		{"ring", false, int64(rs.ZeroLoadLatency(8, sc.Noc.PacketFlits)) - 1},
		{"ring_uni", false, int64(rs.ZeroLoadLatency(8, sc.Noc.PacketFlits))},
		{"ring_uni", true, int64(rs.ZeroLoadLatency(15, sc.Noc.PacketFlits))},
		{"bus", true, int64(rs.BusZeroLoadLatency(sc.Noc.PacketFlits))},
		{"bus", false, int64(rs.BusZeroLoadLatency(sc.Noc.PacketFlits)) - 1},
	} {
		s := sc
		s.Network.Topo = tc.topo
		s.Noc.DrainCycles = tc.drain
		pts, err := s.NocPoints(nil)
		if (err == nil) != tc.ok {
			t.Errorf("%s drain %d: error %v, want ok = %v", tc.topo, tc.drain, err, tc.ok)
			continue
		}
		if err != nil {
			if !strings.Contains(err.Error(), "drain_cycles") {
				t.Errorf("%s: %v does not name drain_cycles", tc.topo, err)
			}
			continue
		}
		if got := pts[0].Topo.Name(); !strings.HasPrefix(got, tc.topo+" ") {
			t.Errorf("%s: points run on %s", tc.topo, got)
		}
		if got, want := scenarios.MeshLabel(pts[0].Mesh, scenarios.TopoKey(pts[0].Topo)), "16x1 "+tc.topo; got != want {
			t.Errorf("%s: rows record mesh %q, want %q", tc.topo, got, want)
		}
	}
}

// A noc sweep on a torus records "WxH torus" and checks the drain against
// the torus's diameter, W/2 + H/2 (8 on 8x8, half the mesh's 14), and a
// torus side past mesh.MaxTorusDim is refused before anything runs.
func TestNocPointsOnTorus(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh, sc.Network.Topo = "8x8", scenarios.TopoTorus
	need := int64(sc.Network.RouterSpec.ZeroLoadLatency(8, sc.Noc.PacketFlits))
	for _, c := range []struct {
		drain int64
		ok    bool
	}{{need, true}, {need - 1, false}} {
		s := sc
		s.Noc.DrainCycles = c.drain
		pts, err := s.NocPoints(nil)
		if (err == nil) != c.ok {
			t.Fatalf("drain %d: error %v, want ok = %v", c.drain, err, c.ok)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "drain_cycles") || !strings.Contains(err.Error(), "8x8 torus") {
				t.Errorf("drain %d: %v should name drain_cycles and the torus", c.drain, err)
			}
			continue
		}
		if got := pts[0].Topo.Name(); got != "torus 8x8" {
			t.Errorf("points run on %s", got)
		}
		if got := scenarios.MeshLabel(pts[0].Mesh, scenarios.TopoKey(pts[0].Topo)); got != "8x8 torus" {
			t.Errorf("rows record mesh %q, want \"8x8 torus\"", got)
		}
	}
	s := sc
	s.Network.Mesh = "256x1"
	var ke *config.KeyError
	if _, err := s.NocPoints(nil); !errors.As(err, &ke) || ke.Key != "mesh" {
		t.Errorf("a 256x1 torus: %v, want a KeyError on mesh", err)
	}
}
