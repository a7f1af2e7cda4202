package logp

import (
	"math"
)

// Optimal LogP schedules of Karp, Sahay, Santos and Schauser ("Optimal
// broadcast and summation in the LogP model", SPAA 1993), the yardsticks
// against which nocsim's tree algorithms can be measured.

// SumTree is one processor's part of an optimal summation: it adds Local
// operands from its own memory and the partial sums of Children (received
// in that order) and has its partial complete at Done. Identical subtrees
// (same Done) are one shared value, so a tree summing 2^T operands takes
// O(T) memory: treat it as read-only.
type SumTree struct {
	Done     int        // cycle at which this partial sum is complete
	Operands int        // operands summed in this subtree
	Local    int        // operands this processor reads from its memory
	Procs    int        // processors in this subtree, this one included
	Children []*SumTree // partials received, earliest first
}

// OptimalSummation is the most operands LogP can sum into one processor
// by time T, with unboundedly many processors, each holding any number of
// operands at time 0, and an addition taking one cycle; tree is the
// schedule (nil when T < 0).
//
// The recurrence (the slides' Example 2): within T <= L+2o nothing can be
// received in time, so one processor sums T+1 operands. Otherwise the
// root ends with k >= 1 receptions packed as late as possible: the last
// ends at T-1 and is added in the last cycle, the earlier ones each s =
// max(g, o+1) cycles before (a reception and its addition take o+1, and
// receptions are at least g apart), leaving s-o-1 cycles between them for
// local additions. The child received i-th from the end completed its sum
// at T-(2o+L+1)-i*s, so
//
//	f(T) = max(T+1, max_k [ sum_{i<k} f(T-2o-L-1-i*s) + (t0+1) + (k-1)(s-o-1) ])
//
// with t0 = T-1-o-(k-1)s the cycles before the first reception, where
// the root sums t0+1 local operands. Packing is optimal because f grows
// by at least one per cycle: moving a reception earlier by a cycle costs
// its child at least the one operand the root gains.
//
// Additions take whole cycles, so times are whole: T is rounded down and
// L, o, g up (negative or NaN values count as 0). Counts saturate at
// math.MaxInt. The recurrence takes O(T^2/s) time and O(T) memory, so T
// is meant to be at most some 10^5 cycles.
func OptimalSummation(T, L, o, g float64) (n int, tree *SumTree) {
	whole := func(x float64, round func(float64) float64) int {
		if !(x >= 0) {
			return 0
		}
		return int(round(min(x, 1<<40)))
	}
	t := math.Floor(T)
	if !(t >= 0) {
		return 0, nil
	}
	tt, l, oo, gg := whole(t, math.Floor), whole(L, math.Ceil), whole(o, math.Ceil), whole(g, math.Ceil)
	s := max(gg, oo+1)
	d := 2*oo + l + 1 // from a child's completion to the end of the root's addition of it
	f := make([]int, tt+1)
	kids := make([]int, tt+1) // the best k at each time
	for u := 0; u <= tt; u++ {
		f[u] = u + 1
		sum := 0
		for k := 1; ; k++ {
			tc := u - d - (k-1)*s // completion of the earliest child
			if tc < 0 {
				break
			}
			sum = satAdd(sum, f[tc])
			t0 := u - 1 - oo - (k-1)*s
			if v := satAdd(sum, t0+1+(k-1)*(s-oo-1)); v > f[u] {
				f[u], kids[u] = v, k
			}
		}
	}
	nodes := make([]*SumTree, tt+1)
	var build func(u int) *SumTree
	build = func(u int) *SumTree {
		if nodes[u] != nil {
			return nodes[u]
		}
		k := kids[u]
		x := &SumTree{Done: u, Operands: f[u], Local: u + 1, Procs: 1}
		if k > 0 {
			x.Local = u - oo - (k-1)*s + (k-1)*(s-oo-1)
			for i := k - 1; i >= 0; i-- {
				c := build(u - d - i*s)
				x.Children = append(x.Children, c)
				x.Procs = satAdd(x.Procs, c.Procs)
			}
		}
		nodes[u] = x
		return x
	}
	tree = build(tt)
	return f[tt], tree
}

func satAdd(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}
