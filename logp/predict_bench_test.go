package logp

import (
	"fmt"
	"testing"
)

// The forms evaluated on the tier cost a schedule's generation and its
// simulation, O(messages log messages): these measure how that grows with
// P (go test ./logp -run '^$' -bench OnTier -benchmem; before the forms
// were the tier's they were replays, BenchmarkPredictReplayed).
func BenchmarkPredictOnTier(b *testing.B) {
	for _, c := range []struct {
		op, alg string
		m       int
	}{
		{"bcast", "scatter_allgather", 100000},
		{"allgather", "recursive_doubling", 1000},
		{"allreduce", "ring", 100000},
	} {
		for _, P := range []int{64, 256, 1024} {
			b.Run(fmt.Sprintf("%s/%s/P=%d", c.op, c.alg, P), func(b *testing.B) {
				for b.Loop() {
					if _, err := machine.Predict(c.op, c.alg, P, c.m); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
