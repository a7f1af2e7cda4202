package mesh

import "fmt"

// MaxRingNodes bounds a ring so that its signed hop counts fit the head
// flit's 16-bit offsets.
const MaxRingNodes = 1 << 15

// ClassRouter is a topology whose routing needs virtual-channel classes to
// be free of deadlock. RouteClass is Route plus the class of the output
// link taken: 0 for the lower half of the output port's VCs, 1 for the
// upper half, -1 for any VC (ejection). A router asserts it once, when it
// is built, so that a topology without classes pays nothing per head.
type ClassRouter interface {
	RouteClass(dx, dy int) (p Port, ndx, ndy, class int)
}

// Ring is N nodes chained in a ring, node i linked to i+1 (East) and to
// i-1 (West), with N-1 East of 0 closing it. A bidirectional ring routes
// each packet the shorter way round, a tie going East; a unidirectional
// ring (Uni) always goes East and uses only the East links.
//
// A wormhole ring deadlocks when every buffer round it holds a packet
// waiting for the next, so it routes with a dateline: the links N-1 -> 0
// (East) and 0 -> N-1 (West). A packet travels on class-0 VCs until it
// crosses the dateline and on class-1 VCs from that link on. The class-0
// channels then form no cycle (the dateline link is never class 0), nor do
// the class-1 ones (no route crosses the dateline twice), and class 0 only
// ever waits for class 1: the channel dependency graph is acyclic (Dally
// and Seitz).
//
// Head offsets carry what the routers need, since they do not know where
// they are: DX is the signed hop count left (positive East), DY the hops
// until the dateline link is taken (1 = the next link is it), 0 when the
// route does not cross it and -1 once it has.
type Ring struct {
	N   int
	Uni bool
}

// NewRing returns a ring of n nodes, or an error naming the allowed range.
func NewRing(n int, uni bool) (Ring, error) {
	if n < 1 || n > MaxRingNodes {
		return Ring{}, fmt.Errorf("ring of %d nodes: allowed 1..%d", n, MaxRingNodes)
	}
	return Ring{N: n, Uni: uni}, nil
}

func (r Ring) Name() string {
	if r.Uni {
		return fmt.Sprintf("ring_uni %d", r.N)
	}
	return fmt.Sprintf("ring %d", r.N)
}

func (r Ring) Nodes() int            { return r.N }
func (r Ring) Label(n int) string    { return fmt.Sprintf("(%d)", n) }
func (r Ring) Hops(src, dst int) int { dx, _ := r.Offsets(src, dst); return abs(dx) }

// Neighbor wraps round; a one-node ring has no links, and a
// unidirectional ring has no West links.
func (r Ring) Neighbor(n int, p Port) (int, bool) {
	if r.N < 2 || n < 0 || n >= r.N {
		return 0, false
	}
	switch {
	case p == East:
		return (n + 1) % r.N, true
	case p == West && !r.Uni:
		return (n - 1 + r.N) % r.N, true
	}
	return 0, false
}

func (r Ring) Offsets(src, dst int) (dx, dy int) {
	d := ((dst-src)%r.N + r.N) % r.N
	if r.Uni || d <= r.N-d {
		// East: the dateline link N-1 -> 0 is the (N-src)-th link.
		if src+d >= r.N {
			dy = r.N - src
		}
		return d, dy
	}
	// West: the dateline link 0 -> N-1 is the (src+1)-th link.
	h := r.N - d
	if h > src {
		dy = src + 1
	}
	return -h, dy
}

func (r Ring) Route(dx, dy int) (Port, int, int) {
	p, ndx, ndy, _ := r.RouteClass(dx, dy)
	return p, ndx, ndy
}

func (r Ring) RouteClass(dx, dy int) (Port, int, int, int) {
	p := East
	switch {
	case dx == 0:
		return Local, 0, 0, -1
	case dx > 0:
		dx--
	default:
		p = West
		dx++
	}
	switch {
	case dy == 1 || dy < 0:
		return p, dx, -1, 1
	case dy > 1:
		return p, dx, dy - 1, 0
	}
	return p, dx, 0, 0
}
