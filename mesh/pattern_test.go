package mesh

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

var patternMeshes = [][2]int{{8, 8}, {4, 4}, {16, 16}, {5, 3}, {2, 8}, {1, 1}}

func isPow2(n int) bool { return n > 0 && n&(n-1) == 0 }

// log2 of a power of two, by counting.
func log2(n int) int {
	b := 0
	for 1<<b < n {
		b++
	}
	return b
}

// allowed says, independently of NewPattern, whether a pattern is defined
// on mesh m.
func allowed(name string, m Mesh) bool {
	switch name {
	case "transpose":
		return m.W == m.H
	case "bitrev", "shuffle":
		return isPow2(m.Nodes())
	}
	return true
}

func testSpec(m Mesh) HotspotSpec {
	n := m.Nodes()
	return HotspotSpec{Nodes: []int{0, n / 2, n - 1}, Fraction: 0.3}
}

func dist(p Pattern, src int) map[int]float64 {
	d := map[int]float64{}
	p.Dist(src, func(dst int, pr float64) { d[dst] += pr })
	return d
}

func TestPatternsDistAndDest(t *testing.T) {
	for _, sz := range patternMeshes {
		m := mustMesh(t, sz[0], sz[1])
		for _, name := range PatternNames {
			p, err := NewPattern(name, m, testSpec(m))
			if ok := allowed(name, m); !ok {
				if err == nil {
					t.Errorf("%s on %s: no error, want one", name, m.Name())
				}
				continue
			} else if err != nil {
				t.Errorf("%s on %s: %v", name, m.Name(), err)
				continue
			}
			if p.Name() != name {
				t.Errorf("pattern %q has Name %q", name, p.Name())
			}
			r := rand.New(rand.NewPCG(5, uint64(m.Nodes())))
			for src := range m.Nodes() {
				sum := 0.0
				p.Dist(src, func(dst int, pr float64) {
					if dst < 0 || dst >= m.Nodes() {
						t.Fatalf("%s on %s: Dist(%d) gives dst %d out of range", name, m.Name(), src, dst)
					}
					if pr < 0 || pr > 1 || math.IsNaN(pr) {
						t.Fatalf("%s on %s: Dist(%d) gives p(%d) = %v", name, m.Name(), src, dst, pr)
					}
					sum += pr
				})
				if math.Abs(sum-1) > 1e-12 {
					t.Fatalf("%s on %s: Dist(%d) sums to %.17g", name, m.Name(), src, sum)
				}
				d := dist(p, src)
				for range 50 {
					dst := p.Dest(src, r)
					if d[dst] <= 0 {
						t.Fatalf("%s on %s: Dest(%d) = %d, which Dist gives probability %v", name, m.Name(), src, dst, d[dst])
					}
				}
			}
		}
	}
}

// ---- permutations, against independent computations ------------------------

func reverseBits(v, b int) int {
	r := 0
	for i := range b {
		if v&(1<<i) != 0 {
			r |= 1 << (b - 1 - i)
		}
	}
	return r
}

func rotateLeft1(v, b int) int {
	if b == 0 {
		return v
	}
	bitsOf := make([]int, b) // bitsOf[i] is bit i
	for i := range b {
		bitsOf[i] = (v >> i) & 1
	}
	r := 0
	for i := range b {
		// bit i moves to i+1; the top bit wraps to 0
		r |= bitsOf[i] << ((i + 1) % b)
	}
	return r
}

func TestBitHelpers(t *testing.T) {
	// Sanity of the test's own references on hand-checked values.
	for _, tc := range []struct{ v, b, rev, rot int }{
		{0b0001, 4, 0b1000, 0b0010},
		{0b1000, 4, 0b0001, 0b0001},
		{0b1101, 4, 0b1011, 0b1011},
		{0b110, 3, 0b011, 0b101},
		{0, 0, 0, 0},
	} {
		if got := reverseBits(tc.v, tc.b); got != tc.rev {
			t.Errorf("reverseBits(%b,%d) = %b, want %b", tc.v, tc.b, got, tc.rev)
		}
		if got := rotateLeft1(tc.v, tc.b); got != tc.rot {
			t.Errorf("rotateLeft1(%b,%d) = %b, want %b", tc.v, tc.b, got, tc.rot)
		}
	}
}

