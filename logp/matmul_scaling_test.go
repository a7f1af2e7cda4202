package logp

import (
	"math"
	"testing"
)

// The slides' typical machine: t_s/t_proc ~ 10^3, t_e/t_proc ~ 10. With
// t_proc = 2 flop = 2, t_s = 2000 and t_e = 20 per element (2.5 per byte):
// n^3 > 2000 + 10 n^2 first holds at n = 17 (16: 4096 < 4560; 17: 4913 >
// 4890), and at n = 100 the time falls with p up to sqrt(2 * 10^6 / 2000)
// = sqrt(1000).
func TestScalingConditionsSlides(t *testing.T) {
	h := Hockney{Ts: 2000, Te: 2.5}
	s, err := ScalingConditions(h, 100, "1d", 1)
	if err != nil {
		t.Fatal(err)
	}
	if s.Tproc != 2 || s.Te != 20 || s.FirstP != 2 {
		t.Errorf("slides' variables: t_proc %v t_e %v first P %d", s.Tproc, s.Te, s.FirstP)
	}
	if s.MinN != 17 {
		t.Errorf("smallest n for a speedup: %d, want 17", s.MinN)
	}
	if want := math.Sqrt(1000); math.Abs(s.PeakP-want) > 1e-9 {
		t.Errorf("peak P %v, want %v", s.PeakP, want)
	}
}

// The conditions agree with the models they come from: MatMulTime gains at
// MinN and not at MinN-1, and the slides' t_total falls just below PeakP
// and rises just above it.
func TestScalingConditionsAgreeWithModel(t *testing.T) {
	for _, h := range []Hockney{{2000, 2.5}, {300, 0.25}, {50, 4}, {0, 1}} {
		for _, d := range []string{"1d", "2d"} {
			for _, n := range []int{16, 64, 256} {
				s, err := ScalingConditions(h, n, d, 1)
				if err != nil {
					t.Fatal(err)
				}
				gain := func(m int) float64 {
					a, _ := MatMulTime(h, m, 1, d, 1)
					b, _ := MatMulTime(h, m, s.FirstP, d, 1)
					return a.Cycles - b.Cycles
				}
				if gain(s.MinN) <= 0 || s.MinN > 1 && gain(s.MinN-1) > 0 {
					t.Errorf("%v %s: MinN %d: gain %v there, %v below", h, d, s.MinN, gain(s.MinN), gain(s.MinN-1))
				}
				if h.Ts == 0 {
					if !math.IsInf(s.PeakP, 1) {
						t.Errorf("%v %s: t_s = 0 but peak P %v", h, d, s.PeakP)
					}
					continue
				}
				p := s.PeakP
				if !(s.ApproxTotal(p*0.99) > s.ApproxTotal(p) && s.ApproxTotal(p*1.01) > s.ApproxTotal(p)) {
					t.Errorf("%v %s n=%d: t_total not least at peak P %v", h, d, n, p)
				}
			}
		}
	}
}

func TestScalingConditionsBadInput(t *testing.T) {
	for _, c := range []struct {
		h Hockney
		n int
		d string
	}{{Hockney{1, 1}, 0, "1d"}, {Hockney{1, 1}, 8, "3d"}, {Hockney{-1, 1}, 8, "1d"}, {Hockney{math.NaN(), 1}, 8, "2d"}} {
		if _, err := ScalingConditions(c.h, c.n, c.d, 1); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	// No processor time: no n ever gains.
	if s, err := ScalingConditions(Hockney{10, 1}, 8, "1d", 0); err != nil || s.MinN != -1 {
		t.Errorf("flop 0: MinN %d, %v", s.MinN, err)
	}
}
