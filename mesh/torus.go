package mesh

import "fmt"

// MaxTorusDim bounds each torus dimension so that a dimension's state fits
// one 16-bit head offset: its signed hop count (at most k/2 = 127 either
// way) in the low byte and its dateline countdown (at most 127, or -1 once
// crossed) in the high byte, each a signed byte.
const MaxTorusDim = 255

// Torus is a W x H 2D torus: the mesh's tiles and numbering (id = y*W + x,
// North towards y-1, South towards y+1), with each row closed into a ring
// by the East link W-1 -> 0 and each column by the South link H-1 -> 0.
// It routes in dimension order, X then Y, each dimension the shorter way
// round; a tie (k even, k/2 hops either way) goes East in X and South in Y,
// as the ring's ties go East.
//
// Each row and each column is a ring, and a wormhole ring deadlocks when
// every buffer round it waits for the next, so every ring has a dateline,
// as Ring's: the links from x = W-1 to 0 (East) and 0 to W-1 (West) in
// each row, and from y = H-1 to 0 (South) and 0 to H-1 (North) in each
// column. A packet takes class-0 VCs in a dimension until it crosses that
// dimension's dateline and class-1 VCs on that link and after; when it
// turns from X into Y its class restarts from Y's dateline (class 0 until
// it crosses it). Deadlock freedom: a packet never waits for an X channel
// while holding a Y channel (dimension order), so no cycle of dependencies
// spans both dimensions; within one ring the dateline argument of Ring
// holds (class-0 channels never close the ring, no route crosses a
// dateline twice, class 0 only waits for class 1). Ejection takes any VC.
//
// Head offsets: routers do not know where they are, so each offset carries
// one dimension's whole state: DX for X, DY for Y, each the signed hop
// count left in that dimension (positive East or South) in its low byte
// and the dateline countdown in its high byte (as Ring's DY: 1 = the next
// link is the dateline, 0 = the route does not cross it, -1 = crossed).
// A dimension whose hops are done reads 0, so a head arrives with offsets
// (0, 0) as on a mesh.
type Torus struct {
	W, H int
}

// NewTorus returns a W x H torus, or an error naming the allowed range.
func NewTorus(w, h int) (Torus, error) {
	if w < 1 || h < 1 || w > MaxTorusDim || h > MaxTorusDim {
		return Torus{}, fmt.Errorf("torus %dx%d: each dimension must be 1..%d (MaxTorusDim: a dimension's hops and dateline countdown share one 16-bit head offset)", w, h, MaxTorusDim)
	}
	return Torus{W: w, H: h}, nil
}

func (t Torus) Name() string { return fmt.Sprintf("torus %dx%d", t.W, t.H) }
func (t Torus) Nodes() int   { return t.W * t.H }

// Grid is the mesh with the torus's tiles and numbering: the traffic
// patterns and anything else that works on coordinates use it.
func (t Torus) Grid() Mesh { return Mesh{W: t.W, H: t.H} }

// XY returns the column and row of node n.
func (t Torus) XY(n int) (x, y int) { return n % t.W, n / t.W }

// ID returns the node at column x, row y.
func (t Torus) ID(x, y int) int { return y*t.W + x }

func (t Torus) Label(n int) string { return t.Grid().Label(n) }

// Neighbor wraps round in both dimensions; a dimension of size 1 has no
// links. In a dimension of size 2 the two links of a node lead to the same
// neighbour, as on a ring of 2.
func (t Torus) Neighbor(n int, p Port) (int, bool) {
	if n < 0 || n >= t.Nodes() {
		return 0, false
	}
	x, y := t.XY(n)
	switch {
	case (p == East || p == West) && t.W > 1:
		x = wrapStep(x, t.W, p == East)
	case (p == North || p == South) && t.H > 1:
		y = wrapStep(y, t.H, p == South)
	default:
		return 0, false
	}
	return t.ID(x, y), true
}

// wrapStep moves one step round a ring of k: up (+1) or down (-1).
func wrapStep(i, k int, up bool) int {
	if up {
		return (i + 1) % k
	}
	return (i - 1 + k) % k
}

func (t Torus) Offsets(src, dst int) (dx, dy int) {
	sx, sy := t.XY(src)
	tx, ty := t.XY(dst)
	return packDim(ringLeg(sx, tx, t.W)), packDim(ringLeg(sy, ty, t.H))
}

// ringLeg is one dimension's route round a ring of k from s to d: the
// signed hops (positive up, a tie going up) and the dateline countdown, 0
// when the leg does not cross it (as Ring.Offsets).
func ringLeg(s, d, k int) (hops, countdown int) {
	fwd := ((d-s)%k + k) % k
	if fwd <= k-fwd {
		// Up: the dateline link k-1 -> 0 is the (k-s)-th link.
		if s+fwd >= k {
			countdown = k - s
		}
		return fwd, countdown
	}
	// Down: the dateline link 0 -> k-1 is the (s+1)-th link.
	h := k - fwd
	if h > s {
		countdown = s + 1
	}
	return -h, countdown
}

// packDim puts a dimension's hops in the low byte of an offset and its
// dateline countdown in the high byte, so that the offset is a 16-bit
// signed value as the head flit stores it.
func packDim(hops, countdown int) int {
	return int(int16(uint16(uint8(int8(hops))) | uint16(uint8(int8(countdown)))<<8))
}

// unpackDim is packDim's inverse.
func unpackDim(v int) (hops, countdown int) {
	return int(int8(uint8(v))), int(int8(uint8(v >> 8)))
}

func (t Torus) Route(dx, dy int) (Port, int, int) {
	p, ndx, ndy, _ := t.RouteClass(dx, dy)
	return p, ndx, ndy
}

// RouteClass routes X first, then Y, then Local; the class is that of the
// dimension being travelled (see Torus).
func (t Torus) RouteClass(dx, dy int) (Port, int, int, int) {
	if h, c := unpackDim(dx); h != 0 {
		p := East
		if h < 0 {
			p = West
		}
		h, c, class := legStep(h, c)
		return p, packDim(h, c), dy, class
	}
	if h, c := unpackDim(dy); h != 0 {
		p := South
		if h < 0 {
			p = North
		}
		h, c, class := legStep(h, c)
		return p, 0, packDim(h, c), class
	}
	return Local, 0, 0, -1
}

// legStep takes one hop of a dimension's leg: the hops left shrink by one,
// the countdown runs down to the dateline link (class 1 on it and after,
// class 0 before). A finished leg reads (0, 0), so that the next dimension
// starts its own classes and a head arrives with zero offsets.
func legStep(h, c int) (nh, nc, class int) {
	if h > 0 {
		h--
	} else {
		h++
	}
	switch {
	case c == 1 || c < 0:
		c, class = -1, 1
	case c > 1:
		c--
	}
	if h == 0 {
		c = 0
	}
	return h, c, class
}

func (t Torus) Hops(src, dst int) int {
	sx, sy := t.XY(src)
	tx, ty := t.XY(dst)
	hx, _ := ringLeg(sx, tx, t.W)
	hy, _ := ringLeg(sy, ty, t.H)
	return abs(hx) + abs(hy)
}
