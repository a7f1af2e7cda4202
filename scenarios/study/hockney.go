package study

import (
	"fmt"
	"math"
	"slices"

	"nocsim/calibrate"
	"nocsim/logp"
)

// HockneyFit is Hockney's t_s and t_e fitted by least squares to one-way
// times of a calibration: the slides' linear model t(m) = t_s + m t_e.
type HockneyFit struct {
	logp.Hockney
	Source string    // what the times came from
	Sizes  []int     // bytes
	Times  []float64 // one-way cycles at Sizes
}

// FitHockneyMeasured fits the one-way times (half the round trips) of the
// measurements, those hops apart when hops >= 0, all of them when hops < 0.
func FitHockneyMeasured(ms []calibrate.Measurement, hops int, source string) (HockneyFit, error) {
	f := HockneyFit{Source: source}
	for _, m := range ms {
		if m.Kind == calibrate.KindRTT && (hops < 0 || m.Hops == hops) {
			f.Sizes = append(f.Sizes, m.Bytes)
			f.Times = append(f.Times, m.Cycles/2)
		}
	}
	if len(f.Sizes) == 0 {
		var have []int
		for _, m := range ms {
			if m.Kind == calibrate.KindRTT && !slices.Contains(have, m.Hops) {
				have = append(have, m.Hops)
			}
		}
		slices.Sort(have)
		return f, fmt.Errorf("no round trip (kind %q) at %d hops: the measurements have hops %v", calibrate.KindRTT, hops, have)
	}
	var err error
	f.Hockney, err = logp.FitHockney(f.Sizes, f.Times)
	return f, err
}

// FitHockneyParams fits the LogGP parameters' one-way times at the sizes
// they were fitted to, hops apart: the calibration seen through Hockney's
// two parameters (which flattens LogGP's segments into one line).
func FitHockneyParams(p logp.Params, hops float64, source string) (HockneyFit, error) {
	f := HockneyFit{Source: source, Sizes: slices.Clone(p.Sizes)}
	if !(hops >= 0) || math.IsInf(hops, 0) {
		return f, fmt.Errorf("hops = %v: allowed >= 0", hops)
	}
	for _, m := range f.Sizes {
		f.Times = append(f.Times, p.PointToPoint(m, hops))
	}
	var err error
	if f.Hockney, err = logp.FitHockney(f.Sizes, f.Times); err != nil {
		return f, fmt.Errorf("the parameters record sizes %v: %v", p.Sizes, err)
	}
	return f, nil
}
