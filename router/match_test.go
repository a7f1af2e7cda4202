package router

import (
	"math/rand/v2"
	"testing"
)

// The mask matchings (match.go) give the loop-written reference's matches
// and pointers (reference_matched_test.go) on random requests, sizes and
// pointer states, and every match is a matching of requested pairs.
func TestMatchingsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 33))
	for trial := range 3000 {
		nIn, nRes := 1+rng.IntN(64), 1+rng.IntN(64)
		if trial%2 == 0 {
			nRes = nIn // the router's allocators are square
		}
		density := rng.Float64()
		var req, reqT [64]uint64
		ref := boolMatrix(nIn, nRes)
		for i := range nIn {
			for j := range nRes {
				if rng.Float64() < density {
					req[i] |= 1 << j
					reqT[j] |= 1 << i
					ref[i][j] = true
				}
			}
		}
		g, a := make([]uint8, nRes), make([]uint8, nIn)
		rg, ra := make([]int, nRes), make([]int, nIn)
		for j := range g {
			g[j] = uint8(rng.IntN(nIn))
			rg[j] = int(g[j])
		}
		for i := range a {
			a[i] = uint8(rng.IntN(nRes))
			ra[i] = int(a[i])
		}
		in := make([]int8, nIn)
		var want []int
		name := "islip"
		if trial%3 == 0 {
			name = "separable_input_first"
			separableInputFirst(&req, nIn, nRes, g, a, in)
			want = refSeparable(ref, rg, ra)
		} else {
			islip(&req, &reqT, nIn, nRes, g, a, in)
			want = refISLIP(ref, rg, ra)
		}
		used := map[int8]bool{}
		for i := range nIn {
			if int(in[i]) != want[i] {
				t.Fatalf("%s trial %d: requester %d matched %d, reference %d", name, trial, i, in[i], want[i])
			}
			if in[i] >= 0 {
				if !ref[i][in[i]] || used[in[i]] {
					t.Fatalf("%s trial %d: requester %d got %d, unrequested or taken twice", name, trial, i, in[i])
				}
				used[in[i]] = true
			}
			if int(a[i]) != ra[i] {
				t.Fatalf("%s trial %d: accept pointer %d is %d, reference %d", name, trial, i, a[i], ra[i])
			}
		}
		for j := range nRes {
			if int(g[j]) != rg[j] {
				t.Fatalf("%s trial %d: grant pointer %d is %d, reference %d", name, trial, j, g[j], rg[j])
			}
		}
	}
}

// iSLIP's pointer rule: under saturated uniform requests (every input
// asking for every output each cycle) one iteration reaches a full
// matching within N cycles of starting with every pointer at 0 (the first
// cycle matches one pair: every output grants input 0) and keeps it
// (McKeown 1999).
func TestISLIPDesynchronizes(t *testing.T) {
	for _, n := range []int{2, 5, 8, 20, 60} {
		var req, reqT [64]uint64
		all := uint64(1)<<n - 1
		for i := range n {
			req[i], reqT[i] = all, all
		}
		g, a, in := make([]uint8, n), make([]uint8, n), make([]int8, n)
		for cycle := range 3 * n {
			islip(&req, &reqT, n, n, g, a, in)
			matched := 0
			for _, j := range in {
				if j >= 0 {
					matched++
				}
			}
			if cycle >= n && matched != n {
				t.Fatalf("N=%d cycle %d: %d of %d matched; iSLIP should have desynchronized", n, cycle, matched, n)
			}
			if cycle == 0 && n > 1 && matched != 1 {
				t.Fatalf("N=%d: first cycle matched %d, want 1 (every output grants input 0)", n, matched)
			}
		}
	}
}
