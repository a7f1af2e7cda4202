package endpoint

import (
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

// With the booksim preset a lone packet takes BookSim's zero-load latency,
// 5*D + 7 + (L-1) cycles for D router-to-router hops and L flits, between
// every pair of a 4x4 mesh (the formula written out here, not taken from
// Spec.ZeroLoadLatency).
func TestBookSimPresetZeroLoad(t *testing.T) {
	rs, err := router.Preset(router.PresetBookSim)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := mesh.New(4, 4)
	for _, length := range []int{1, 2, 5, 16} {
		for src := 0; src < m.Nodes(); src++ {
			for dst := 0; dst < m.Nodes(); dst++ {
				got := loneLatency(t, m, rs, src, dst, length)
				d := m.Hops(src, dst)
				if want := des.Time(5*d + 7 + length - 1); got != want {
					t.Fatalf("%d->%d (%d hops), %d flits: latency %d, BookSim %d", src, dst, d, length, got, want)
				}
			}
		}
	}
}
