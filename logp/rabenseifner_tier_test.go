package logp_test

import "nocsim/logp/goal"

// rabenseifnerAllreduce is mpi's allreduceRSAG as a GOAL schedule: the
// fold of the first 2(P-p) ranks, log2 p halving exchanges of half the
// blocks still held, log2 p allgather exchanges along the same pairs in
// reverse, and the result handed back to the folded ranks. The blocks are
// mpi's redSplit of the vector into p parts: whole elements (8 bytes, or
// single bytes when m is not a multiple of 8), each starting on a word. An
// exchange is posted once the previous one has completed, as mpi's
// sendrecv.
func rabenseifnerAllreduce(P, m int) *goal.Schedule {
	x := newSched(P)
	p := 1
	for 2*p <= P {
		p *= 2
	}
	rem := P - p
	real := func(j int) int {
		if j < rem {
			return 2*j + 1
		}
		return j + rem
	}
	es := 8
	if m%8 != 0 {
		es = 1
	}
	gr := 1 // elements per word-aligned unit
	for gr*es%4 != 0 {
		gr++
	}
	off := make([]int, p+1) // block j's first element
	for j := range p {
		off[j] = gr * (m / es / gr * j / p)
	}
	off[p] = m / es
	size := func(lo, n int) int { return (off[lo+n] - off[lo]) * es } // blocks lo..lo+n-1
	for r := range P {
		if r < 2*rem && r%2 == 0 { // folded away: hand in, get the result
			s := x.send(r, r+1, m)
			x.after(r, x.recv(r, r+1, m), s)
			continue
		}
		nr := r - rem
		var prev []int32
		if r < 2*rem {
			nr = r / 2
			prev = []int32{x.recv(r, r-1, m)}
		}
		exchange := func(peer, out, in int) {
			s, v := x.send(r, peer, out), x.recv(r, peer, in)
			x.after(r, s, prev...)
			x.after(r, v, prev...)
			prev = []int32{s, v}
		}
		lo := 0
		for mask := p / 2; mask >= 1; mask /= 2 {
			keep, give := lo, lo+mask
			if nr&mask != 0 {
				keep, give = give, keep
			}
			exchange(real(nr^mask), size(give, mask), size(keep, mask))
			lo = keep
		}
		for mask := 1; mask < p; mask *= 2 {
			pn := nr ^ mask
			exchange(real(pn), size(nr&^(mask-1), mask), size(pn&^(mask-1), mask))
		}
		if r < 2*rem {
			x.after(r, x.send(r, r-1, m), prev...)
		}
	}
	return x.done()
}
