package apps

import (
	"fmt"
	"strings"
	"testing"
)

// The grid derived from P is the thesis's (8x4 for 32) and always X*Y = P
// with X >= Y.
func TestQRThesisGrid(t *testing.T) {
	for p, want := range map[int][2]int{1: {1, 1}, 2: {2, 1}, 4: {2, 2}, 6: {3, 2}, 8: {4, 2}, 16: {4, 4}, 32: {8, 4}, 64: {8, 8}} {
		if x, y := QRThesisGrid(p); x != want[0] || y != want[1] {
			t.Errorf("P=%d: grid %dx%d, want %dx%d", p, x, y, want[0], want[1])
		}
	}
	for p := 1; p <= 256; p++ {
		if x, y := QRThesisGrid(p); x*y != p || x < y {
			t.Errorf("P=%d: grid %dx%d", p, x, y)
		}
	}
}

// Both versions decompose correctly (R against gonum's, A^T A = R^T R) on
// square and oblong grids, given and derived, with N not a multiple of
// the grid's sides.
func TestQRThesisCorrect(t *testing.T) {
	for _, c := range []struct {
		mesh         string
		procs, n     int
		gridX, gridY int
	}{
		{"2x2", 1, 7, 0, 0},
		{"2x2", 2, 9, 0, 0},
		{"2x2", 4, 13, 0, 0},
		{"3x3", 6, 11, 2, 3},
		{"3x3", 8, 10, 2, 4},
		{"8x8", 32, 19, 0, 0},
	} {
		for _, native := range []bool{false, true} {
			cfg := QRConfig{Procs: c.procs, N: c.n, Seed: 3, Grid: "thesis", GridX: c.gridX, GridY: c.gridY, Native: native}
			res, err := RunQR(newChip(c.mesh), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Correct {
				t.Errorf("P=%d N=%d grid %dx%d native=%v: %s", c.procs, c.n, c.gridX, c.gridY, native, res.Detail)
			}
		}
	}
}

// Every column makes section 5.2.1's calls, and no others: on the
// column's grid column a reduce, the diagonal's send to the top (and its
// receive there) unless the top holds it, two broadcasts; then on every
// process a barrier on the world, two row broadcasts and a column
// allreduce.
func TestQRThesisCallStructure(t *testing.T) {
	const n, X, Y = 11, 3, 2
	calls := map[[2]int]map[string]int{}
	cfg := QRConfig{Procs: X * Y, N: n, Seed: 1, Grid: "thesis", GridX: X, GridY: Y,
		onCall: func(rank, k int, op string) {
			key := [2]int{rank, k}
			if calls[key] == nil {
				calls[key] = map[string]int{}
			}
			calls[key][op]++
		}}
	res, err := RunQR(newChip("3x3"), cfg)
	if err != nil || !res.Correct {
		t.Fatalf("%v %s", err, res.Detail)
	}
	for k := 0; k < n-1; k++ {
		pk, rk := k%X, k%Y
		for rank := 0; rank < X*Y; rank++ {
			pr, pc := rank/X, rank%X
			want := map[string]int{"barrier world": 1, "bcast row": 2, "allreduce col": 1}
			if pc == pk {
				want["reduce col"], want["bcast col"] = 1, 2
				if rk != 0 && pr == rk {
					want["send"] = 1
				}
				if rk != 0 && pr == 0 {
					want["recv"] = 1
				}
			}
			if got := calls[[2]int{rank, k}]; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("column %d, rank %d (grid row %d, column %d): calls %v, want %v", k, rank, pr, pc, got, want)
			}
		}
	}
	if len(calls) != (n-1)*X*Y {
		t.Errorf("calls in %d (rank, column) pairs, want %d", len(calls), (n-1)*X*Y)
	}
}

