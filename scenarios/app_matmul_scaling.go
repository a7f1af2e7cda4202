package scenarios

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

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

// WriteMatMulScaling prints the scalability conditions of the rows that
// carry them, one line per decomposition and size.
func WriteMatMulScaling(out io.Writer, rows []AppRow) error {
	seen := map[[2]any]bool{}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := false
	for _, r := range rows {
		s := r.Scaling
		if s == nil || seen[[2]any{s.Decomp, s.N}] {
			continue
		}
		seen[[2]any{s.Decomp, s.N}] = true
		if !head {
			fmt.Fprintln(out, "matrix-multiply scalability (the slides' Hockney conditions; t_proc = 2 flops, t_e per 8-byte element):")
			fmt.Fprintln(tw, "decomp\tn\tt_proc\tt_s\tt_e\tspeedup from n\tat P\ttime falls up to P\t")
			fmt.Fprintln(tw, "\t\t(cycles)\t(cycles)\t(cycles)\t\t\t\t")
			head = true
		}
		minN, peak := "never", "unbounded"
		if s.MinN > 0 {
			minN = fmt.Sprint(s.MinN)
		}
		if !math.IsInf(s.PeakP, 0) {
			peak = fmt.Sprintf("%.1f", s.PeakP)
		}
		fmt.Fprintf(tw, "%s\t%d\t%g\t%.1f\t%.2f\t%s\t1->%d\t%s\t\n", s.Decomp, s.N, s.Tproc, s.Ts, s.Te, minN, s.FirstP, peak)
	}
	return tw.Flush()
}
