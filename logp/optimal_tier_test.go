package logp_test

import (
	"math"
	"testing"

	"nocsim/coll"
	"nocsim/logp"
	"nocsim/logp/goal"
	"nocsim/logp/loggops"
)

// optimalTree is mpi's optimal bcast as a GOAL schedule: the tree of
// logp.OptimalBroadcast; a rank receives from its parent, then sends to
// its children in the order they were informed (its send slots' order).
func optimalTree(P, m int, L, o, g float64) *goal.Schedule {
	_, parent, _ := coll.OptimalBroadcast(P, L, o, g)
	x := newSched(P)
	got := make([]int32, P)
	got[0] = -1
	for i := 1; i < P; i++ { // parents first: parent[i] < i
		got[i] = x.recv(i, parent[i], m)
		x.after(parent[i], x.send(parent[i], i, m), got[parent[i]])
	}
	return x.done()
}

// The optimal bcast's closed form equals the LogGOPS tier running the same
// tree, at every P and on machines where G, O or unequal overheads make
// LogGOPS differ from LogP; with LogP's machine it is Karp's finish.
func TestOptimalBcastMatchesTier(t *testing.T) {
	for _, seg := range tierParams {
		p := logp.Params{P: 100, Segments: []logp.Segment{seg}}
		for _, m := range []int{1, 100, 1000} {
			L, o, g := p.OptimalLogP(m)
			for P := 2; P <= 100; P++ {
				res, err := loggops.Simulate(optimalTree(P, m, L, o, g), tierOf(seg), loggops.Options{})
				if err != nil {
					t.Fatalf("P=%d: %v", P, err)
				}
				x, err := p.Predict("bcast", "optimal", P, m)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(x.Cycles-res.Max) > 1e-9*max(1, res.Max) {
					t.Errorf("%+v m=%d P=%d: closed form %v, tier %v", seg, m, P, x.Cycles, res.Max)
				}
				if seg.G == 0 && seg.O == 0 && seg.Os == seg.Or && seg.Gap >= seg.Os {
					if f, _, _ := coll.OptimalBroadcast(P, L, o, g); x.Cycles != f {
						t.Errorf("%+v P=%d: closed form %v, Karp's finish %v", seg, P, x.Cycles, f)
					}
				}
			}
		}
	}
}