// On one processor only the kernels charge, so setting one cost key from
// 0 to 1 adds exactly the run's count of that class. Per column k < N-1,
// with m = N-k rows and c = m-1 columns left: words 8m + 10mc + 4c (the
// norm 2m, the reflection 6m, the dot products 4mc + 2c, the update
// 6mc + 2c) plus, native, 4c for summing the column's dot products;
// iterations 2m + 2mc + 2c (+ 2c native); calls 5 (+ 1 native); flops
// 2m + 7 + 4mc + c, the Householder count (4N^3/3 to leading order).
func TestQRThesisOperationCounts(t *testing.T) {
	const N = 12
	for _, native := range []bool{false, true} {
		run := func(set func(c *chip)) int64 {
			m := newChip("2x2")
			m.cpu.FlopCycles = 0
			set(m)
			res, err := RunQR(m, QRConfig{Procs: 1, N: N, Seed: 2, Grid: "thesis", Native: native})
			if err != nil || !res.Correct {
				t.Fatalf("%v %s", err, res.Detail)
			}
			return int64(res.Cycles)
		}
		var mem, iters, calls, flops int64
		for k := 0; k < N-1; k++ {
			m := int64(N - k)
			c := m - 1
			mem += 8*m + 10*m*c + 4*c
			iters += 2*m + 2*m*c + 2*c
			calls += 5
			flops += 2*m + 7 + 4*m*c + c
			if native {
				mem, iters, calls = mem+4*c, iters+2*c, calls+1
			}
		}
		base := run(func(*chip) {})
		for _, c := range []struct {
			key  string
			set  func(c *chip)
			want int64
		}{
			{"mem_cycles", func(c *chip) { c.cpu.MemCycles = 1 }, mem},
			{"loop_cycles", func(c *chip) { c.cpu.LoopCycles = 1 }, iters},
			{"kernel_call_cycles", func(c *chip) { c.cpu.KernelCallCycles = 1 }, calls},
		} {
			if got := run(c.set) - base; got != c.want {
				t.Errorf("native=%v, %s = 1: %d extra cycles, want the closed form %d", native, c.key, got, c.want)
			}
		}
		if native {
			if got := run(func(c *chip) { c.cpu.FlopCycles = 1 }) - base; got != flops {
				t.Errorf("native, flop_cycles = 1: %d extra cycles, want the closed form %d", got, flops)
			}
		}
	}
}

// The thesis's direction (table 5.2): at fixed P the MPI/native ratio
// falls as the matrix grows.
func TestQRThesisRatioFallsWithSize(t *testing.T) {
	ratio := func(n int) float64 {
		var cyc [2]float64
		for i, native := range []bool{false, true} {
			res, err := RunQR(newChip("2x2"), QRConfig{Procs: 4, N: n, Seed: 1, Grid: "thesis", Native: native})
			if err != nil || !res.Correct {
				t.Fatalf("%v %s", err, res.Detail)
			}
			cyc[i] = float64(res.Cycles)
		}
		return cyc[0] / cyc[1]
	}
	small, large := ratio(16), ratio(64)
	if !(large < small) || large <= 1 {
		t.Errorf("MPI/native at P=4: %.3f at 16x16, %.3f at 64x64: want above 1 and falling", small, large)
	}
}

// Bad grids and sizes are refused before anything runs.
func TestQRThesisRefused(t *testing.T) {
	for _, c := range []struct {
		cfg  QRConfig
		want string
	}{
		{QRConfig{Procs: 4, N: 8, Grid: "thesis", GridX: 3, GridY: 2}, "grid 3x2 with Procs = 4"},
		{QRConfig{Procs: 4, N: 8, Grid: "thesis", GridX: 4}, "grid 4x0"},
		{QRConfig{Procs: 4, N: 1025, Grid: "thesis"}, "N = 1025 on the 2x2 grid: allowed 2..1024"},
		{QRConfig{Procs: 4, N: 8, Grid: "2d", GridX: 2, GridY: 2}, `with Grid "thesis" only`},
	} {
		_, err := RunQR(newChip("2x2"), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want it to name %q", c.cfg, err, c.want)
		}
	}
}
