package router

import "math/bits"

// The one-iteration matchings BookSim2's allocators compute, over up to 64
// requesters and 64 resources, each side numbered in BookSim's order.
// req[i] has bit j set when requester i asks for resource j; a match is
// written as in[i] = j (or -1) for i < nIn. Each keeps round-robin
// pointers, one per requester (aptr, over resources) and one per resource
// (gptr, over requesters), and moves them only past a pair it matched:
// the rule that makes the pointers of an iSLIP allocator fall out of step
// under load, so that it reaches a full matching where a naive arbiter
// would keep granting the same requester (McKeown, "The iSLIP scheduling
// algorithm for input-queued switches", 1999).

// firstFrom is the lowest set bit of m at or after bit from, wrapping
// round to the lowest set bit, or -1 if m is empty: a round-robin
// arbiter's choice with its pointer at from.
func firstFrom(m uint64, from int) int {
	if m == 0 {
		return -1
	}
	if up := m >> sh(from) << sh(from); up != 0 {
		return bits.TrailingZeros64(up)
	}
	return bits.TrailingZeros64(m)
}

// islip is one iteration of iSLIP, as BookSim's iSLIP_Sparse: every
// resource with requests grants the first requester at or after its
// pointer gptr; every requester with grants accepts the first granting
// resource at or after its pointer aptr; both pointers move one past an
// accepted pair. reqT is req transposed (reqT[j] bit i = req[i] bit j),
// which the caller builds with req. nRes bounds the resources; in gets
// the match.
func islip(req, reqT *[64]uint64, nIn, nRes int, gptr, aptr []uint8, in []int8) {
	var grants [64]uint64 // grants[i] bit j: resource j granted requester i
	for j := range nRes {
		if m := reqT[j]; m != 0 {
			i := firstFrom(m, int(gptr[j]))
			grants[i] |= 1 << sh(j)
		}
	}
	for i := range nIn {
		in[i] = -1
		if g := grants[i]; g != 0 {
			j := firstFrom(g, int(aptr[i]))
			in[i] = int8(j)
			gptr[j] = wrapNext(i, nIn)
			aptr[i] = wrapNext(j, nRes)
		}
	}
}

// separableInputFirst is BookSim's SeparableInputFirstAllocator with
// round-robin arbiters: every requester picks one of its requests, the
// first at or after its pointer aptr; every resource then grants one of
// the requesters that picked it, the first at or after its pointer gptr;
// both pointers move one past a granted pair. A requester whose pick
// loses gets nothing this cycle, even if another of its requests was
// free: the matching is not maximal.
func separableInputFirst(req *[64]uint64, nIn, nRes int, gptr, aptr []uint8, in []int8) {
	var picked [64]uint64 // picked[j] bit i: requester i picked resource j
	var res uint64
	for i := range nIn {
		in[i] = -1
		if m := req[i]; m != 0 {
			j := firstFrom(m, int(aptr[i]))
			picked[j] |= 1 << sh(i)
			res |= 1 << sh(j)
		}
	}
	for ; res != 0; res &= res - 1 {
		j := bits.TrailingZeros64(res)
		i := firstFrom(picked[j], int(gptr[j]))
		in[i] = int8(j)
		gptr[j] = wrapNext(i, nIn)
		aptr[i] = wrapNext(j, nRes)
	}
}

// wrapNext is i+1 mod n.
func wrapNext(i, n int) uint8 {
	if i++; i == n {
		i = 0
	}
	return uint8(i)
}
