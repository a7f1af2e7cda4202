package mpi

import (
	"fmt"
	"testing"
)

// Rabenseifner's allreduce at the P the reduction family does not run
// (redPs covers 1, 2, 3, 5, 8, 13, 16 and 64): 6, 7 and 12 fold 2, 3 and 4
// ranks. Every kind of redCalls (int32 and byte sums, user ops, the
// non-commutative matrix and affine ops that fall back), counts 0, 1, 37
// and past coll_long_bytes, none divisible by P, in place or not; each
// rank's result is checked against the serial fold.
func TestRabenseifnerAllreduceFolds(t *testing.T) {
	t.Parallel()
	for _, P := range []int{6, 7, 12} {
		t.Run(fmt.Sprintf("P=%d", P), func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			cfg.Allreduce = "reduce_scatter_allgather"
			redRun(t, P, cfg, redCalls("Allreduce", P, true))
		})
	}
}

// The message pattern at P = 8 (8 blocks of 100 int32 elements: exact
// halves): every rank receives m/2, m/4, m/8 from the partners at
// distance 4, 2, 1 (halving), then m/8, m/4, m/2 from distance 1, 2, 4
// (the allgather doubling its run of blocks).
func TestRabenseifnerMessageSizes(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Allreduce = "reduce_scatter_allgather"
	const P, count = 8, 800
	c := &redCall{kind: redSum32, fn: "Allreduce", counts: []int{count}}
	w := redRun(t, P, cfg, []*redCall{c})
	m := 4 * count
	sizes := []int{m / 2, m / 4, m / 8, m / 8, m / 4, m / 2}
	dist := []int{4, 2, 1, 1, 2, 4}
	for _, r := range w.Ranks {
		var got, want [][2]int
		for i, msg := range r.Messages() {
			got = append(got, [2]int{msg.Source, msg.Bytes})
			want = append(want, [2]int{r.Rank() ^ dist[i], sizes[i]})
		}
		if len(got) != len(sizes) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("rank %d received (source, bytes) %v, want %d messages %v", r.Rank(), got, len(sizes), want)
		}
	}
}
