package logp

import (
	"math"
	"nocsim/coll"
	"testing"
)

func TestCapacity(t *testing.T) {
	for _, c := range []struct {
		L, g float64
		want int
	}{{6, 4, 2}, {8, 4, 2}, {9, 4, 3}, {5, 5, 1}, {1, 4, 1}, {6, 0, 0}, {0, 4, 0}} {
		if got := Capacity(c.L, c.g); got != c.want {
			t.Errorf("Capacity(L=%v, g=%v) = %d, want %d", c.L, c.g, got, c.want)
		}
	}
}

// The slides' parameters (L=6, o=2, g=4) on 8 processors: ceil(6/4) = 2
// messages may be in transit to the root, and seven senders all try at
// once. Worked by hand: senders 1, 2 enter at o = 2 and are taken at 8 and
// 12; sender 3 waits for message 1 to be taken (8), sender 4 for message 2
// (12), and so on, each then taken when the root is free (every g = 4).
func TestOptimalGatherCapacityBinds(t *testing.T) {
	free := OptimalGather(8, 6, 2, 4, false)
	bound := OptimalGather(8, 6, 2, 4, true)
	if bound.Capacity != 2 {
		t.Fatalf("capacity %d, want 2", bound.Capacity)
	}
	wantEnter := []float64{0, 2, 2, 8, 12, 16, 20, 24}
	wantTaken := []float64{0, 8, 12, 16, 20, 24, 28, 32}
	for i := 1; i < 8; i++ {
		if bound.Enter[i] != wantEnter[i] || bound.Taken[i] != wantTaken[i] || bound.Stall[i] != wantEnter[i]-2 {
			t.Errorf("sender %d: enter %v stall %v taken %v, want %v %v %v", i, bound.Enter[i], bound.Stall[i], bound.Taken[i],
				wantEnter[i], wantEnter[i]-2, wantTaken[i])
		}
		if free.Enter[i] != 2 || free.Stall[i] != 0 || free.Taken[i] != wantTaken[i] {
			t.Errorf("unconstrained sender %d: enter %v stall %v taken %v", i, free.Enter[i], free.Stall[i], free.Taken[i])
		}
	}
	// The root is no later: L + 2o + (P-2) g, the flat broadcast's time
	// mirrored.
	if want := 6 + 2*2 + 6*4.0; free.Finish != want || bound.Finish != want {
		t.Errorf("finish %v (free), %v (bound), want %v", free.Finish, bound.Finish, want)
	}
	if _, to := MaxInTransit(free.Transits()); to != 7 {
		t.Errorf("unconstrained: %d in transit to the root, want all 7", to)
	}
	if _, to := MaxInTransit(bound.Transits()); to != 2 {
		t.Errorf("constrained: %d in transit to the root, want the capacity 2", to)
	}
}

// Whatever L, o, g and P: the constrained gather never has more than the
// capacity in transit, never finishes later, and stalls nobody when the
// capacity covers every sender.
func TestOptimalGatherProperties(t *testing.T) {
	for _, P := range []int{1, 2, 3, 9, 33} {
		for _, log := range [][3]float64{{6, 2, 4}, {20, 1, 3}, {5, 4, 1}, {3, 1, 7}, {10, 0, 2.5}} {
			L, o, g := log[0], log[1], log[2]
			f, b := OptimalGather(P, L, o, g, false), OptimalGather(P, L, o, g, true)
			if _, to := MaxInTransit(b.Transits()); to > b.Capacity {
				t.Errorf("P=%d %v: %d in transit, capacity %d", P, log, to, b.Capacity)
			}
			if b.Finish != f.Finish {
				t.Errorf("P=%d %v: finish %v with the constraint, %v without", P, log, b.Finish, f.Finish)
			}
			if P > 1 {
				if want := L + 2*o + float64(P-2)*max(g, o); math.Abs(f.Finish-want) > 1e-9 {
					t.Errorf("P=%d %v: finish %v, want %v", P, log, f.Finish, want)
				}
			}
			stalled := false
			for _, s := range b.Stall {
				stalled = stalled || s > 0
			}
			if stalled != (P-1 > b.Capacity) {
				t.Errorf("P=%d %v: stalled %v with capacity %d for %d senders", P, log, stalled, b.Capacity, P-1)
			}
		}
	}
}

// The optimal broadcast respects the capacity on its own: no sender ever
// has more than ceil(L/g) messages in transit, no receiver more than one.
func TestOptimalBroadcastWithinCapacity(t *testing.T) {
	for _, log := range [][3]float64{{6, 2, 4}, {20, 1, 3}, {5, 4, 1}, {3, 1, 7}} {
		L, o, g := log[0], log[1], log[2]
		_, parent, at := coll.OptimalBroadcast(64, L, o, g)
		from, to := MaxInTransit(BroadcastTransits(parent, at, L, o))
		if c := Capacity(L, g); from > c || to != 1 {
			t.Errorf("%v: %d in transit from a sender (capacity %d), %d to a receiver", log, from, c, to)
		}
	}
}
