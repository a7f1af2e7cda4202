package logp

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestOptimalSummationBruteForce(t *testing.T) {
	for l := 0; l <= 4; l++ {
		for o := 0; o <= 3; o++ {
			for g := 0; g <= 5; g++ {
				b := newBruteSum(l, o, g)
				for T := 0; T <= 24; T++ {
					n, _ := OptimalSummation(float64(T), float64(l), float64(o), float64(g))
					if want := b.sum(T); n != want {
						t.Errorf("T=%d L=%d o=%d g=%d: %d operands, brute force %d", T, l, o, g, n, want)
					}
				}
			}
		}
	}
}

// Hand-derived cases.
func TestOptimalSummationHand(t *testing.T) {
	fib := []int{1, 2, 3, 5, 8, 13, 21, 34}
	for _, c := range []struct {
		T, L, o, g float64
		want       int
		why        string
	}{
		// Free communication: every cycle halves the partial sums, 2^T.
		{0, 0, 0, 1, 1, "2^0"}, {1, 0, 0, 1, 2, "2^1"}, {5, 0, 0, 1, 32, "2^5"}, {10, 0, 0, 0, 1024, "2^10"},
		// Nothing can arrive in time: one processor, T+1 operands.
		{6, 5, 0, 1, 7, "T <= L+2o"}, {8, 4, 2, 4, 9, "T <= L+2o"},
		// L=0, o=1, g=3: a child sums 3 operands by 2, sends over [2,3],
		// the root receives over [3,4] and adds at [4,5], having summed 4
		// of its own over [0,3].
		{5, 0, 1, 3, 7, "3 + 4"},
		// Fractional parameters are rounded up, T down: as L=0, o=1, g=3, T=5.
		{5.9, 0, 0.5, 2.2, 7, "rounded"},
		{-1, 0, 0, 1, 0, "no time"},
	} {
		if n, _ := OptimalSummation(c.T, c.L, c.o, c.g); n != c.want {
			t.Errorf("T=%v L=%v o=%v g=%v: %d operands, want %d (%s)", c.T, c.L, c.o, c.g, n, c.want, c.why)
		}
	}
	// o = 0, g <= 1, L = 1: the root adds its own previous partial and one
	// received a cycle older each cycle, f(T) = f(T-1) + f(T-2).
	for T, want := range fib {
		if n, _ := OptimalSummation(float64(T), 1, 0, 1); n != want {
			t.Errorf("L=1 o=0 g=1 T=%d: %d, want Fibonacci %d", T, n, want)
		}
	}
	// Counts saturate rather than wrap.
	if n, tr := OptimalSummation(200, 0, 0, 1); n != math.MaxInt || tr.Operands != math.MaxInt {
		t.Errorf("T=200 free communication: %d operands, want saturation at MaxInt", n)
	}
}

// The slides' figure: T=28, L=5, o=2, g=4 is an 8-processor tree whose
// root receives from children complete at 6, 10, 14 and 18 (T-(2o+L+1)
// and every g before), and the tree's counts add up.
func TestOptimalSummationSlidesTree(t *testing.T) {
	n, tr := OptimalSummation(28, 5, 2, 4)
	if tr.Procs != 8 {
		t.Errorf("processors = %d, want the figure's 8", tr.Procs)
	}
	var done []int
	for _, c := range tr.Children {
		done = append(done, c.Done)
	}
	if !slices.Equal(done, []int{6, 10, 14, 18}) {
		t.Errorf("root's children complete at %v, want [6 10 14 18]", done)
	}
	if n != tr.Operands || n != newBruteSum(5, 2, 4).sum(28) {
		t.Errorf("n = %d, tree %d, brute force %d", n, tr.Operands, newBruteSum(5, 2, 4).sum(28))
	}
	var check func(x *SumTree, path string)
	check = func(x *SumTree, path string) {
		ops, procs := x.Local, 1
		for i, c := range x.Children {
			ops += c.Operands
			procs += c.Procs
			// received i-th of k, counting from the first: it ends
			// (k-1-i) receptions before T-1.
			if want := x.Done - (2*2 + 5 + 1) - (len(x.Children)-1-i)*4; c.Done != want {
				t.Errorf("%s child %d completes at %d, want %d", path, i, c.Done, want)
			}
			check(c, fmt.Sprintf("%s/%d", path, i))
		}
		if ops != x.Operands || procs != x.Procs || x.Local < 1 {
			t.Errorf("%s: local %d + children = %d operands on %d processors; node says %d on %d", path, x.Local, ops, procs, x.Operands, x.Procs)
		}
	}
	check(tr, "root")
	t.Logf("T=28 L=5 o=2 g=4: %d operands on %d processors", n, tr.Procs)
}

// bruteSum is an independent, more permissive search for the summation
// bound: the root's timeline is built backwards from T, one cycle at a
// time, choosing to idle, to add (a local operand or a received partial),
// or to end a reception of o cycles there. A reception needs an addition
// after it, receptions start at least g apart, and the child received
// completed its own best sum o+L+o before the reception ends. Idling,
// additions deferred past later receptions and uneven spacing are all
// allowed, none of which the recurrence considers.
type bruteSum struct {
	l, o, g int
	f       map[int]int
	b       map[[3]int]int
}

func newBruteSum(l, o, g int) *bruteSum {
	return &bruteSum{l: l, o: o, g: g, f: map[int]int{}, b: map[[3]int]int{}}
}

func (s *bruteSum) sum(t int) int {
	if v, ok := s.f[t]; ok {
		return v
	}
	v := 1 + s.back(t, 0, math.MaxInt/2)
	s.f[t] = v
	return v
}

// back is the most operands the cycles 0..t can add, with owed additions
// already placed after t and not yet matched to receptions, and the next
// reception starting at next.
func (s *bruteSum) back(t, owed, next int) int {
	if t <= 0 {
		return 0
	}
	key := [3]int{t, owed, min(next, t+s.g+1)} // beyond t+g, next no longer constrains
	if v, ok := s.b[key]; ok {
		return v
	}
	best := s.back(t-1, owed, next)               // idle
	best = max(best, 1+s.back(t-1, owed+1, next)) // add
	start, child := t-s.o, t-2*s.o-s.l            // a reception ending at t
	if owed > 0 && start >= 0 && child >= 0 && next-start >= s.g {
		best = max(best, s.sum(child)-1+s.back(start, owed-1, start))
	}
	s.b[key] = best
	return best
}
