package coll

import (
	"math"
	"slices"
	"testing"
)

// The published example (Karp et al.; the slides' figure): P = 8, L = 6,
// o = 2, g = 4 completes at 24. The root sends at 0, 4, 8, 12 (arrivals
// 10, 14, 18, 22), the processor reached at 10 sends at 10 and 14
// (arrivals 20, 24) and the one reached at 14 sends at 14 (arrival 24).
func TestOptimalBroadcastPaperExample(t *testing.T) {
	finish, parent, at := OptimalBroadcast(8, 6, 2, 4)
	if finish != 24 {
		t.Errorf("finish = %v, want 24", finish)
	}
	wantAt := []float64{0, 10, 14, 18, 20, 22, 24, 24}
	if !slices.Equal(at, wantAt) {
		t.Errorf("at = %v, want %v", at, wantAt)
	}
	wantParent := []int{-1, 0, 0, 0, 1, 0, 1, 2}
	if !slices.Equal(parent, wantParent) {
		t.Errorf("parent = %v, want %v", parent, wantParent)
	}
}

func TestOptimalBroadcastSmall(t *testing.T) {
	if f, p, a := OptimalBroadcast(0, 6, 2, 4); f != 0 || p != nil || a != nil {
		t.Errorf("P = 0: %v %v %v, want 0 nil nil", f, p, a)
	}
	if f, p, a := OptimalBroadcast(1, 6, 2, 4); f != 0 || !slices.Equal(p, []int{-1}) || !slices.Equal(a, []float64{0}) {
		t.Errorf("P = 1: %v %v %v, want 0 [-1] [0]", f, p, a)
	}
	if f, _, _ := OptimalBroadcast(2, 6, 2, 4); f != 10 {
		t.Errorf("P = 2: finish %v, want L+2o = 10", f)
	}
}

// The tree is a valid LogP schedule: every processor hears from a parent
// that already had the item, L+2o after a send slot of that parent, the
// parent's slots at least max(g, o) apart, and finish is the last arrival.
func TestOptimalBroadcastValid(t *testing.T) {
	for _, c := range []struct{ L, o, g float64 }{{6, 2, 4}, {1, 3, 2}, {0, 0, 0}, {10, 0.5, 1.5}, {3, 1, 20}} {
		for _, P := range []int{2, 3, 7, 64, 300} {
			finish, parent, at := OptimalBroadcast(P, c.L, c.o, c.g)
			sends := map[int][]float64{}
			last := 0.0
			for i := 1; i < P; i++ {
				q := parent[i]
				if q < 0 || q >= P || q == i {
					t.Fatalf("%+v P=%d: parent[%d] = %d", c, P, i, q)
				}
				s := at[i] - c.L - 2*c.o
				if s < at[q]-1e-9 {
					t.Errorf("%+v P=%d: %d sends to %d at %v, before it has the item at %v", c, P, q, i, s, at[q])
				}
				sends[q] = append(sends[q], s)
				last = max(last, at[i])
			}
			for q, ss := range sends {
				slices.Sort(ss)
				for k := 1; k < len(ss); k++ {
					if ss[k]-ss[k-1] < max(c.g, c.o)-1e-9 {
						t.Errorf("%+v P=%d: %d sends at %v and %v, closer than max(g, o)", c, P, q, ss[k-1], ss[k])
					}
				}
			}
			if finish != last {
				t.Errorf("%+v P=%d: finish %v, last arrival %v", c, P, finish, last)
			}
		}
	}
}

// bruteBroadcast is the best finish over every schedule in which, step
// by step, any processor that has the item sends it to a new one (who is
// new does not matter: processors are alike), at its earliest free slot
// or up to maxDelay cycles later.
func bruteBroadcast(P int, L, o, g float64, maxDelay int) float64 {
	iv := max(g, o)
	best := math.Inf(1)
	free := []float64{0} // next free send slot of each processor that has the item
	var walk func(finish float64)
	walk = func(finish float64) {
		if finish >= best {
			return
		}
		if len(free) == P {
			best = finish
			return
		}
		for i := range free {
			for d := 0; d <= maxDelay; d++ {
				s := free[i] + float64(d)
				old := free[i]
				free[i] = s + iv
				free = append(free, s+L+2*o)
				walk(max(finish, s+L+2*o))
				free = free[:len(free)-1]
				free[i] = old
			}
		}
	}
	walk(0)
	return best
}

// No schedule found by exhaustive search beats the greedy builder, and
// the builder's is one of them, so they agree.
func TestOptimalBroadcastBruteForce(t *testing.T) {
	for P := 1; P <= 6; P++ {
		delay := 2
		if P == 6 {
			delay = 1
		}
		for L := 0.0; L <= 4; L++ {
			for o := 0.0; o <= 2; o++ {
				for g := 0.0; g <= 4; g++ {
					got, _, _ := OptimalBroadcast(P, L, o, g)
					want := bruteBroadcast(P, L, o, g, delay)
					if P == 1 {
						want = 0
					}
					if got != want {
						t.Errorf("P=%d L=%v o=%v g=%v: builder %v, brute force %v", P, L, o, g, got, want)
					}
				}
			}
		}
	}
}
