package coll

import (
	"bytes"
	"fmt"
	"testing"
)

// redCase is one way to combine: byte-wise addition on elements of es
// bytes (commutative; es not dividing 4 makes blocks start off words), or
// the affine maps of affineOp (8 bytes, not commutative: a.Ordered).
type redCase struct {
	es      int
	ordered bool
}

// vector is rank me's operand of count elements.
func (c redCase) vector(me, count int) []byte {
	if c.ordered {
		return affineVector(me, count)
	}
	return pattern(count*c.es, me)
}

// total combines the operands of ranks 0..P-1 in rank order, as an
// independent, sequential reference.
func (c redCase) total(P, count int) []byte {
	want := c.vector(0, count)
	for i := 1; i < P; i++ {
		next := c.vector(i, count)
		if c.ordered {
			for k := 0; k < len(want); k += 8 {
				affineOp(want[k:k+8], next[k:k+8])
			}
			want = next
			continue
		}
		for k := range want {
			want[k] += next[k]
		}
	}
	return want
}

// TestReductionsDeliver runs every reduce, allreduce and reduce_scatter
// program in memory with real data, in place and not, for every root, with
// a commutative operation on elements of 1 and 6 bytes and with a
// non-commutative one (the algorithms that keep rank order): the ranks
// that get a result end with the sequential reduction of every rank's
// operand, byte for byte.
func TestReductionsDeliver(t *testing.T) {
	cases := []redCase{{es: 1}, {es: 6}, {es: 8, ordered: true}}
	for _, a := range Algorithms() {
		if a.Op != "reduce" && a.Op != "allreduce" && a.Op != "reduce_scatter" {
			continue
		}
		for _, c := range cases {
			if c.ordered && a.Ordered != "" {
				continue // a non-commutative op runs a.Ordered instead
			}
			for _, P := range procsToTest {
				for _, count := range []int{0, 1, 5, 13, 700} { // 700 x 6 and 8 bytes: past MeshLongBytes
					for _, root := range rootsOf(P) {
						if a.Op != "reduce" && root != 0 {
							continue
						}
						for _, inPlace := range []bool{false, true} {
							name := fmt.Sprintf("%s %s, P=%d, %d elements of %d bytes, ordered %v, root %d, in place %v", a.Op, a.Name, P, count, c.es, c.ordered, root, inPlace)
							checkReduction(t, name, a, c, P, count, root, inPlace)
						}
					}
				}
			}
		}
	}
}

func checkReduction(t *testing.T, name string, a *Algorithm, c redCase, P, count, root int, inPlace bool) {
	t.Helper()
	n := count * c.es
	args := Args{Root: root, N: n, Elem: c.es, Ordered: c.ordered}
	if a.MeshGrid {
		args.Grid = RowMajor(P, 3) // ragged last rows for most P
	}
	// reduce_scatter: rank i's block is (7i+3) mod 5 of count*P elements
	// in all (the last taking the rest), zeros among them.
	total := count
	var offs []int
	if a.Op == "reduce_scatter" {
		total = count * P
		args.N = total * c.es
		args.Blocks = make([]int, P)
		left := total
		for i := range P - 1 {
			k := min((7*i+3)%5, left)
			args.Blocks[i], left = k*c.es, left-k
		}
		args.Blocks[P-1] = left * c.es
		offs = offsets(args.Blocks)
	}
	w := newMemWorld(P)
	w.bytewise = !c.ordered
	out, err := w.runEach(a.Program, func(me int) map[Buf][]byte {
		in := c.vector(me, total)
		m := n // the bytes of the rank's result
		switch {
		case a.Op == "reduce" && me != root:
			return map[Buf][]byte{Input: in}
		case a.Op == "reduce_scatter":
			m = args.Blocks[me]
		}
		if inPlace {
			return map[Buf][]byte{Input: in, Result: in[:m]}
		}
		return map[Buf][]byte{Input: in, Result: make([]byte, m)}
	}, func(me int) Args {
		ra := args
		ra.InPlace = inPlace && (a.Op != "reduce" || me == root)
		return ra
	})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want := c.total(P, total)
	for me := range P {
		switch {
		case a.Op == "reduce" && me != root:
			continue
		case a.Op == "reduce_scatter":
			if got, w := out[me][Result], want[offs[me]:offs[me+1]]; !bytes.Equal(got, w) {
				t.Fatalf("%s: rank %d ends with %v, want %v", name, me, got, w)
			}
		default:
			if got := out[me][Result]; !bytes.Equal(got, want) {
				t.Fatalf("%s: rank %d ends with %v, want %v", name, me, got, want)
			}
		}
	}
}
