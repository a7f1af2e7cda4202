package calibrate

import (
	"errors"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Estimate is a fitted value and the half-width of its 95% confidence
// interval (Student's t on the regression's standard error). CI95 is NaN
// when the data leave no degree of freedom to estimate the error (as many
// points as parameters): the value is then exact for the data but its
// uncertainty unknown. A perfect fit has CI95 = 0.
type Estimate struct {
	Value float64
	CI95  float64
}

// MarshalJSON writes an unknown value or interval (NaN) as null: JSON
// has no NaN.
func (e Estimate) MarshalJSON() ([]byte, error) {
	num := func(x float64) string {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "null"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	// The unit is the enclosing key's (L_cycles, G_cycles_per_byte, ...).
	return []byte(`{"value":` + num(e.Value) + `,"ci95":` + num(e.CI95) + `}`), nil
}

// linfit is a weighted least-squares fit y ≈ X·beta.
type linfit struct {
	beta, se []float64
	dof      int // residual degrees of freedom: points - parameters
	resid    []float64
}

// ci is the 95% confidence half-width of coefficient j.
func (f linfit) ci(j int) float64 {
	if f.dof < 1 {
		return math.NaN()
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(f.dof)}.Quantile(0.975)
	return t * f.se[j]
}

func (f linfit) est(j int) Estimate { return Estimate{f.beta[j], f.ci(j)} }

var errSingular = errors.New("the measurements do not determine the parameters")

// wls solves the weighted least-squares problem min Σ w_i (y_i - x_i·β)²
// with its covariance s²(XᵀWX)⁻¹. gonum's stat.LinearRegression fits one
// regressor without standard errors; the one-way time has up to three
// (intercept, hops, bytes) and the CIs need the covariance, hence QR here.
// Columns are scaled to a maximum of 1 first: bytes reach 65536 while the
// intercept column is 1, and the scaling keeps XᵀWX well conditioned.
func wls(x [][]float64, y, w []float64) (linfit, error) {
	n, p := len(y), len(x[0])
	if n < p {
		return linfit{}, errSingular
	}
	scale := make([]float64, p)
	for j := range p {
		for i := range n {
			scale[j] = max(scale[j], math.Abs(x[i][j]))
		}
		if scale[j] == 0 {
			return linfit{}, errSingular
		}
	}
	a := mat.NewDense(n, p, nil)
	b := mat.NewVecDense(n, nil)
	for i := range n {
		sw := math.Sqrt(w[i])
		for j := range p {
			a.Set(i, j, sw*x[i][j]/scale[j])
		}
		b.SetVec(i, sw*y[i])
	}
	var qr mat.QR
	qr.Factorize(a)
	var beta mat.VecDense
	if err := qr.SolveVecTo(&beta, false, b); err != nil {
		return linfit{}, errSingular
	}
	var ata, inv mat.Dense
	ata.Mul(a.T(), a)
	if err := inv.Inverse(&ata); err != nil {
		return linfit{}, errSingular
	}
	f := linfit{beta: make([]float64, p), se: make([]float64, p), dof: n - p, resid: make([]float64, n)}
	var ss float64
	for i := range n {
		pred := 0.0
		for j := range p {
			pred += x[i][j] / scale[j] * beta.AtVec(j)
		}
		f.resid[i] = y[i] - pred
		ss += w[i] * f.resid[i] * f.resid[i]
	}
	s2 := math.NaN()
	if f.dof > 0 {
		s2 = ss / float64(f.dof)
	}
	for j := range p {
		f.beta[j] = beta.AtVec(j) / scale[j]
		f.se[j] = math.Sqrt(s2*inv.At(j, j)) / scale[j]
	}
	return f, nil
}

// line fits y = a + b·(m-1) with relative weights 1/y², so that small and
// large messages count alike; it returns the intercept (the value for a
// 1-byte message) and the slope. A single size gives its value as the
// intercept, with an unknown CI and no slope.
func line(m []int, y []float64) (a, b Estimate, err error) {
	if len(y) == 0 {
		return Estimate{}, Estimate{}, errSingular
	}
	distinct := map[int]bool{}
	for _, s := range m {
		distinct[s] = true
	}
	if len(distinct) == 1 {
		return Estimate{meanOf(y), math.NaN()}, Estimate{0, math.NaN()}, nil
	}
	x := make([][]float64, len(y))
	w := make([]float64, len(y))
	for i := range y {
		x[i] = []float64{1, float64(max(m[i], 1) - 1)}
		w[i] = relWeight(y[i])
	}
	f, err := wls(x, y, w)
	if err != nil {
		return Estimate{}, Estimate{}, err
	}
	return f.est(0), f.est(1), nil
}

// relWeight is the weight that makes a squared residual a squared relative
// error; zero times (which the CSV allows) count as one cycle.
func relWeight(y float64) float64 { return 1 / max(y*y, 1) }

func meanOf(y []float64) float64 {
	s := 0.0
	for _, v := range y {
		s += v
	}
	return s / float64(len(y))
}

// sumCI combines confidence half-widths of independent estimates that are
// added or subtracted (in quadrature); unknown stays unknown.
func sumCI(cis ...float64) float64 {
	s := 0.0
	for _, c := range cis {
		s += c * c
	}
	return math.Sqrt(s)
}
