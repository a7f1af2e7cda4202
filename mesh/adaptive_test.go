package mesh

import "testing"

// Every algorithm's routes, whichever choice is made at each hop, are
// minimal, stay on the mesh and end at the destination; west-first never
// turns into West, and XY never has a choice.
func TestAdaptiveRoutesAreMinimal(t *testing.T) {
	m, _ := New(5, 4)
	for _, alg := range RoutingNames {
		for src := range m.Nodes() {
			for dst := range m.Nodes() {
				dx, dy := m.Offsets(src, dst)
				// Two extreme selections: always the X port when there
				// is a choice, always the Y port.
				for _, preferY := range []bool{false, true} {
					at, hops, ddx, ddy := src, 0, dx, dy
					prev := Local
					for ddx != 0 || ddy != 0 {
						x, y := Productive(ddx, ddy)
						var p Port
						switch {
						case Choice(alg, ddx, ddy) && preferY:
							p = y
						case Choice(alg, ddx, ddy):
							p = x
						default:
							// No choice: the one productive port, or
							// west-first's West, which XY takes too.
							p, _, _ = RouteXY(ddx, ddy)
						}
						if alg == RoutingXY && Choice(alg, ddx, ddy) {
							t.Fatalf("xy offers a choice at (%d,%d)", ddx, ddy)
						}
						if alg == RoutingWestFirst && p == West && prev != West && prev != Local {
							t.Fatalf("west-first %d->%d turns from %v into West", src, dst, prev)
						}
						next, ok := m.Neighbor(at, p)
						if !ok {
							t.Fatalf("%s %d->%d leaves the mesh by %v at %d", alg, src, dst, p, at)
						}
						at, prev = next, p
						ddx, ddy = Step(p, ddx, ddy)
						hops++
					}
					if at != dst || hops != m.Hops(src, dst) {
						t.Fatalf("%s %d->%d: ends at %d after %d hops, want %d", alg, src, dst, at, hops, m.Hops(src, dst))
					}
				}
			}
		}
	}
}
