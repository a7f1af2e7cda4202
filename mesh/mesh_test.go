package mesh

import (
	"fmt"
	"strings"
	"testing"
)

var testSizes = [][2]int{{1, 1}, {1, 7}, {7, 1}, {2, 2}, {5, 3}, {3, 5}, {8, 8}, {4, 16}}

func mustMesh(t testing.TB, w, h int) Mesh {
	t.Helper()
	m, err := New(w, h)
	if err != nil {
		t.Fatalf("New(%d, %d): %v", w, h, err)
	}
	return m
}

func TestNewRejectsOutOfRange(t *testing.T) {
	rangeText := fmt.Sprintf("1..%d", MaxDim)
	for _, d := range [][2]int{{0, 4}, {4, 0}, {0, 0}, {-1, 3}, {3, -8}, {MaxDim + 1, 1}, {1, MaxDim + 1}, {1000, 1000}} {
		m, err := New(d[0], d[1])
		if err == nil {
			t.Errorf("New(%d, %d) = %+v, want an error", d[0], d[1], m)
			continue
		}
		if !strings.Contains(err.Error(), rangeText) {
			t.Errorf("New(%d, %d) error %q does not name the allowed range %s", d[0], d[1], err, rangeText)
		}
	}
	for _, d := range [][2]int{{1, 1}, {MaxDim, MaxDim}, {1, MaxDim}, {MaxDim, 1}, {5, 3}} {
		m, err := New(d[0], d[1])
		if err != nil {
			t.Errorf("New(%d, %d): unexpected error %v", d[0], d[1], err)
			continue
		}
		if m.W != d[0] || m.H != d[1] || m.Nodes() != d[0]*d[1] {
			t.Errorf("New(%d, %d) = %+v with %d nodes", d[0], d[1], m, m.Nodes())
		}
	}
}

func TestNodeIDLayout(t *testing.T) {
	for _, sz := range testSizes {
		m := mustMesh(t, sz[0], sz[1])
		seen := make([]bool, m.Nodes())
		for y := range m.H {
			for x := range m.W {
				id := m.ID(x, y)
				if id != y*m.W+x {
					t.Fatalf("%s: ID(%d,%d) = %d, want %d", m.Name(), x, y, id, y*m.W+x)
				}
				if id < 0 || id >= m.Nodes() || seen[id] {
					t.Fatalf("%s: ID(%d,%d) = %d out of range or repeated", m.Name(), x, y, id)
				}
				seen[id] = true
				if gx, gy := m.XY(id); gx != x || gy != y {
					t.Fatalf("%s: XY(ID(%d,%d)) = (%d,%d)", m.Name(), x, y, gx, gy)
				}
				if l := m.Label(id); l != fmt.Sprintf("(%d,%d)", x, y) {
					t.Fatalf("%s: Label(%d) = %q", m.Name(), id, l)
				}
			}
		}
	}
}

func TestPortOppositeAndString(t *testing.T) {
	want := map[Port]Port{North: South, South: North, East: West, West: East, Local: Local}
	names := map[string]bool{}
	for p := Local; p < NumPorts; p++ {
		if p.Opposite() != want[p] || p.Opposite().Opposite() != p {
			t.Errorf("%v.Opposite() = %v, want %v", p, p.Opposite(), want[p])
		}
		if names[p.String()] {
			t.Errorf("port name %q repeated", p.String())
		}
		names[p.String()] = true
	}
	if s := Port(9).String(); s != "port9" {
		t.Errorf("Port(9).String() = %q", s)
	}
}

func TestNeighbor(t *testing.T) {
	step := map[Port][2]int{North: {0, -1}, South: {0, 1}, East: {1, 0}, West: {-1, 0}}
	for _, sz := range testSizes {
		m := mustMesh(t, sz[0], sz[1])
		for n := range m.Nodes() {
			x, y := m.XY(n)
			if _, ok := m.Neighbor(n, Local); ok {
				t.Fatalf("%s: Neighbor(%d, Local) reported a node", m.Name(), n)
			}
			for p, d := range step {
				nx, ny := x+d[0], y+d[1]
				inside := nx >= 0 && ny >= 0 && nx < m.W && ny < m.H
				got, ok := m.Neighbor(n, p)
				if ok != inside {
					t.Fatalf("%s: Neighbor(%s, %v) ok=%v, want %v", m.Name(), m.Label(n), p, ok, inside)
				}
				if !ok {
					continue
				}
				if gx, gy := m.XY(got); gx != nx || gy != ny {
					t.Fatalf("%s: Neighbor(%s, %v) = %s, want (%d,%d)", m.Name(), m.Label(n), p, m.Label(got), nx, ny)
				}
				back, ok := m.Neighbor(got, p.Opposite())
				if !ok || back != n {
					t.Fatalf("%s: %s -%v-> %s -%v-> %d,%v; want back at %d", m.Name(), m.Label(n), p, m.Label(got), p.Opposite(), back, ok, n)
				}
			}
		}
	}
}

