package traffic

import (
	"math"
	"testing"

	"nocsim/mesh"
	"nocsim/mesh/meshtest"
	"nocsim/router"
)

// zeroLoadBrute averages T0 over every source and every destination the
// pattern gives it, with its probability: the definition, O(nodes^2).
func zeroLoadBrute(m mesh.Mesh, rs router.Spec, p mesh.Pattern, packetFlits int) float64 {
	sum := 0.0
	n := m.Nodes()
	for s := 0; s < n; s++ {
		p.Dist(s, func(d int, w float64) {
			sum += w * float64(rs.ZeroLoadLatency(m.Hops(s, d), packetFlits))
		})
	}
	return sum / float64(n)
}

// ZeroLoad's O(nodes) form gives the brute-force average for every
// pattern, on square, rectangular and degenerate meshes.
func TestZeroLoadMatchesBruteForce(t *testing.T) {
	slow := router.DefaultSpec()
	slow.RouteDelay, slow.LinkLatency, slow.EjectLatency = 3, 2, 4
	for _, dims := range [][2]int{{1, 1}, {4, 4}, {8, 8}, {2, 8}, {5, 3}, {7, 1}, {16, 16}} {
		m, _ := mesh.New(dims[0], dims[1])
		for _, name := range mesh.PatternNames {
			p, err := mesh.NewPattern(name, m, mesh.HotspotSpec{Nodes: []int{0, m.Nodes() - 1, m.Nodes() / 2}, Fraction: 0.3})
			if err != nil {
				continue // pattern undefined on this mesh (not square, not a power of two)
			}
			for _, rs := range []router.Spec{router.DefaultSpec(), slow} {
				for _, flits := range []int{1, 5} {
					got, want := ZeroLoad(m, rs, p, flits), zeroLoadBrute(m, rs, p, flits)
					if math.Abs(got-want) > 1e-9*want {
						t.Errorf("%dx%d %s, %d flits: ZeroLoad %v, brute force %v", m.W, m.H, name, flits, got, want)
					}
				}
			}
		}
	}
}

// ZeroLoad's shortcuts for rings, tori and buses (every node sees the
// same distances) and for concentrated meshes (per dimension over the
// router grid) give the brute-force average of each pair's formula.
func TestZeroLoadOnRingTorusAndBusMatchesBruteForce(t *testing.T) {
	rs := router.DefaultSpec()
	rs.RouteDelay, rs.LinkLatency = 2, 3
	type net struct {
		tiles mesh.Mesh // the patterns' numbering
		topo  mesh.Topology
	}
	var nets []net
	for _, n := range []int{1, 7, 16} {
		line, _ := mesh.New(n, 1)
		for _, topo := range []mesh.Topology{meshtest.Ring(t, n, false), meshtest.Ring(t, n, true), meshtest.Bus(t, n)} {
			nets = append(nets, net{line, topo})
		}
	}
	for _, dims := range [][2]int{{4, 4}, {5, 3}, {8, 8}, {1, 6}} {
		tr := meshtest.Torus(t, dims[0], dims[1])
		nets = append(nets, net{tr.Grid(), tr})
	}
	for _, dims := range [][2]int{{4, 4}, {6, 4}, {8, 8}, {2, 10}} {
		c := meshtest.CMesh(t, dims[0], dims[1])
		nets = append(nets, net{c.Grid(), c})
	}
	for _, c := range nets {
		tiles, topo, n := c.tiles, c.topo, c.topo.Nodes()
		for _, name := range mesh.PatternNames {
			p, err := mesh.NewPattern(name, tiles, mesh.HotspotSpec{Nodes: []int{0, n - 1}, Fraction: 0.3})
			if err != nil {
				continue
			}
			want := 0.0
			for s := range n {
				p.Dist(s, func(d int, w float64) { want += w * float64(rs.ZeroLoad(topo, topo.Hops(s, d), 5)) })
			}
			want /= float64(n)
			if got := ZeroLoad(topo, rs, p, 5); math.Abs(got-want) > 1e-9*want {
				t.Errorf("%s %s: ZeroLoad %v, brute force %v", topo.Name(), name, got, want)
			}
		}
	}
}
