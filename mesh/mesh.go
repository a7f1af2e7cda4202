package mesh

import "fmt"

// Port numbers a router's ports. Local is the injection/ejection port to the
// tile's NIU.
type Port int8

const (
	Local Port = iota
	North
	East
	South
	West
	NumPorts
)

var portNames = [MaxPorts]string{"L", "N", "E", "S", "W", "L1", "L2", "L3"}

// String names p: L, N, E, S, W, and L1..L3 for a concentrated router's
// further local ports.
func (p Port) String() string {
	if p < 0 || p >= MaxPorts {
		return fmt.Sprintf("port%d", int(p))
	}
	return portNames[p]
}

// Opposite is the port on the neighbouring router that a link leaving
// through p arrives at.
func (p Port) Opposite() Port {
	switch p {
	case North:
		return South
	case South:
		return North
	case East:
		return West
	case West:
		return East
	}
	return Local
}

// MaxDim bounds each mesh dimension so that offsets fit the head flit.
const MaxDim = 256

// Topology is what the network builder and the routers need to know about
// the geometry. Routers see only Route; everything else is for wiring the
// network and for analysis.
type Topology interface {
	Name() string
	Nodes() int
	// Neighbor is the node reached by leaving node n through port p, or
	// false if p leads off the edge.
	Neighbor(n int, p Port) (int, bool)
	// Offsets are the signed hop counts a head flit starts with.
	Offsets(src, dst int) (dx, dy int)
	// Route picks the output port for a head flit carrying (dx, dy) and
	// returns the offsets it carries onward.
	Route(dx, dy int) (Port, int, int)
	// Hops is the number of router-to-router links on the route.
	Hops(src, dst int) int
	// Label names node n for reports, e.g. "(2,3)".
	Label(n int) string
}

// Mesh is a W x H 2D mesh with dimension-order (X then Y) routing. Node id is
// y*W + x, so id % W is the column, as the SCMP examples assume. North is
// towards y-1 (row 0 is the top row).
type Mesh struct {
	W, H int
}

// New returns a W x H mesh, or an error naming the allowed range.
func New(w, h int) (Mesh, error) {
	if w < 1 || h < 1 || w > MaxDim || h > MaxDim {
		return Mesh{}, fmt.Errorf("mesh %dx%d: each dimension must be 1..%d", w, h, MaxDim)
	}
	return Mesh{W: w, H: h}, nil
}

func (m Mesh) Name() string { return fmt.Sprintf("mesh %dx%d", m.W, m.H) }
func (m Mesh) Nodes() int   { return m.W * m.H }

// XY returns the column and row of node n.
func (m Mesh) XY(n int) (x, y int) { return n % m.W, n / m.W }

// ID returns the node at column x, row y.
func (m Mesh) ID(x, y int) int { return y*m.W + x }

func (m Mesh) Label(n int) string {
	x, y := m.XY(n)
	return fmt.Sprintf("(%d,%d)", x, y)
}

func (m Mesh) Neighbor(n int, p Port) (int, bool) {
	x, y := m.XY(n)
	switch p {
	case North:
		y--
	case South:
		y++
	case East:
		x++
	case West:
		x--
	default:
		return 0, false
	}
	if x < 0 || y < 0 || x >= m.W || y >= m.H {
		return 0, false
	}
	return m.ID(x, y), true
}

func (m Mesh) Offsets(src, dst int) (dx, dy int) {
	sx, sy := m.XY(src)
	tx, ty := m.XY(dst)
	return tx - sx, ty - sy
}

func (m Mesh) Route(dx, dy int) (Port, int, int) { return RouteXY(dx, dy) }

func (m Mesh) Hops(src, dst int) int {
	dx, dy := m.Offsets(src, dst)
	return abs(dx) + abs(dy)
}

// RouteXY is SCMP's dimension-order routing on offsets alone: X until the X
// offset is zero, then Y, then the local port; the offset in the direction
// taken shrinks by one hop.
func RouteXY(dx, dy int) (Port, int, int) {
	switch {
	case dx > 0:
		return East, dx - 1, dy
	case dx < 0:
		return West, dx + 1, dy
	case dy > 0:
		return South, dx, dy - 1
	case dy < 0:
		return North, dx, dy + 1
	}
	return Local, 0, 0
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