var permutationPatterns = []string{"transpose", "bitcomp", "bitrev", "shuffle", "tornado", "neighbor"}

func TestPermutationPatterns(t *testing.T) {
	for _, sz := range patternMeshes {
		m := mustMesh(t, sz[0], sz[1])
		n := m.Nodes()
		for _, name := range permutationPatterns {
			if !allowed(name, m) {
				continue
			}
			p, err := NewPattern(name, m, HotspotSpec{})
			if err != nil {
				t.Fatalf("%s on %s: %v", name, m.Name(), err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			hit := make([]int, n)
			for src := range n {
				dst := p.Dest(src, r)
				if dst < 0 || dst >= n {
					t.Fatalf("%s on %s: Dest(%d) = %d out of range", name, m.Name(), src, dst)
				}
				hit[dst]++
				// Deterministic, and Dist is the single point mass.
				if again := p.Dest(src, r); again != dst {
					t.Fatalf("%s on %s: Dest(%d) gave %d then %d", name, m.Name(), src, dst, again)
				}
				if d := dist(p, src); len(d) != 1 || d[dst] != 1 {
					t.Fatalf("%s on %s: Dist(%d) = %v, want {%d: 1}", name, m.Name(), src, d, dst)
				}
				x, y := m.XY(src)
				want := -1
				switch name {
				case "transpose":
					want = m.ID(y, x)
				case "bitcomp":
					want = m.ID(m.W-1-x, m.H-1-y)
					if isPow2(m.W) && isPow2(m.H) {
						if c := (^src) & (n - 1); c != dst {
							t.Fatalf("bitcomp on %s: %d -> %d, want ^id&(N-1) = %d", m.Name(), src, dst, c)
						}
					}
				case "bitrev":
					want = reverseBits(src, log2(n))
				case "shuffle":
					want = rotateLeft1(src, log2(n))
				case "neighbor":
					want = m.ID((x+1)%m.W, (y+1)%m.H)
				case "tornado":
					if m.W == 8 && m.H == 8 {
						want = m.ID((x+3)%8, (y+3)%8)
					}
				}
				if want >= 0 && dst != want {
					t.Fatalf("%s on %s: %s (id %d) -> %s (id %d), want %s (id %d)", name, m.Name(), m.Label(src), src, m.Label(dst), dst, m.Label(want), want)
				}
			}
			for dst, c := range hit {
				if c != 1 {
					t.Fatalf("%s on %s is not a permutation: node %d is the destination of %d sources", name, m.Name(), dst, c)
				}
			}
		}
	}
}

// ---- random patterns: sampled frequencies against Dist ------------------------

// chiSquare draws samples from Dest(src) and compares them with Dist(src).
func chiSquare(t *testing.T, p Pattern, n, src, draws int, seed uint64) {
	t.Helper()
	d := dist(p, src)
	counts := make([]int, n)
	r := rand.New(rand.NewPCG(seed, 17))
	for range draws {
		counts[p.Dest(src, r)]++
	}
	chi, bins := 0.0, 0
	for dst := range n {
		exp := d[dst] * float64(draws)
		if exp == 0 {
			if counts[dst] != 0 {
				t.Fatalf("%s: %d draws of %d which has probability 0", p.Name(), counts[dst], dst)
			}
			continue
		}
		bins++
		diff := float64(counts[dst]) - exp
		chi += diff * diff / exp
	}
	df := float64(bins - 1)
	// Mean df, sd sqrt(2 df); 5 sd is far beyond chance but far below the
	// value a wrong distribution gives with this many draws.
	if limit := df + 5*math.Sqrt(2*df); chi > limit {
		t.Fatalf("%s from %d: chi-square %.1f over %d bins exceeds %.1f", p.Name(), src, chi, bins, limit)
	}
}

func TestUniformMatchesDist(t *testing.T) {
	for _, sz := range [][2]int{{8, 8}, {5, 3}, {16, 16}} {
		m := mustMesh(t, sz[0], sz[1])
		p, err := NewPattern("uniform", m, HotspotSpec{})
		if err != nil {
			t.Fatal(err)
		}
		n := m.Nodes()
		// Dist, independently: every node, the source included, 1/n.
		d := dist(p, 3%n)
		if len(d) != n {
			t.Fatalf("uniform on %s: Dist covers %d nodes, want %d", m.Name(), len(d), n)
		}
		for dst, pr := range d {
			if math.Abs(pr-1/float64(n)) > 1e-15 {
				t.Fatalf("uniform on %s: p(%d) = %v", m.Name(), dst, pr)
			}
		}
		chiSquare(t, p, n, 3%n, 400*n, 1)
	}
}

func TestHotspotMatchesDist(t *testing.T) {
	for _, tc := range []struct {
		w, h  int
		nodes []int
		frac  float64
	}{
		{8, 8, []int{9}, 0.5},
		{8, 8, []int{3, 10, 63}, 0.2},
		{5, 3, []int{0, 14}, 0.7},
		{4, 4, []int{5, 5, 6}, 0.4}, // a repeated node counts twice
		{4, 4, []int{1, 2}, 0},
		{4, 4, []int{1, 2}, 1},
	} {
		t.Run(fmt.Sprintf("%dx%d %v %v", tc.w, tc.h, tc.nodes, tc.frac), func(t *testing.T) {
			m := mustMesh(t, tc.w, tc.h)
			n := m.Nodes()
			p, err := NewPattern("hotspot", m, HotspotSpec{Nodes: tc.nodes, Fraction: tc.frac})
			if err != nil {
				t.Fatal(err)
			}
			// Independent expectation.
			want := make([]float64, n)
			for i := range want {
				want[i] = (1 - tc.frac) / float64(n)
			}
			for _, h := range tc.nodes {
				want[h] += tc.frac / float64(len(tc.nodes))
			}
			for _, src := range []int{0, n - 1} {
				d := dist(p, src)
				for dst := range n {
					if math.Abs(d[dst]-want[dst]) > 1e-12 {
						t.Fatalf("Dist(%d): p(%d) = %v, want %v", src, dst, d[dst], want[dst])
					}
				}
				chiSquare(t, p, n, src, 500*n, uint64(src)+1)
			}
		})
	}
}

func TestHotspotFractionOneOnlyHotspots(t *testing.T) {
	m := mustMesh(t, 8, 8)
	hot := map[int]bool{7: true, 36: true, 50: true}
	p, err := NewPattern("hotspot", m, HotspotSpec{Nodes: []int{7, 36, 50}, Fraction: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 9))
	seen := map[int]int{}
	for i := range 30000 {
		dst := p.Dest(i%m.Nodes(), r)
		if !hot[dst] {
			t.Fatalf("fraction 1 sent to non-hotspot node %d", dst)
		}
		seen[dst]++
	}
	for h := range hot {
		if seen[h] < 9000 {
			t.Errorf("hotspot %d got %d of 30000 draws, want about 10000", h, seen[h])
		}
	}
	for dst, pr := range dist(p, 0) {
		if !hot[dst] && pr != 0 {
			t.Errorf("Dist gives non-hotspot %d probability %v", dst, pr)
		}
	}
}

// ---- errors ------------------------------------------------------------------

func TestPatternErrors(t *testing.T) {
	m8 := mustMesh(t, 8, 8)
	m53 := mustMesh(t, 5, 3)
	m24 := mustMesh(t, 2, 4)
	m36 := mustMesh(t, 3, 6)
	for _, tc := range []struct {
		name string
		m    Mesh
		hs   HotspotSpec
		want []string // all must appear in the error
	}{
		{"transpose", m53, HotspotSpec{}, []string{"transpose", "square", "5x3"}},
		{"transpose", m24, HotspotSpec{}, []string{"transpose", "square", "2x4"}},
		{"bitrev", m53, HotspotSpec{}, []string{"bitrev", "power-of-two", "15"}},
		{"shuffle", m53, HotspotSpec{}, []string{"shuffle", "power-of-two", "15"}},
		{"bitrev", m36, HotspotSpec{}, []string{"bitrev", "power-of-two", "18"}},
		{"shuffle", m36, HotspotSpec{}, []string{"shuffle", "power-of-two", "18"}},
		{"hotspot", m8, HotspotSpec{Fraction: 0.5}, []string{"hotspot", "at least one", "0..63"}},
		{"hotspot", m8, HotspotSpec{Nodes: []int{3, 64}, Fraction: 0.5}, []string{"hotspot node 64", "out of range", "0..63"}},
		{"hotspot", m8, HotspotSpec{Nodes: []int{-1}, Fraction: 0.5}, []string{"hotspot node -1", "out of range"}},
		{"hotspot", m53, HotspotSpec{Nodes: []int{15}, Fraction: 0.5}, []string{"hotspot node 15", "0..14"}},
		{"hotspot", m8, HotspotSpec{Nodes: []int{3}, Fraction: -0.1}, []string{"fraction", "-0.1", "0..1"}},
		{"hotspot", m8, HotspotSpec{Nodes: []int{3}, Fraction: 1.5}, []string{"fraction", "1.5", "0..1"}},
		{"hotspot", m8, HotspotSpec{Nodes: []int{3}, Fraction: math.NaN()}, []string{"fraction", "NaN"}},
		{"hotspot", m8, HotspotSpec{Nodes: []int{3}, Fraction: math.Inf(1)}, []string{"fraction"}},
		{"nosuch", m8, HotspotSpec{}, append([]string{`"nosuch"`}, PatternNames...)},
		{"", m8, HotspotSpec{}, append([]string{"unknown"}, PatternNames...)},
		{"Uniform", m8, HotspotSpec{}, append([]string{"unknown"}, PatternNames...)},
	} {
		p, err := NewPattern(tc.name, tc.m, tc.hs)
		if err == nil {
			t.Errorf("NewPattern(%q, %s, %+v) = %v, want an error", tc.name, tc.m.Name(), tc.hs, p)
			continue
		}
		if p != nil {
			t.Errorf("NewPattern(%q, %s) returned a pattern with the error", tc.name, tc.m.Name())
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("NewPattern(%q, %s, %+v) error %q does not mention %q", tc.name, tc.m.Name(), tc.hs, err, w)
			}
		}
	}
	// The boundary values are accepted.
	for _, f := range []float64{0, 1} {
		if _, err := NewPattern("hotspot", m8, HotspotSpec{Nodes: []int{0, 63}, Fraction: f}); err != nil {
			t.Errorf("hotspot fraction %v: %v", f, err)
		}
	}
}

// The hotspot pattern keeps its own copy of the node list.
func TestHotspotCopiesNodes(t *testing.T) {
	m := mustMesh(t, 4, 4)
	nodes := []int{5}
	p, err := NewPattern("hotspot", m, HotspotSpec{Nodes: nodes, Fraction: 1})
	if err != nil {
		t.Fatal(err)
	}
	nodes[0] = 99 // would be out of range
	r := rand.New(rand.NewPCG(1, 1))
	for range 100 {
		if d := p.Dest(0, r); d != 5 {
			t.Fatalf("Dest = %d after the caller changed its slice, want 5", d)
		}
	}
}
