package coll

import (
	"math/bits"
	"testing"
)

// sendCounter counts a rank's messages (Bruck's sends all go through
// SendRecv).
type sendCounter struct {
	*memRank
	n *int
}

func (c sendCounter) SendRecv(dst int, s Region, src int, g Region) error {
	*c.n++
	return c.memRank.SendRecv(dst, s, src, g)
}

// Every rank sends ceil(log2 P) messages, on any P (no rank folds or sits
// out), and the first reaches rank me-1, the last rank me-2^(steps-1):
// the message count the registry gives, P ceil(log2 P). (Delivery with
// ragged and empty blocks: TestAllgathersDeliver, which runs every
// allgather program.)
func TestBruckAllgatherSteps(t *testing.T) {
	for _, P := range []int{2, 3, 5, 6, 7, 12, 13, 31, 33} {
		blocks := make([]int, P)
		for i := range blocks {
			blocks[i] = 8
		}
		sends := make([]int, P)
		prog := func(r Rank, a Args) error {
			return allgatherBruck(sendCounter{r.(*memRank), &sends[a.Me]}, a)
		}
		l := NewLayout(blocks)
		_, err := newMemWorld(P).run(prog, Args{Blocks: blocks}, func(me int) map[Buf][]byte {
			return map[Buf][]byte{Data: make([]byte, l.Size())}
		})
		if err != nil {
			t.Fatalf("P=%d: %v", P, err)
		}
		steps := bits.Len(uint(P - 1))
		for me, n := range sends {
			if n != steps {
				t.Errorf("P=%d: rank %d sends %d messages, want ceil(log2 P) = %d", P, me, n, steps)
			}
		}
	}
}
