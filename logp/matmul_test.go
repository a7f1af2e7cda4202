package logp

import (
	"math"
	"testing"
)

func TestMatMulTime(t *testing.T) {
	h := Hockney{Ts: 200, Te: 0.25}
	// The formulas, term by term, against values worked out here.
	one, _ := MatMulTime(h, 64, 16, "1d", 1)
	if want := 2*64.0*64*64/16 + 15*(200+8*64*64/16*0.25); math.Abs(one.Cycles-want) > 1e-9 {
		t.Errorf("1d: %v, want %v", one.Cycles, want)
	}
	two, _ := MatMulTime(h, 64, 16, "2d", 1)
	if want := 2*64.0*64*64/16 + 8*(200+8*64*64/16*0.25); math.Abs(two.Cycles-want) > 1e-9 {
		t.Errorf("2d: %v, want %v", two.Cycles, want)
	}
	// The slides' direction: 2d pulls ahead as P grows.
	for _, p := range []int{16, 64, 256} {
		a, _ := MatMulTime(h, 256, p, "1d", 1)
		b, _ := MatMulTime(h, 256, p, "2d", 1)
		if b.Cycles >= a.Cycles {
			t.Errorf("P=%d: 2d %v not below 1d %v", p, b.Cycles, a.Cycles)
		}
	}
	if p1, _ := MatMulTime(h, 8, 1, "2d", 1); p1.Cycles != 2*512 {
		t.Errorf("P=1 has no communication: %v", p1.Cycles)
	}
	for _, c := range []struct {
		n, p int
		d    string
	}{{0, 4, "1d"}, {8, 0, "1d"}, {8, 8, "2d"}, {8, 4, "3d"}} {
		if _, err := MatMulTime(h, c.n, c.p, c.d, 1); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
