package loggops

import (
	"math/rand/v2"
	"slices"
	"testing"

	"nocsim/logp/goal"
)

type pattern struct {
	name string
	make func(P int, bytes uint64, perm []int) *goal.Schedule
}

var patterns = []pattern{
	{"binomial", binomial},
	{"dissemination", dissemination},
	{"flat", flat},
	{"gather", gather},
	{"ping-pong", func(_ int, bytes uint64, perm []int) *goal.Schedule { return pingPong(bytes, perm) }},
}

func randomParams(rng *rand.Rand) Params {
	return Params{L: rng.Float64() * 20, Os: rng.Float64() * 5, Or: rng.Float64() * 5, Gap: rng.Float64() * 10,
		G: rng.Float64() * 0.5, O: rng.Float64() * 0.5, S: uint64(rng.IntN(400))}
}

// Making any of L, o, g or G larger never makes a rank finish earlier.
func TestMonotoneInParameters(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	grow := []struct {
		name string
		f    func(p *Params, d float64)
	}{
		{"L", func(p *Params, d float64) { p.L += d }},
		{"o", func(p *Params, d float64) { p.Os += d; p.Or += d }},
		{"o_s", func(p *Params, d float64) { p.Os += d }},
		{"o_r", func(p *Params, d float64) { p.Or += d }},
		{"g", func(p *Params, d float64) { p.Gap += d }},
		{"G", func(p *Params, d float64) { p.G += d / 50 }},
	}
	for range 60 {
		p := randomParams(rng)
		P := 2 + rng.IntN(14)
		bytes := uint64(rng.IntN(300))
		for _, pat := range patterns {
			s := pat.make(P, bytes, nil)
			base := run(t, s, p)
			for _, g := range grow {
				q := p
				g.f(&q, 0.5+rng.Float64()*5)
				res := run(t, s, q)
				for r := range base.Finish {
					if res.Finish[r] < base.Finish[r]-1e-9 {
						t.Fatalf("%s P=%d %d bytes: growing %s (%+v -> %+v) moves rank %d's finish from %v to %v",
							pat.name, P, bytes, g.name, p, q, r, base.Finish[r], res.Finish[r])
					}
				}
			}
		}
	}
}

// Relabelling the ranks of a schedule relabels its results. Exact ties
// are broken first-in first-out with the initial ops queued in rank
// order (as LogGOPSim does), so where messages reach one receiver at the
// same time (all of gather's) the relabelled schedule may serve them in
// another order: there the multiset of finish times is what is invariant.
func TestPermutedRanks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 60 {
		p := randomParams(rng)
		P := 2 + rng.IntN(14)
		bytes := uint64(rng.IntN(300))
		for _, pat := range patterns {
			n := P
			if pat.name == "ping-pong" {
				n = 2
			}
			perm := rng.Perm(n)
			base := run(t, pat.make(n, bytes, nil), p)
			moved := run(t, pat.make(n, bytes, perm), p)
			if pat.name == "gather" {
				a, b := slices.Clone(base.Finish), make([]float64, n)
				for r := range n {
					b[r] = moved.Finish[perm[r]]
				}
				if a[0] != b[0] {
					t.Fatalf("gather P=%d perm %v: root finishes at %v, relabelled at %v", n, perm, a[0], b[0])
				}
				slices.Sort(a)
				slices.Sort(b)
				if !slices.Equal(a, b) {
					t.Fatalf("gather P=%d perm %v: finish times %v, relabelled %v", n, perm, a, b)
				}
				continue
			}
			for r := range n {
				if moved.Finish[perm[r]] != base.Finish[r] {
					t.Fatalf("%s P=%d perm %v: rank %d finishes at %v, relabelled as %d at %v",
						pat.name, n, perm, r, base.Finish[r], perm[r], moved.Finish[perm[r]])
				}
			}
			if moved.Max != base.Max {
				t.Fatalf("%s P=%d perm %v: max %v vs %v", pat.name, n, perm, base.Max, moved.Max)
			}
		}
	}
}
