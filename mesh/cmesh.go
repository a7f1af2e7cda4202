package mesh

import "fmt"

// MaxPorts bounds a router's ports: the four links and at most four local
// ports (a concentrated mesh's), so that a router's input VCs still have a
// bit each in a 64-bit mask and its ports a bit each in a byte.
const MaxPorts = 8

// LocalPort is the router port of the i-th tile a router serves: Local for
// the first, then the ports after the four links (Port(NumPorts) on).
func LocalPort(i int) Port {
	if i == 0 {
		return Local
	}
	return NumPorts - 1 + Port(i)
}

// IsLocal is whether p is a local (injection and ejection) port.
func (p Port) IsLocal() bool { return p == Local || p >= NumPorts }

// Concentrated is a topology whose routers each serve several tiles: its
// Neighbor and Route work on routers, its Nodes, Offsets, Hops and Label
// on tiles, as for every topology.
type Concentrated interface {
	Topology
	// Routers is the number of routers.
	Routers() int
	// Concentration is the most tiles one router serves.
	Concentration() int
	// RouterOf is the router that tile t is attached to and the local port
	// it is attached by.
	RouterOf(t int) (router int, p Port)
	// RouterLabel names router r for reports.
	RouterLabel(r int) string
}

// Routers is the number of routers a topology has: one per node but on a
// concentrated topology.
func Routers(t Topology) int {
	if c, ok := t.(Concentrated); ok {
		return c.Routers()
	}
	return t.Nodes()
}

// RouterLabel names router r of topology t: the node's label but on a
// concentrated topology.
func RouterLabel(t Topology, r int) string {
	if c, ok := t.(Concentrated); ok {
		return c.RouterLabel(r)
	}
	return t.Label(r)
}

// CMesh is a concentrated mesh: W x H tiles (numbered as the mesh's, id =
// y*W + x), each 2x2 block of them sharing one router, so that the routers
// form a (W/2) x (H/2) mesh with dimension-order routing (X then Y). A
// router has the four links and four local ports, one per tile: the tile
// at (2rx+i, 2ry+j) of router (rx, ry) is on LocalPort(2j+i). This is
// BookSim2's cmesh with c = 4 (the only concentration it supports) and
// routing_function dor_no_express: the same tile numbering, routers and
// local-port order.
//
// Head offsets: DX is the router hops left in X, as on a mesh; DY packs
// the router hops left in Y (the high bits, DY>>2) with the index of the
// destination's local port (the low two bits), which Route needs at the
// last router. Route keeps those two bits as the hops count down, and
// clears them as the head leaves for its local port.
type CMesh struct {
	W, H int // tiles
}

// cmeshShift is the bits of DY that carry the destination's local port.
const cmeshShift = 2

// NewCMesh returns a concentrated mesh of W x H tiles, or an error naming
// what is allowed: even dimensions (2x2 tiles per router), up to MaxDim.
func NewCMesh(w, h int) (CMesh, error) {
	if w < 2 || h < 2 || w%2 != 0 || h%2 != 0 || w > MaxDim || h > MaxDim {
		return CMesh{}, fmt.Errorf("cmesh %dx%d: each dimension must be even, 2..%d (2x2 tiles per router)", w, h, MaxDim)
	}
	return CMesh{W: w, H: h}, nil
}

func (c CMesh) Name() string       { return fmt.Sprintf("cmesh %dx%d", c.W, c.H) }
func (c CMesh) Nodes() int         { return c.W * c.H }
func (c CMesh) Routers() int       { return c.W * c.H / 4 }
func (c CMesh) Concentration() int { return 4 }

// Grid is the mesh with the cmesh's tiles and numbering: the traffic
// patterns and anything else that works on tile coordinates use it.
func (c CMesh) Grid() Mesh { return Mesh{W: c.W, H: c.H} }

// RouterGrid is the mesh the routers form.
func (c CMesh) RouterGrid() Mesh { return Mesh{W: c.W / 2, H: c.H / 2} }

// XY returns the column and row of tile n.
func (c CMesh) XY(n int) (x, y int) { return n % c.W, n / c.W }

func (c CMesh) Label(n int) string { return c.Grid().Label(n) }

// RouterLabel names router r by its place in the router grid, "R(1,0)"'s
// "(1,0)" without the R, as a mesh's routers are named by their tile.
func (c CMesh) RouterLabel(r int) string { return c.RouterGrid().Label(r) }

func (c CMesh) RouterOf(t int) (int, Port) {
	x, y := c.XY(t)
	return c.RouterGrid().ID(x/2, y/2), LocalPort(2*(y%2) + x%2)
}

// Neighbor is the router-grid neighbour of router n.
func (c CMesh) Neighbor(n int, p Port) (int, bool) { return c.RouterGrid().Neighbor(n, p) }

func (c CMesh) Offsets(src, dst int) (dx, dy int) {
	s, _ := c.RouterOf(src)
	d, p := c.RouterOf(dst)
	dx, dy = c.RouterGrid().Offsets(s, d)
	return dx, dy<<cmeshShift | localIndex(p)
}

// localIndex is LocalPort's inverse.
func localIndex(p Port) int {
	if p == Local {
		return 0
	}
	return int(p - NumPorts + 1)
}

func (c CMesh) Route(dx, dy int) (Port, int, int) {
	i := dy & (1<<cmeshShift - 1)
	p, dx, y := RouteXY(dx, dy>>cmeshShift)
	if p == Local {
		// Offsets (0, 0) at ejection, as on every topology.
		return LocalPort(i), 0, 0
	}
	return p, dx, y<<cmeshShift | i
}

// Hops is the router-to-router links between the tiles' routers: 0 for
// two tiles of one router.
func (c CMesh) Hops(src, dst int) int {
	s, _ := c.RouterOf(src)
	d, _ := c.RouterOf(dst)
	return c.RouterGrid().Hops(s, d)
}
