package mesh

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
)

// Pattern chooses destinations for synthetic traffic, as in BookSim.
type Pattern interface {
	Name() string
	// Dest draws a destination for a packet from src.
	Dest(src int, r *rand.Rand) int
	// Dist calls f for every destination of src with its probability; the
	// probabilities sum to 1. Analytic figures (zero-load latency, channel
	// load) are computed from it.
	Dist(src int, f func(dst int, p float64))
}

// PatternNames lists the accepted pattern names, for errors and docs.
var PatternNames = []string{"uniform", "transpose", "bitcomp", "bitrev", "shuffle", "tornado", "neighbor", "hotspot"}

// HotspotSpec configures the hotspot pattern: a fraction of all packets go
// to the hotspot nodes (uniformly among them); the rest are uniform random.
type HotspotSpec struct {
	Nodes    []int
	Fraction float64
}

// NewPattern builds the named pattern for mesh m, or explains why it cannot.
func NewPattern(name string, m Mesh, hs HotspotSpec) (Pattern, error) {
	n := m.Nodes()
	switch name {
	case "uniform":
		return uniform{n: n}, nil
	case "transpose":
		if m.W != m.H {
			return nil, fmt.Errorf("traffic %q needs a square mesh, got %dx%d", name, m.W, m.H)
		}
		return perm{name, func(s int) int { x, y := m.XY(s); return m.ID(y, x) }}, nil
	case "bitcomp":
		// Coordinate-wise complement: equal to the bitwise complement of the
		// node id when W and H are powers of two, and defined for any size.
		return perm{name, func(s int) int { x, y := m.XY(s); return m.ID(m.W-1-x, m.H-1-y) }}, nil
	case "bitrev":
		return bitPerm(name, n, func(s, b int) int { return int(bits.Reverse(uint(s)) >> (bits.UintSize - b)) })
	case "shuffle":
		return bitPerm(name, n, func(s, b int) int { return ((s << 1) | (s >> (b - 1))) & (n - 1) })
	case "tornado":
		return perm{name, func(s int) int {
			x, y := m.XY(s)
			return m.ID((x+(m.W+1)/2-1)%m.W, (y+(m.H+1)/2-1)%m.H)
		}}, nil
	case "neighbor":
		return perm{name, func(s int) int { x, y := m.XY(s); return m.ID((x+1)%m.W, (y+1)%m.H) }}, nil
	case "hotspot":
		if len(hs.Nodes) == 0 {
			return nil, fmt.Errorf("traffic %q needs at least one hotspot node (allowed: node ids 0..%d)", name, n-1)
		}
		for _, h := range hs.Nodes {
			if h < 0 || h >= n {
				return nil, fmt.Errorf("hotspot node %d out of range (allowed: 0..%d)", h, n-1)
			}
		}
		if !(hs.Fraction >= 0 && hs.Fraction <= 1) {
			return nil, fmt.Errorf("hotspot fraction %v out of range (allowed: 0..1)", hs.Fraction)
		}
		return hotspot{n: n, nodes: append([]int(nil), hs.Nodes...), frac: hs.Fraction}, nil
	}
	return nil, fmt.Errorf("unknown traffic pattern %q (allowed: %s)", name, strings.Join(PatternNames, ", "))
}

// bitPerm builds a pattern that permutes the log2(n) bits of the node id;
// n must be a power of two.
func bitPerm(name string, n int, fn func(s, b int) int) (Pattern, error) {
	if n&(n-1) != 0 {
		return nil, fmt.Errorf("traffic %q needs a power-of-two node count, got %d nodes", name, n)
	}
	b := bits.Len(uint(n)) - 1
	return perm{name, func(s int) int {
		if b == 0 {
			return s
		}
		return fn(s, b)
	}}, nil
}

// uniform sends to every node, the source included, with equal
// probability, as BookSim does; the channel-load bounds assume it.
type uniform struct{ n int }

func (u uniform) Name() string                 { return "uniform" }
func (u uniform) Dest(_ int, r *rand.Rand) int { return r.IntN(u.n) }
func (u uniform) Dist(_ int, f func(int, float64)) {
	p := 1 / float64(u.n)
	for d := 0; d < u.n; d++ {
		f(d, p)
	}
}

type perm struct {
	name string
	fn   func(int) int
}

func (p perm) Name() string                     { return p.name }
func (p perm) Dest(s int, _ *rand.Rand) int     { return p.fn(s) }
func (p perm) Dist(s int, f func(int, float64)) { f(p.fn(s), 1) }

type hotspot struct {
	n     int
	nodes []int
	frac  float64
}

func (h hotspot) Name() string { return "hotspot" }
func (h hotspot) Dest(_ int, r *rand.Rand) int {
	if r.Float64() < h.frac {
		return h.nodes[r.IntN(len(h.nodes))]
	}
	return r.IntN(h.n)
}
func (h hotspot) Dist(_ int, f func(int, float64)) {
	w := make([]float64, h.n)
	for d := range w {
		w[d] = (1 - h.frac) / float64(h.n)
	}
	for _, d := range h.nodes {
		w[d] += h.frac / float64(len(h.nodes))
	}
	for d, p := range w {
		f(d, p)
	}
}
