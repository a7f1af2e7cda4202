package thesis

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// lmParam is one parameter of a least-squares fit: its name, bounds and
// whether the model takes it as an integer (cycles). Fits run in
// u = log(1 + x), so that a parameter moves by factors when it is large
// and can still reach 0 (bounds must be >= 0).
type lmParam struct {
	Name     string
	Min, Max float64
	Integer  bool
}

// lmFit is a fit's outcome: the parameters, the model's values there,
// the residuals (log of model over reference) and their root mean square.
type lmFit struct {
	X, Model, Resid []float64
	RMS             float64
	Evals, Steps    int
}

// fitLogLM fits the parameters x (starting at x0) so that model(x) comes
// close to want in relative terms: it minimises the sum over cells of
// (log model_i - log want_i)^2 by Levenberg-Marquardt in log(1 + x), each step a damped linear least-squares problem solved by gonum
// (mat.Dense.Solve) with a Jacobian from forward differences. The model is
// a simulation, so every evaluation counts: steps stop after maxSteps, or
// when a step improves the RMS by less than 0.1%.
func fitLogLM(model func(x []float64) ([]float64, error), params []lmParam, x0, want []float64, maxSteps int, progress func(step int, rms float64)) (lmFit, error) {
	n, m := len(params), len(want)
	for i, w := range want {
		if !(w > 0) {
			return lmFit{}, fmt.Errorf("fit: reference value %d is %v: allowed > 0", i, w)
		}
	}
	fix := func(u []float64) []float64 { // log-space point -> model parameters
		x := make([]float64, n)
		for j, p := range params {
			v := math.Min(math.Max(math.Expm1(u[j]), p.Min), p.Max)
			if p.Integer {
				v = math.Round(v)
			}
			x[j] = v
		}
		return x
	}
	fit := lmFit{}
	eval := func(x []float64) ([]float64, float64, error) {
		fit.Evals++
		y, err := model(x)
		if err != nil {
			return nil, 0, err
		}
		if len(y) != m {
			return nil, 0, fmt.Errorf("fit: model gave %d values, want %d", len(y), m)
		}
		r := make([]float64, m)
		ss := 0.0
		for i := range y {
			if !(y[i] > 0) {
				return nil, 0, fmt.Errorf("fit: model value %d is %v at %v", i, y[i], x)
			}
			r[i] = math.Log(y[i] / want[i])
			ss += r[i] * r[i]
		}
		return r, math.Sqrt(ss / float64(m)), nil
	}
	u := make([]float64, n)
	for j := range u {
		u[j] = math.Log1p(x0[j])
	}
	x := fix(u)
	r, rms, err := eval(x)
	if err != nil {
		return fit, err
	}
	lambda := 1e-2
	for step := 0; step < maxSteps; step++ {
		if progress != nil {
			progress(step, rms)
		}
		J, err := lmJacobian(params, x, r, eval)
		if err != nil {
			return fit, err
		}
		improved := false
		for try := 0; try < 6 && !improved; try++ {
			un, err := lmStep(J, r, u, lambda)
			if err != nil {
				return fit, fmt.Errorf("fit: step %d: %w", step, err)
			}
			xn := fix(un)
			rn, rmsn, err := eval(xn)
			if err != nil {
				return fit, err
			}
			if rmsn < rms {
				improved = true
				gain := (rms - rmsn) / rms
				for j := range un { // clamp u to what was evaluated
					un[j] = math.Log1p(xn[j])
				}
				u, x, r, rms = un, xn, rn, rmsn
				lambda = math.Max(lambda/10, 1e-6)
				fit.Steps++
				if gain < 1e-3 {
					step = maxSteps
				}
			} else {
				lambda *= 10
			}
		}
		if !improved {
			break
		}
	}
	fit.X, fit.Resid, fit.RMS = x, r, rms
	fit.Model = make([]float64, m)
	for i := range r {
		fit.Model[i] = want[i] * math.Exp(r[i])
	}
	return fit, nil
}

// lmJacobian is the Jacobian of the residuals r at x in log-parameter
// space, by a forward step of 0.1 in log1p (backward where the forward
// step would leave the bounds; whole steps for integer parameters).
func lmJacobian(params []lmParam, x, r []float64, eval func([]float64) ([]float64, float64, error)) (*mat.Dense, error) {
	m, n := len(r), len(params)
	J := mat.NewDense(m, n, nil)
	for j, p := range params {
		xj := append([]float64(nil), x...)
		xj[j] = math.Expm1(math.Log1p(x[j]) + 0.1)
		if p.Integer {
			xj[j] = math.Max(math.Round(xj[j]), x[j]+1)
		}
		if xj[j] > p.Max { // step down instead, inside the bounds
			xj[j] = math.Expm1(math.Log1p(x[j]) - 0.1)
			if p.Integer {
				xj[j] = math.Min(math.Round(xj[j]), x[j]-1)
			}
		}
		h := math.Log1p(xj[j]) - math.Log1p(x[j])
		rj, _, err := eval(xj)
		if err != nil {
			return nil, err
		}
		for i := range rj {
			J.Set(i, j, (rj[i]-r[i])/h)
		}
	}
	return J, nil
}

// lmStep is the damped step from the log-space point u: it minimises
// |J d + r|^2 + lambda |d|^2, written as one stacked least-squares
// problem, and returns u + d.
func lmStep(J *mat.Dense, r, u []float64, lambda float64) ([]float64, error) {
	m, n := J.Dims()
	A := mat.NewDense(m+n, n, nil)
	A.Slice(0, m, 0, n).(*mat.Dense).Copy(J)
	b := mat.NewVecDense(m+n, nil)
	for i := range r {
		b.SetVec(i, -r[i])
	}
	for j := range n {
		A.Set(m+j, j, math.Sqrt(lambda))
	}
	var d mat.VecDense
	if err := d.SolveVec(A, b); err != nil {
		return nil, err
	}
	un := make([]float64, n)
	for j := range un {
		un[j] = u[j] + d.AtVec(j)
	}
	return un, nil
}
