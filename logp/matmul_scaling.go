package logp

import (
	"encoding/json"
	"fmt"
	"math"
)

// MatMulScaling is the slides' two scalability conditions for C = A x B
// (n x n) under the Hockney model, in the slides' own variables:
//
//	t_proc: cycles per multiply-add of the n^3 term (2 flops here),
//	t_s:    start-up time of a message (cycles),
//	t_e:    time per matrix element (cycles; 8 bytes of float64).
//
// MinN is the first condition: the smallest n for which the first
// upgrade (1 to 2 processors for 1d, 1 to 4 for 2d, the smallest square
// above 1) gives a speedup. For 1d that is the slides'
//
//	t_proc n^3/2 - t_s - t_e n^2/2 > 0,  i.e.  n^3 > 2 t_s/t_proc + (t_e/t_proc) n^2.
//
// PeakP is the second: where t_total stops falling with p, for the
// slides' approximate totals
//
//	1d: t_proc n^3/p + t_s p + t_e n^2:               dt/dp = t_s - t_proc n^3/p^2 = 0
//	    at p = sqrt(t_proc n^3 / t_s) (the slides' (t_s/t_proc)(p/n)^2/n < 1);
//	2d: t_proc n^3/p + 2 t_s sqrt(p) + 2 t_e n^2/sqrt(p): dt/dp = 0
//	    where x = sqrt(p) solves t_s x^3 - t_e n^2 x - t_proc n^3 = 0.
//
// Below PeakP more processors help; above it they hurt. PeakP is +Inf
// when t_s = 0 (nothing grows with p).
type MatMulScaling struct {
	Decomp string  `json:"decomposition"`
	N      int     `json:"n"`
	Tproc  float64 `json:"t_proc_cycles"`
	Ts     float64 `json:"t_s_cycles"`
	Te     float64 `json:"t_e_cycles_per_element"`
	MinN   int     `json:"min_n_for_speedup"`
	FirstP int     `json:"first_upgrade_procs"` // 2 (1d) or 4 (2d): the upgrade MinN is about
	PeakP  float64 `json:"-"`                   // +Inf: no peak (JSON: null)
}

// matMulMaxN bounds the search for MinN: beyond it the condition is
// reported as unreachable (a t_proc of 0 against a positive t_s).
const matMulMaxN = 1 << 30

// ScalingConditions computes the slides' conditions for matrix order n
// with Hockney parameters h (t_e per byte, as Hockney holds it) and flop
// cycles per floating-point operation, so that they agree with MatMulTime.
func ScalingConditions(h Hockney, n int, decomp string, flop float64) (MatMulScaling, error) {
	if n < 1 {
		return MatMulScaling{}, fmt.Errorf("matmul scaling: n = %d: allowed >= 1", n)
	}
	if !(h.Ts >= 0) || !(h.Te >= 0) || !(flop >= 0) || math.IsInf(h.Ts+h.Te+flop, 0) {
		return MatMulScaling{}, fmt.Errorf("matmul scaling: t_s = %v, t_e = %v, flop = %v: allowed finite and >= 0 cycles", h.Ts, h.Te, flop)
	}
	s := MatMulScaling{Decomp: decomp, N: n, Tproc: 2 * flop, Ts: h.Ts, Te: 8 * h.Te}
	switch decomp {
	case "1d":
		s.FirstP = 2
	case "2d":
		s.FirstP = 4
	default:
		return MatMulScaling{}, fmt.Errorf("matmul scaling: decomposition %q: allowed 1d, 2d", decomp)
	}
	// The gain of the first upgrade, from MatMulTime itself, is
	// a m^3 - b m^2 - c with a, b, c >= 0: negative up to its one positive
	// root and increasing after it, so the first m where it is positive
	// is found by doubling then bisection.
	gain := func(m int) float64 {
		one, _ := MatMulTime(h, m, 1, decomp, flop)
		up, _ := MatMulTime(h, m, s.FirstP, decomp, flop)
		return one.Cycles - up.Cycles
	}
	hi := 1
	for gain(hi) <= 0 && hi < matMulMaxN {
		hi *= 2
	}
	if gain(hi) <= 0 {
		s.MinN = -1 // never: no n up to matMulMaxN gives a speedup
	} else {
		lo := hi / 2 // gain(lo) <= 0 unless lo == 0
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if gain(mid) > 0 {
				hi = mid
			} else {
				lo = mid
			}
		}
		s.MinN = hi
	}
	nf := float64(n)
	switch {
	case s.Ts == 0:
		s.PeakP = math.Inf(1)
	case decomp == "1d":
		s.PeakP = math.Sqrt(s.Tproc * nf * nf * nf / s.Ts)
	default:
		// f(x) = t_s x^3 - t_e n^2 x - t_proc n^3 has f(0) <= 0 and one
		// positive root (one sign change): bisect on [0, hi] with f(hi) > 0.
		f := func(x float64) float64 { return s.Ts*x*x*x - s.Te*nf*nf*x - s.Tproc*nf*nf*nf }
		lo, hi := 0.0, 1.0
		for f(hi) <= 0 {
			hi *= 2
		}
		for range 200 {
			mid := (lo + hi) / 2
			if f(mid) > 0 {
				hi = mid
			} else {
				lo = mid
			}
		}
		s.PeakP = hi * hi
	}
	return s, nil
}

// ApproxTotal is the slides' approximate t_total at p processors, the
// function whose minimum PeakP is.
func (s MatMulScaling) ApproxTotal(p float64) float64 {
	nf := float64(s.N)
	if s.Decomp == "1d" {
		return s.Tproc*nf*nf*nf/p + s.Ts*p + s.Te*nf*nf
	}
	return s.Tproc*nf*nf*nf/p + 2*s.Ts*math.Sqrt(p) + 2*s.Te*nf*nf/math.Sqrt(p)
}

// MarshalJSON writes PeakP as null when it is unbounded (JSON has no
// infinity).
func (s MatMulScaling) MarshalJSON() ([]byte, error) {
	type plain MatMulScaling
	out := struct {
		plain
		PeakP *float64 `json:"peak_procs"`
	}{plain: plain(s)}
	if !math.IsInf(s.PeakP, 0) {
		out.PeakP = &s.PeakP
	}
	return json.Marshal(out)
}
