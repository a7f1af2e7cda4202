package loggops

import (
	"math/bits"

	"nocsim/logp/goal"
)

// Schedules of the standard patterns, built with goal.Builder; perm maps
// the pattern's logical ranks to schedule ranks (nil = identity), so the
// same pattern can be laid out under relabelled ranks.

type build struct {
	b    *goal.Builder
	perm []int
}

func newBuild(P int, perm []int) *build {
	if perm == nil {
		perm = make([]int, P)
		for i := range perm {
			perm[i] = i
		}
	}
	return &build{goal.NewBuilder(P, 0), perm}
}

func (x *build) send(r, to int, bytes uint64, tag int) int32 {
	return x.b.AddSend(x.perm[r], x.perm[to], bytes, tag)
}
func (x *build) recv(r, from int, bytes uint64, tag int) int32 {
	return x.b.AddRecv(x.perm[r], x.perm[from], bytes, tag)
}
func (x *build) require(r int, a, on int32) { x.b.Require(x.perm[r], a, on) }
func (x *build) done() *goal.Schedule {
	s, err := x.b.Schedule()
	if err != nil {
		panic(err)
	}
	return s
}

// binomial: rank r receives from r minus its lowest set bit, then sends
// to r + 2^k for every 2^k below that bit, farthest first.
func binomial(P int, bytes uint64, perm []int) *goal.Schedule {
	x := newBuild(P, perm)
	for r := range P {
		top := 1 << bits.Len(uint(P-1)) // root: every power of two below P
		var got int32 = -1
		if r != 0 {
			top = r & -r
			got = x.recv(r, r-top, bytes, 0)
		}
		for m := top / 2; m >= 1; m /= 2 {
			if r+m < P {
				s := x.send(r, r+m, bytes, 0)
				if got >= 0 {
					x.require(r, s, got)
				}
			}
		}
	}
	return x.done()
}

// dissemination: in round k rank r sends to r+2^k and receives from
// r-2^k (mod P); round k+1's ops require both of round k's.
func dissemination(P int, bytes uint64, perm []int) *goal.Schedule {
	x := newBuild(P, perm)
	for r := range P {
		prevS, prevR := int32(-1), int32(-1)
		for k := 0; 1<<k < P; k++ {
			d := 1 << k
			s := x.send(r, (r+d)%P, bytes, k)
			v := x.recv(r, (r-d+P)%P, bytes, k)
			if prevS >= 0 {
				for _, a := range []int32{s, v} {
					x.require(r, a, prevS)
					x.require(r, a, prevR)
				}
			}
			prevS, prevR = s, v
		}
	}
	return x.done()
}

// flat: the root sends to 1..P-1 in order; each of them receives.
func flat(P int, bytes uint64, perm []int) *goal.Schedule {
	x := newBuild(P, perm)
	for r := 1; r < P; r++ {
		x.send(0, r, bytes, 0)
	}
	for r := 1; r < P; r++ {
		x.recv(r, 0, bytes, 0)
	}
	return x.done()
}

// gather: every rank sends to the root, which receives from 1..P-1.
func gather(P int, bytes uint64, perm []int) *goal.Schedule {
	x := newBuild(P, perm)
	for r := 1; r < P; r++ {
		x.send(r, 0, bytes, 0)
		x.recv(0, r, bytes, 0)
	}
	return x.done()
}

// pingPong: rank 0 sends to 1, which answers once it has the message.
func pingPong(bytes uint64, perm []int) *goal.Schedule {
	x := newBuild(2, perm)
	s := x.send(0, 1, bytes, 0)
	x.require(0, x.recv(0, 1, bytes, 0), s)
	v := x.recv(1, 0, bytes, 0)
	x.require(1, x.send(1, 0, bytes, 0), v)
	return x.done()
}

// optimalTree is Karp et al.'s optimal LogP broadcast for P = 8, L = 6,
// o = 2, g = 4: the root sends at 0, 4, 8, 12, reaching ranks 1, 2, 3, 5
// at 10, 14, 18, 22; rank 1 (reached at 10) forwards at 10 and 14 to 4
// and 6 (20, 24); rank 2 (14) forwards at 14 to 7 (24). children lists
// each rank's sends in order; at is when each rank has the item.
var optimalTree = struct {
	children [8][]int
	at       [8]float64
}{
	children: [8][]int{{1, 2, 3, 5}, {4, 6}, {7}, nil, nil, nil, nil, nil},
	at:       [8]float64{0, 10, 14, 18, 20, 22, 24, 24},
}

func optimalBroadcast8() *goal.Schedule {
	x := newBuild(8, nil)
	parent := make([]int, 8)
	for p, cs := range optimalTree.children {
		for _, c := range cs {
			parent[c] = p
		}
	}
	for r, cs := range optimalTree.children {
		got := int32(-1)
		if r != 0 {
			got = x.recv(r, parent[r], 1, 0)
		}
		for _, c := range cs {
			s := x.send(r, c, 1, 0)
			if got >= 0 {
				x.require(r, s, got)
			}
		}
	}
	return x.done()
}
