package apps

import (
	"math"
	"strings"
	"testing"
)

func TestQRCorrect(t *testing.T) {
	for _, c := range []struct{ P, N int }{{1, 8}, {2, 12}, {3, 10}, {4, 16}, {5, 23}, {7, 7}, {16, 20}} {
		for _, native := range []bool{false, true} {
			res, err := RunQR(newChip("4x4"), QRConfig{Procs: c.P, N: c.N, Native: native, Seed: uint64(c.N)})
			if err != nil {
				t.Fatalf("P=%d N=%d native=%v: %v", c.P, c.N, native, err)
			}
			if !res.Correct || res.Cycles <= 0 || res.Procs != c.P || res.Size != c.N || res.App != "qr" {
				t.Errorf("P=%d N=%d: %+v", c.P, c.N, res)
			}
			t.Logf("%s P=%d N=%d: %d cycles, %s", res.Version, c.P, c.N, res.Cycles, res.Detail)
		}
	}
}

func TestQRSameAnswer(t *testing.T) {
	// Both versions do the same arithmetic in the same order: R is identical
	// (the check reads it back), so only timing differs.
	a, err := RunQR(newChip("4x4"), QRConfig{Procs: 3, N: 10, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	b, err := RunQR(newChip("4x4"), QRConfig{Procs: 3, N: 10, Native: true, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Correct || a.Detail != b.Detail || a.Version != "mpi" || b.Version != "native" {
		t.Errorf("mpi %q, native %q", a.Detail, b.Detail)
	}
}

// qrRatio runs both versions and returns the MPI/native cycle ratio.
func qrRatio(t *testing.T, P, n int) float64 {
	t.Helper()
	mpiRes, err := RunQR(newChip("4x4"), QRConfig{Procs: P, N: n, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	nat, err := RunQR(newChip("4x4"), QRConfig{Procs: P, N: n, Native: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !mpiRes.Correct || !nat.Correct {
		t.Fatalf("P=%d N=%d: mpi %s; native %s", P, n, mpiRes.Detail, nat.Detail)
	}
	ratio := float64(mpiRes.Cycles) / float64(nat.Cycles)
	t.Logf("P=%d N=%d: native %d cycles, mpi %d cycles, ratio %.3f", P, n, nat.Cycles, mpiRes.Cycles, ratio)
	return ratio
}

// TestQRRatioFalls is thesis table 5.2's shape: at fixed P the MPI version
// is slower than the native one, and the gap closes as N grows.
func TestQRRatioFalls(t *testing.T) {
	const P = 4
	prev := 0.0
	for i, n := range []int{16, 48, 128} {
		ratio := qrRatio(t, P, n)
		if ratio <= 1 {
			t.Errorf("N=%d: ratio %.3f, want above 1", n, ratio)
		}
		if i > 0 && ratio >= prev {
			t.Errorf("N=%d: ratio %.3f did not fall from %.3f", n, ratio, prev)
		}
		prev = ratio
	}
}

// TestQRRatioGrowsWithProcs is table 5.2's other direction: at a fixed
// matrix the MPI overhead grows with the processors (128x128: 1.293 at 4,
// 2.546 at 16 in the thesis).
func TestQRRatioGrowsWithProcs(t *testing.T) {
	r4, r16 := qrRatio(t, 4, 64), qrRatio(t, 16, 64)
	if r16 <= r4 {
		t.Errorf("N=64: ratio %.3f at P=16, not above %.3f at P=4", r16, r4)
	}
}

func TestQRBadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  QRConfig
		want string
	}{
		{QRConfig{Procs: 0, N: 8}, "Procs = 0"},
		{QRConfig{Procs: 17, N: 32}, "Procs = 17"},
		{QRConfig{Procs: 4, N: 3}, "N = 3"},
		{QRConfig{Procs: 1, N: 257}, "N = 257"},
	} {
		_, err := RunQR(newChip("4x4"), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "allowed") {
			t.Errorf("%+v: error %v, want one naming %q and the allowed range", c.cfg, err, c.want)
		}
	}
}

func TestQR2DCorrect(t *testing.T) {
	for _, c := range []struct{ P, N int }{{1, 8}, {4, 2}, {4, 9}, {4, 16}, {9, 3}, {9, 17}, {16, 4}, {16, 20}, {16, 33}} {
		res, err := RunQR(newChip("4x4"), QRConfig{Procs: c.P, N: c.N, Grid: "2d", Seed: uint64(c.N)})
		if err != nil {
			t.Fatalf("P=%d N=%d: %v", c.P, c.N, err)
		}
		if !res.Correct || res.Cycles <= 0 || res.Procs != c.P || res.Size != c.N || res.App != "qr" || res.Version != "mpi" {
			t.Errorf("P=%d N=%d: %+v", c.P, c.N, res)
		}
		t.Logf("2d P=%d N=%d: %d cycles, %s", c.P, c.N, res.Cycles, res.Detail)
	}
}

// TestQR2DSameAs1D checks that the 2D grid gives the 1D grid's R
// (up to row signs and rounding: the sums are taken in another order).
func TestQR2DSameAs1D(t *testing.T) {
	for _, c := range []struct{ P, N int }{{4, 12}, {9, 16}, {16, 24}} {
		_, r1, err := runQR(newChip("4x4"), QRConfig{Procs: c.P, N: c.N, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		_, r2, err := runQR(newChip("4x4"), QRConfig{Procs: c.P, N: c.N, Grid: "2d", Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i := 0; i < c.N; i++ {
			s := 1.0
			if (r1.At(i, i) < 0) != (r2.At(i, i) < 0) {
				s = -1
			}
			for j := 0; j < c.N; j++ {
				worst = max(worst, math.Abs(r1.At(i, j)-s*r2.At(i, j)))
			}
		}
		if worst > 1e-10 {
			t.Errorf("P=%d N=%d: 1d and 2d R differ by %.3g", c.P, c.N, worst)
		}
	}
}

// TestQR2DTiming logs 1D against 2D at P=16 (a 4 x 4 grid); it asserts
// only that both are correct.
// TestQR2DOverheadShrinksWithN: the 2d grid pays three collectives per
// column where 1d pays one broadcast; that fixed cost matters less as the
// columns grow, so 2d's time relative to 1d falls with N.
func TestQR2DOverheadShrinksWithN(t *testing.T) {
	const P = 16
	var ratio []float64
	for _, n := range []int{32, 64} {
		var cyc [2]int64
		for i, grid := range []string{"1d", "2d"} {
			res, err := RunQR(newChip("4x4"), QRConfig{Procs: P, N: n, Grid: grid, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Correct {
				t.Fatalf("%s P=%d N=%d: %s", grid, P, n, res.Detail)
			}
			cyc[i] = int64(res.Cycles)
		}
		ratio = append(ratio, float64(cyc[1])/float64(cyc[0]))
		t.Logf("mpi P=%d N=%d: 1d %d cycles, 2d %d cycles, 2d/1d %.3f", P, n, cyc[0], cyc[1], ratio[len(ratio)-1])
	}
	if ratio[1] >= ratio[0] {
		t.Errorf("2d/1d time ratio %.3f at N=32, %.3f at N=64: it should fall as N grows", ratio[0], ratio[1])
	}
}

func TestQR2DBadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  QRConfig
		want string
	}{
		{QRConfig{Procs: 4, N: 8, Grid: "3d"}, `Grid = "3d"`},
		{QRConfig{Procs: 8, N: 8, Grid: "2d"}, "Procs = 8"},
		{QRConfig{Procs: 16, N: 3, Grid: "2d"}, "N = 3"},
		{QRConfig{Procs: 4, N: 257, Grid: "2d"}, "N = 257"},
		{QRConfig{Procs: 8, N: 8, Grid: "2d", Native: true}, "Procs = 8"},
	} {
		_, err := RunQR(newChip("4x4"), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "allowed") {
			t.Errorf("%+v: error %v, want one naming %q and the allowed range", c.cfg, err, c.want)
		}
	}
}

func TestQR2DNativeCorrect(t *testing.T) {
	for _, c := range []struct{ P, N int }{{1, 8}, {4, 2}, {4, 9}, {4, 16}, {9, 3}, {9, 17}, {16, 4}, {16, 20}, {16, 33}} {
		res, err := RunQR(newChip("4x4"), QRConfig{Procs: c.P, N: c.N, Grid: "2d", Native: true, Seed: uint64(c.N)})
		if err != nil {
			t.Fatalf("P=%d N=%d: %v", c.P, c.N, err)
		}
		if !res.Correct || res.Cycles <= 0 || res.Procs != c.P || res.Size != c.N || res.App != "qr" || res.Version != "native" {
			t.Errorf("P=%d N=%d: %+v", c.P, c.N, res)
		}
		t.Logf("2d native P=%d N=%d: %d cycles, %s", c.P, c.N, res.Cycles, res.Detail)
	}
}

// TestQR2DNativeSameAsMPI checks that the native 2D version gives the MPI
// 2D version's R (up to row signs and rounding: the sums are taken in
// another order).
func TestQR2DNativeSameAsMPI(t *testing.T) {
	for _, c := range []struct{ P, N int }{{4, 12}, {9, 16}, {16, 24}} {
		_, r1, err := runQR(newChip("4x4"), QRConfig{Procs: c.P, N: c.N, Grid: "2d", Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		_, r2, err := runQR(newChip("4x4"), QRConfig{Procs: c.P, N: c.N, Grid: "2d", Native: true, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i := 0; i < c.N; i++ {
			s := 1.0
			if (r1.At(i, i) < 0) != (r2.At(i, i) < 0) {
				s = -1
			}
			for j := 0; j < c.N; j++ {
				worst = max(worst, math.Abs(r1.At(i, j)-s*r2.At(i, j)))
			}
		}
		if worst > 1e-10 {
			t.Errorf("P=%d N=%d: mpi and native 2d R differ by %.3g", c.P, c.N, worst)
		}
	}
}

// TestQR2DNativeRatio logs the MPI/native cycle ratio on the 4 x 4 grid;
// like the 1D grid's (table 5.2), MPI is the slower.
func TestQR2DNativeRatio(t *testing.T) {
	const P = 16
	for _, n := range []int{32, 64} {
		var cyc [2]int64
		for i, native := range []bool{false, true} {
			res, err := RunQR(newChip("4x4"), QRConfig{Procs: P, N: n, Grid: "2d", Native: native, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Correct {
				t.Fatalf("native=%v P=%d N=%d: %s", native, P, n, res.Detail)
			}
			cyc[i] = int64(res.Cycles)
		}
		ratio := float64(cyc[0]) / float64(cyc[1])
		t.Logf("2d P=%d N=%d: mpi %d cycles, native %d cycles, mpi/native %.3f", P, n, cyc[0], cyc[1], ratio)
		if ratio <= 1 {
			t.Errorf("2d P=%d N=%d: mpi/native %.3f, want above 1", P, n, ratio)
		}
	}
}

// TestQR2DNativeLarge runs the native 2D grid at the largest N on one
// node and on the 4 x 4 grid: its slots fit the tile heap.
func TestQR2DNativeLarge(t *testing.T) {
	for _, P := range []int{1, 16} {
		res, err := RunQR(newChip("4x4"), QRConfig{Procs: P, N: qrMaxN, Grid: "2d", Native: true, Seed: 2})
		if err != nil {
			t.Fatalf("P=%d: %v", P, err)
		}
		if !res.Correct {
			t.Errorf("P=%d: %s", P, res.Detail)
		}
	}
}
