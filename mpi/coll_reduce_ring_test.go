package mpi

import "testing"

// The ring reduce's defining behaviour: exactly P(P-1) + P(P-1)/2
// messages, every one from a rank to its ring successor, and the exact
// reduction at the root (redRun checks it against a fold of the inputs),
// whatever the root, the size (blocks empty when count < P, uneven when P
// does not divide it) and InPlace.
func TestReduceRing(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.SetAlgorithm("reduce", "ring")
	for _, P := range []int{1, 2, 5, 8, 13} {
		for _, root := range []int{0, P / 2, P - 1} {
			for _, count := range []int{1, 7, 3*P + 1, 100} {
				for _, inPlace := range []bool{false, true} {
					c := &redCall{kind: redSum32, fn: "Reduce", root: root, inPlace: inPlace, counts: []int{count}}
					w := redRun(t, P, cfg, []*redCall{c})
					n := 0
					for _, r := range w.Ranks {
						n += r.Received()
						for _, m := range r.Messages() {
							if m.Dest != (m.Source+1)%P {
								t.Errorf("P=%d root=%d count=%d: a message from rank %d to rank %d, not its successor", P, root, count, m.Source, m.Dest)
							}
						}
					}
					if want := P*(P-1) + P*(P-1)/2; n != want {
						t.Errorf("P=%d root=%d count=%d inPlace=%v: %d messages, want %d", P, root, count, inPlace, n, want)
					}
				}
			}
		}
	}
}
