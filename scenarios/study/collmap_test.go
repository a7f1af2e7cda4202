package study

import (
	"testing"

	"nocsim/scenarios"
)

// A kept run's traffic: recursive doubling's matrix is rank r sending
// its whole vector to r XOR 2^k in each of its log2 P rounds, nothing
// else; and the chip's load over the call is the call's: link traffic,
// and more traversals than link flits (the rest went to the NIUs).
func TestCollKeepsMapRow(t *testing.T) {
	const P, size = 16, 4096
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	sw := &CollSweep{Op: "allreduce", Algs: []string{"ring", "recursive_doubling"}, Procs: []int{P}, Sizes: []int{size}, MapRow: 2}
	rows, err := sw.Run(&sc, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sw.MapLoad == nil || len(sw.Matrix) != P {
		t.Fatalf("kept load %v and a %d-rank matrix, want row 2's", sw.MapLoad, len(sw.Matrix))
	}
	for src, row := range sw.Matrix {
		for dst, b := range row {
			var want int64
			if d := src ^ dst; d != 0 && d&(d-1) == 0 {
				want = size
			}
			if b != want {
				t.Errorf("rank %d sent rank %d %d bytes, recursive doubling sends %d", src, dst, b, want)
			}
		}
	}
	var links, trav uint64
	for _, l := range sw.MapLoad.Links {
		for _, n := range l.VCFlits {
			links += n
		}
	}
	for _, r := range sw.MapLoad.Routers {
		trav += r.Traversals
	}
	if links == 0 || trav <= links {
		t.Errorf("%d link flits and %d traversals: want traffic, and traversals = link flits + ejected flits", links, trav)
	}
	if sw.MapLoad.Cycles != float64(rows[1].Cycles) {
		t.Errorf("the map is over %v cycles, the call took %d", sw.MapLoad.Cycles, rows[1].Cycles)
	}
}
