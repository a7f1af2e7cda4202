package logp

import (
	"fmt"
	"math"
)

// MatMulTime is the Hockney-model time of C = A x B (n x n, float64) on P
// processors, as the slides analyse it: the local multiply (2 n^3 / P
// flops at flop cycles each) plus the messages of the decomposition.
//
//	1d (row slices, B circulating around a ring): P-1 steps, each sending
//	   a slice of n^2/P elements: (P-1) (t_s + 8 n^2/P t_e)
//	2d (Cannon on a sqrt(P) x sqrt(P) grid): an initial skew and
//	   sqrt(P)-1 steps, each shifting two blocks of n^2/P elements:
//	   2 sqrt(P) (t_s + 8 n^2/P t_e)
//
// The 1d term grows like n^2 with P's bandwidth cost flat while its
// startups grow like P; the 2d one sends sqrt(P) times fewer messages,
// which is why 2d wins as P grows.
func MatMulTime(h Hockney, n, p int, decomp string, flop float64) (Prediction, error) {
	if n < 1 || p < 1 {
		return Prediction{}, fmt.Errorf("matmul: n = %d, P = %d: both must be >= 1", n, p)
	}
	block := 8 * float64(n) * float64(n) / float64(p)
	compute := Term{Name: "2 n^3/P flops", Cycles: 2 * math.Pow(float64(n), 3) / float64(p) * flop}
	var comm Term
	switch decomp {
	case "1d":
		comm = Term{Name: "(P-1) x (t_s + 8n^2/P t_e)", Cycles: float64(p-1) * (h.Ts + block*h.Te)}
	case "2d":
		q := math.Sqrt(float64(p))
		if q != math.Trunc(q) {
			return Prediction{}, fmt.Errorf("matmul 2d: P = %d is not a perfect square", p)
		}
		steps := 0.0
		if p > 1 {
			steps = 2 * q
		}
		comm = Term{Name: "2 sqrt(P) x (t_s + 8n^2/P t_e)", Cycles: steps * (h.Ts + block*h.Te)}
	default:
		return Prediction{}, fmt.Errorf("matmul: decomposition %q: allowed 1d, 2d", decomp)
	}
	return Prediction{Cycles: compute.Cycles + comm.Cycles, Terms: []Term{compute, comm}}, nil
}

// Hockney reduces LogGP parameters to Hockney's two for messages of about m
// bytes over the average distance: t_s the one-way time of a 1-byte
// message, t_e the per-byte cost of the segment m falls in.
func (p Params) Hockney(m int) Hockney {
	return Hockney{Ts: p.PointToPoint(1, p.AvgHops), Te: p.Seg(m).G}
}
