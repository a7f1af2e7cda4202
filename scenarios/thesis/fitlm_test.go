package thesis

import (
	"math"
	"testing"
)

// The fitter recovers the parameters of a model it can represent exactly:
// times a + b*n + c*n/p over rows (n, p), with a known (a, b, c), from a
// start far away; and reports an RMS near zero there.
func TestFitLogLMRecoversKnownModel(t *testing.T) {
	type row struct{ n, p float64 }
	var rows []row
	for _, n := range []float64{2e3, 5e3, 1e4, 5e4, 5e5} {
		for _, p := range []float64{4, 8, 16} {
			rows = append(rows, row{n, p})
		}
	}
	model := func(x []float64) ([]float64, error) {
		y := make([]float64, len(rows))
		for i, r := range rows {
			y[i] = x[0] + x[1]*r.n + x[2]*r.n/r.p
		}
		return y, nil
	}
	truth := []float64{3000, 2, 40}
	want, _ := model(truth)
	params := []lmParam{{"a", 1, 1e6, false}, {"b", 0.01, 100, false}, {"c", 0.01, 1000, false}}
	fit, err := fitLogLM(model, params, []float64{100, 10, 5}, want, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range truth {
		if math.Abs(fit.X[j]-v)/v > 1e-3 {
			t.Errorf("%s: fitted %v, truth %v", params[j].Name, fit.X[j], v)
		}
	}
	if fit.RMS > 1e-4 {
		t.Errorf("RMS %v at the optimum: want ~0", fit.RMS)
	}
	// Integer parameters land on the nearest integers of the truth.
	params[0].Integer = true
	fit, err = fitLogLM(model, params, []float64{100, 10, 5}, want, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fit.X[0] != math.Round(fit.X[0]) || math.Abs(fit.X[0]-truth[0]) > 2 {
		t.Errorf("integer a: fitted %v, truth %v", fit.X[0], truth[0])
	}
}

// A parameter can fit to 0 (the fit runs in log(1 + x)).
func TestFitLogLMReachesZero(t *testing.T) {
	model := func(x []float64) ([]float64, error) { return []float64{10 + x[0], 20 + 3*x[0], 5 + x[1]}, nil }
	fit, err := fitLogLM(model, []lmParam{{"a", 0, 100, false}, {"b", 0, 100, false}}, []float64{5, 5}, []float64{10, 20, 8}, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fit.X[0] > 1e-3 || math.Abs(fit.X[1]-3) > 1e-3 {
		t.Errorf("fitted %v, want [0 3]", fit.X)
	}
}

// Bounds hold: a parameter whose best value lies outside them ends on the
// bound.
func TestFitLogLMBounds(t *testing.T) {
	model := func(x []float64) ([]float64, error) { return []float64{x[0], 2 * x[0]}, nil }
	fit, err := fitLogLM(model, []lmParam{{"a", 1, 50, false}}, []float64{10}, []float64{100, 200}, 30, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fit.X[0] != 50 {
		t.Errorf("fitted %v: want the bound 50", fit.X[0])
	}
}
