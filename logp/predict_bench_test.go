package logp

import (
	"fmt"
	"testing"
)

// The forms replayed rank by rank cost O(messages) per sweep and keep
// every event's key of a sweep: these measure how that grows with P
// (go test ./logp -run '^$' -bench Replayed -benchmem).
func BenchmarkPredictReplayed(b *testing.B) {
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
