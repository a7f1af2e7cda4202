package logp_test

import (
	"fmt"
	"math"
	"math/bits"
	"testing"

	"nocsim/logp"
	"nocsim/logp/collgen"
	"nocsim/logp/loggops"
)

// TestMeshFormsHops: with latency only (o = g = 0), the broadcast's time
// is its deepest path: on a 2^a x 2^b mesh, popcount(x)+popcount(y)
// messages to the tile (x, y), over x+y hops; the far corner is both the
// deepest and the farthest, so a+b messages and W-1+H-1 hops.
func TestMeshFormsHops(t *testing.T) {
	for _, c := range []struct{ W, H int }{{4, 4}, {8, 4}, {16, 16}} {
		p := logp.Params{P: c.W * c.H, Mesh: fmt.Sprintf("%dx%d", c.W, c.H), Segments: []logp.Segment{{L: 10, Lh: 3}}}
		got, err := p.Predict("bcast", "mesh", c.W*c.H, 64)
		if err != nil {
			t.Fatal(err)
		}
		depth := bits.Len(uint(c.W-1)) + bits.Len(uint(c.H-1))
		want := float64(depth)*10 + float64(c.W-1+c.H-1)*3
		if got.Cycles != want {
			t.Errorf("%dx%d: %v cycles, want %v", c.W, c.H, got.Cycles, want)
		}
	}
}

// TestMeshFormsOnTierWithHops: the four mesh forms equal the LogGOPS tier
// on collgen's schedules with a per-hop latency, ranks on the mesh the
// forms assume (the machine's when they fit, else a square).
func TestMeshFormsOnTierWithHops(t *testing.T) {
	segs := []logp.Segment{
		{MaxBytes: 256, L: 20, Lh: 2, Os: 30, Or: 25, Gap: 40, G: 0.5},
		{L: 90, Lh: 5, Os: 50, Or: 45, Gap: 60, G: 0.5, O: 0.25},
	}
	for _, mesh := range []string{"", "5x4", "8x8"} {
		p := logp.Params{P: 64, Mesh: mesh, Segments: segs}
		for _, op := range []string{"barrier", "bcast", "reduce", "allreduce"} {
			for P := 2; P <= 40; P++ {
				W := p.MeshWidth(P)
				tier := loggops.Params{S: math.MaxUint64, Hops: func(a, b int) int {
					dx, dy := a%W-b%W, a/W-b/W
					return max(dx, -dx) + max(dy, -dy)
				}}
				for _, s := range segs {
					tier.Segments = append(tier.Segments, loggops.Segment{MaxBytes: uint64(s.MaxBytes), L: s.L, Lh: s.Lh, Os: s.Os, Or: s.Or, Gap: s.Gap, G: s.G, O: s.O})
				}
				opt := collgen.DefaultOptions()
				opt.FlopCycles, opt.MeshW = 0, W
				ms := []int{8, 1000}
				if op == "allreduce" {
					ms = append(ms, 4096, 8200) // the long form: row reduce-scatter, column allreduce, row allgather
				}
				for _, m := range ms {
					x, err := p.Predict(op, "mesh", P, m)
					if err != nil {
						t.Fatal(err)
					}
					s, err := collgen.Generate(op, "mesh", P, int64(m), opt)
					if err != nil {
						t.Fatal(err)
					}
					res, err := loggops.Simulate(s, tier, loggops.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if math.Abs(x.Cycles-res.Max) > 1e-9*res.Max {
						t.Errorf("%s mesh %q P=%d m=%d: closed form %v, tier %v", op, mesh, P, m, x.Cycles, res.Max)
					}
				}
			}
		}
	}
}

func TestMeshWidth(t *testing.T) {
	for _, c := range []struct {
		mesh string
		P, W int
	}{{"", 1, 1}, {"", 2, 2}, {"", 4, 2}, {"", 5, 3}, {"", 4096, 64}, {"", 4097, 65}, {"8x2", 16, 8}, {"8x2", 17, 5}, {"bad", 9, 3}} {
		if got := (logp.Params{Mesh: c.mesh}).MeshWidth(c.P); got != c.W {
			t.Errorf("mesh %q P=%d: width %d, want %d", c.mesh, c.P, got, c.W)
		}
	}
}
