package logp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// Hockney is the linear model t(m) = Ts + m*Te: a start-up time Ts
// (cycles) and a time per byte Te (cycles/byte). It ignores contention and
// overlap, which is why it suits long, rare messages and not collectives
// of short ones (LogP's domain).
type Hockney struct{ Ts, Te float64 }

// Time is the model's transfer time of an m-byte message, in cycles.
func (h Hockney) Time(m int) float64 { return h.Ts + float64(m)*h.Te }

// FitHockney fits Ts and Te to measured (size, time) pairs by ordinary
// least squares. At least two distinct sizes are needed: with one the
// slope is undetermined. The fit is reported as is, even when noise makes
// Ts or Te negative, so the caller sees how poor the data are.
func FitHockney(sizes []int, times []float64) (Hockney, error) {
	if len(sizes) != len(times) {
		return Hockney{}, fmt.Errorf("FitHockney: %d sizes but %d times", len(sizes), len(times))
	}
	xs := make([]float64, len(sizes))
	distinct := map[int]bool{}
	for i, m := range sizes {
		if m < 0 {
			return Hockney{}, fmt.Errorf("FitHockney: size %d at index %d: allowed >= 0 bytes", m, i)
		}
		if math.IsNaN(times[i]) || math.IsInf(times[i], 0) {
			return Hockney{}, fmt.Errorf("FitHockney: time %v at index %d is not a finite number of cycles", times[i], i)
		}
		xs[i] = float64(m)
		distinct[m] = true
	}
	if len(distinct) < 2 {
		return Hockney{}, fmt.Errorf("FitHockney: %d distinct message sizes: at least 2 are needed to separate Ts from Te", len(distinct))
	}
	ts, te := stat.LinearRegression(xs, times, nil, false)
	return Hockney{Ts: ts, Te: te}, nil
}
