package scenarios

import (
	"fmt"
	"strconv"
	"strings"

	"nocsim/config"
	"nocsim/mesh"
	"nocsim/router"
)

// The [network] topology values.
const (
	TopoMesh    = "mesh"
	TopoTorus   = "torus"
	TopoCMesh   = "cmesh"
	TopoRing    = "ring"
	TopoRingUni = "ring_uni"
	TopoBus     = "bus"
)

// TopologyNames lists the accepted topology values, for errors and docs.
var TopologyNames = []string{TopoMesh, TopoTorus, TopoCMesh, TopoRing, TopoRingUni, TopoBus}

// Topology builds the network the section describes: its W x H tiles
// joined as a mesh, a torus, a concentrated mesh, a ring (node i the i-th
// station) or a bus.
// It checks what the topology needs of the router keys, so every command
// that builds a machine refuses the same things the same way.
func (n Network) Topology() (mesh.Topology, error) {
	m, err := ParseMesh(n.Mesh)
	if err != nil {
		return nil, err
	}
	if r := n.RouterSpec.Routing; r != "" && r != mesh.RoutingXY && n.TopologyName() != TopoMesh {
		return nil, &config.KeyError{Key: "routing", Value: strconv.Quote(r), Allowed: fmt.Sprintf("%s on topology %s (the adaptive algorithms are the mesh's)", mesh.RoutingXY, n.TopologyName())}
	}
	switch n.TopologyName() {
	case TopoMesh:
		return m, nil
	case TopoTorus:
		if err := n.classVCs(); err != nil {
			return nil, err
		}
		t, err := mesh.NewTorus(m.W, m.H)
		if err != nil {
			return nil, &config.KeyError{Key: "mesh", Value: strconv.Quote(n.Mesh), Allowed: fmt.Sprintf("W and H each 1..%d on a torus (mesh.MaxTorusDim: a dimension's hops and dateline countdown share a 16-bit head offset)", mesh.MaxTorusDim)}
		}
		return t, nil
	case TopoCMesh:
		c, err := mesh.NewCMesh(m.W, m.H)
		if err != nil {
			return nil, &config.KeyError{Key: "mesh", Value: strconv.Quote(n.Mesh), Allowed: fmt.Sprintf("W and H each even, 2..%d, on a cmesh (2x2 tiles per router)", mesh.MaxDim)}
		}
		if most := 64 / (int(mesh.NumPorts) - 1 + c.Concentration()); n.VCs > most {
			return nil, &config.KeyError{Key: "vcs", Value: fmt.Sprint(n.VCs),
				Allowed: fmt.Sprintf("1 to %d on a cmesh (8 ports of a router share its 64 input-VC bits)", most)}
		}
		return c, nil
	case TopoRing, TopoRingUni:
		if err := n.classVCs(); err != nil {
			return nil, err
		}
		r, err := mesh.NewRing(m.Nodes(), n.TopologyName() == TopoRingUni)
		if err != nil {
			return nil, &config.KeyError{Key: "mesh", Value: strconv.Quote(n.Mesh), Allowed: fmt.Sprintf("W*H up to %d tiles on a ring", mesh.MaxRingNodes)}
		}
		return r, nil
	case TopoBus:
		return mesh.NewBus(m.Nodes())
	}
	return nil, &config.KeyError{Key: "topology", Value: strconv.Quote(n.Topo), Allowed: strings.Join(TopologyNames, ", ")}
}

// classVCs refuses a vcs value that cannot be split into the two VC
// classes a dateline needs (a ring's, a torus's).
func (n Network) classVCs() error {
	if v := n.VCs; v < 2 || v%2 != 0 {
		return &config.KeyError{Key: "vcs", Value: fmt.Sprint(v),
			Allowed: fmt.Sprintf("an even number from 2 to %d on topology %s (half the VCs before the dateline, half after)", router.MaxVCs, n.TopologyName())}
	}
	return nil
}

// TopologyName is the topology key's value, "mesh" when unset.
func (n Network) TopologyName() string {
	if n.Topo == "" {
		return TopoMesh
	}
	return n.Topo
}

// Text names the network for chart titles: "8x8 mesh", "8x8 torus",
// "16-tile bidirectional ring", "16-tile unidirectional ring", "16-tile
// bus".
func (n Network) Text() string {
	switch n.TopologyName() {
	case TopoMesh:
		return n.Mesh + " mesh"
	case TopoTorus:
		return n.Mesh + " torus"
	case TopoCMesh:
		return n.Mesh + " cmesh"
	case TopoRing:
		return fmt.Sprintf("%d-tile bidirectional ring", n.tiles())
	case TopoRingUni:
		return fmt.Sprintf("%d-tile unidirectional ring", n.tiles())
	}
	return fmt.Sprintf("%d-tile %s", n.tiles(), n.TopologyName())
}

// tiles is the W*H tile count of the mesh key (0 if it does not parse:
// titles are drawn only for validated scenarios).
func (n Network) tiles() int {
	m, _ := ParseMesh(n.Mesh)
	return m.Nodes()
}

// Diameter is the most hops a route on t takes.
func Diameter(t mesh.Topology) int {
	switch t := t.(type) {
	case mesh.Mesh:
		return t.W + t.H - 2
	case mesh.Torus:
		return t.W/2 + t.H/2
	case mesh.CMesh:
		return t.W/2 + t.H/2 - 2
	case mesh.Ring:
		if t.Uni {
			return t.N - 1
		}
		return t.N / 2
	}
	return 1
}

// describeTopo names t as errors do: "8x8 mesh", "8x8 torus", "ring 16".
func describeTopo(t mesh.Topology) string {
	switch t := t.(type) {
	case mesh.Mesh:
		return fmt.Sprintf("%dx%d mesh", t.W, t.H)
	case mesh.Torus:
		return fmt.Sprintf("%dx%d torus", t.W, t.H)
	case mesh.CMesh:
		return fmt.Sprintf("%dx%d cmesh", t.W, t.H)
	}
	return t.Name()
}

// TopoKey is the topology value that built t, empty for a mesh, so that a
// mesh's results read as they did before topologies existed.
func TopoKey(t mesh.Topology) string {
	switch t := t.(type) {
	case mesh.Torus:
		return TopoTorus
	case mesh.CMesh:
		return TopoCMesh
	case mesh.Ring:
		if t.Uni {
			return TopoRingUni
		}
		return TopoRing
	case mesh.Bus:
		return TopoBus
	}
	return ""
}

// MeshLabel is the "mesh" that results record: the tiles, "WxH", followed
// by the topology when it is not a mesh ("16x1 ring", "8x8 torus"), so that a mesh's
// results read exactly as before topologies existed.
func MeshLabel(m mesh.Mesh, topo string) string {
	if topo == "" {
		return fmt.Sprintf("%dx%d", m.W, m.H)
	}
	return fmt.Sprintf("%dx%d %s", m.W, m.H, topo)
}
