package study

import (
	"nocsim/logp"
)

// matMulScaling is the slides' scalability conditions for a matrix of
// order n, with t_s and t_e the parameters' Hockney reduction for the
// block the first upgrade sends (n^2/2 elements for 1d, n^2/4 for 2d).
func matMulScaling(p logp.Params, n int, decomp string, flop float64) (*logp.MatMulScaling, error) {
	first := 2
	if decomp == "2d" {
		first = 4
	}
	s, err := logp.ScalingConditions(p.Hockney(8*n*n/first), n, decomp, flop)
	if err != nil {
		return nil, err
	}
	return &s, nil
}