// walkXY follows the routing function from src and checks, independently of
// RouteXY, that it is a minimal X-then-Y path ending at the Local port of
// dst. It returns a description of the first violation, or "".
func walkXY(m Mesh, src, dst int) string {
	var topo Topology = m
	dx, dy := topo.Offsets(src, dst)
	sx, sy := m.XY(src)
	tx, ty := m.XY(dst)
	if dx != tx-sx || dy != ty-sy {
		return fmt.Sprintf("Offsets(%d,%d) = (%d,%d)", src, dst, dx, dy)
	}
	hops := topo.Hops(src, dst)
	if want := absInt(tx-sx) + absInt(ty-sy); hops != want {
		return fmt.Sprintf("Hops(%d,%d) = %d, want %d", src, dst, hops, want)
	}
	at, steps, inY := src, 0, false
	for {
		p, ndx, ndy := topo.Route(dx, dy)
		if p == Local {
			if ndx != 0 || ndy != 0 {
				return fmt.Sprintf("Local with offsets (%d,%d) left", ndx, ndy)
			}
			break
		}
		switch p {
		case East, West:
			if inY {
				return fmt.Sprintf("X move %v after a Y move (step %d)", p, steps)
			}
		case North, South:
			inY = true
		default:
			return fmt.Sprintf("bad port %v", p)
		}
		next, ok := m.Neighbor(at, p)
		if !ok {
			return fmt.Sprintf("routed off the edge at %s through %v", m.Label(at), p)
		}
		// The offsets must shrink by exactly the hop taken.
		ax, ay := m.XY(at)
		bx, by := m.XY(next)
		if ndx != dx-(bx-ax) || ndy != dy-(by-ay) {
			return fmt.Sprintf("offsets (%d,%d) -> (%d,%d) after moving %v", dx, dy, ndx, ndy, p)
		}
		at, dx, dy = next, ndx, ndy
		steps++
		if steps > m.W+m.H {
			return "route does not terminate"
		}
	}
	if at != dst {
		return fmt.Sprintf("ended at %s, want %s", m.Label(at), m.Label(dst))
	}
	if steps != hops {
		return fmt.Sprintf("took %d steps, Hops says %d", steps, hops)
	}
	return ""
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func TestRouteXYWalkAllPairs(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {1, 9}, {9, 1}, {5, 3}, {3, 5}, {8, 8}, {2, 7}} {
		m := mustMesh(t, sz[0], sz[1])
		for src := range m.Nodes() {
			for dst := range m.Nodes() {
				if msg := walkXY(m, src, dst); msg != "" {
					t.Fatalf("%s %s->%s: %s", m.Name(), m.Label(src), m.Label(dst), msg)
				}
			}
		}
	}
}

func TestRouteXYPortSequence(t *testing.T) {
	// Explicit examples on a 5x3 mesh: X first, then Y, then Local.
	m := mustMesh(t, 5, 3)
	for _, tc := range []struct {
		from, to [2]int
		want     string
	}{
		{[2]int{0, 0}, [2]int{4, 2}, "EEEESSL"},
		{[2]int{4, 2}, [2]int{0, 0}, "WWWWNNL"},
		{[2]int{2, 1}, [2]int{2, 1}, "L"},
		{[2]int{1, 2}, [2]int{3, 0}, "EENNL"},
		{[2]int{3, 0}, [2]int{3, 2}, "SSL"},
	} {
		dx, dy := m.Offsets(m.ID(tc.from[0], tc.from[1]), m.ID(tc.to[0], tc.to[1]))
		var got strings.Builder
		for {
			p, ndx, ndy := RouteXY(dx, dy)
			got.WriteString(p.String())
			if p == Local || got.Len() > 20 {
				break
			}
			dx, dy = ndx, ndy
		}
		if got.String() != tc.want {
			t.Errorf("%v->%v: ports %s, want %s", tc.from, tc.to, got.String(), tc.want)
		}
	}
}

func FuzzRouteXY(f *testing.F) {
	f.Add(8, 8, 0, 63)
	f.Add(5, 3, 14, 0)
	f.Add(1, 256, 255, 0)
	f.Add(256, 1, 0, 255)
	f.Add(256, 256, 65535, 0)
	f.Add(-3, 0, -7, 1<<40)
	f.Fuzz(func(t *testing.T, w, h, src, dst int) {
		// Map arbitrary inputs into range (no abs: it overflows on MinInt).
		w = int(uint(w)%MaxDim) + 1
		h = int(uint(h)%MaxDim) + 1
		m := mustMesh(t, w, h)
		n := uint(m.Nodes())
		src, dst = int(uint(src)%n), int(uint(dst)%n)
		if msg := walkXY(m, src, dst); msg != "" {
			t.Fatalf("%s %s->%s: %s", m.Name(), m.Label(src), m.Label(dst), msg)
		}
	})
}
