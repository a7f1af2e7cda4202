package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"nocsim/logp"
	"nocsim/plots"
	"nocsim/router"
)

// Apps lists the applications `nocsim app` runs, with their variants.
var Apps = map[string][]string{
	"cg":        {""},
	"qr":        {"1d", "2d"},
	"matmul":    {"1d", "2d"},
	"globalsum": {"serial", "hypercube"},
}

// AppSweep runs an application over rank counts, sizes and versions.
type AppSweep struct {
	App      string
	Variant  string // qr: 1d or 2d grid; matmul: 1d or 2d; globalsum: serial or hypercube
	Procs    []int
	Sizes    []int    // cg: unknowns; matmul: matrix order; globalsum: vector length
	Versions []string // mpi, native
	Seed     uint64
	// Params, when set, adds the Hockney prediction of the slides to
	// matrix-multiply runs (t_s and t_e from the LogGP parameters).
	Params *logp.Params
}

// AppRow is one run. Speedup is against the same version and size at the
// smallest P of the sweep (the baseline, stated in BaselineProcs);
// MPIOverNative is the MPI version's time over the native one's at the
// same P and size, the layout of thesis tables 5.1 and 5.2.
type AppRow struct {
	App           string  `json:"app"`
	Variant       string  `json:"variant,omitempty"`
	Version       string  `json:"version"`
	Procs         int     `json:"procs"`
	Size          int     `json:"size"`
	Cycles        int64   `json:"cycles"`
	Seconds       float64 `json:"seconds"`
	Correct       bool    `json:"correct"`
	Detail        string  `json:"detail"`
	BaselineProcs int     `json:"baseline_procs"`
	Speedup       float64 `json:"speedup"`
	Efficiency    float64 `json:"efficiency"`
	MPIOverNative float64 `json:"mpi_over_native,omitempty"`
	Hockney       float64 `json:"hockney_cycles,omitempty"` // matmul with parameters: the slides' prediction
}

// Check validates the sweep (each run also validates its own
// configuration before anything is simulated).
func (s *AppSweep) Check(sc *Scenario, src Source) error {
	if err := sc.checkMachine(src); err != nil {
		return err
	}
	bad := func(key string, v any, allowed string) error {
		return &router.KeyError{Key: key, Value: fmt.Sprint(v), Allowed: allowed}
	}
	variants, ok := Apps[s.App]
	switch {
	case !ok:
		return bad("app", s.App, "cg, qr, matmul, globalsum")
	case !slices.Contains(variants, s.Variant):
		return bad("variant", s.Variant, strings.Join(variants, ", "))
	case len(s.Procs) == 0:
		return bad("procs", "[]", "one or more rank counts")
	case len(s.Sizes) == 0:
		return bad("sizes", "[]", "one or more problem sizes")
	case len(s.Versions) == 0:
		return bad("versions", "[]", "mpi, native")
	}
	for _, v := range s.Versions {
		if v != "mpi" && v != "native" {
			return bad("versions", v, "mpi, native")
		}
	}
	if s.Variant == "2d" {
		for _, p := range s.Procs {
			if q := int(math.Sqrt(float64(p))); q*q != p {
				return bad("procs", p, "perfect squares (1, 4, 9, 16, ...) for the 2d variant")
			}
		}
	}
	// Each configuration's own check, without running it.
	for _, p := range s.Procs {
		for _, n := range s.Sizes {
			if err := s.validate(sc, p, n); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *AppSweep) validate(sc *Scenario, p, n int) error {
	m, _ := ParseMesh(sc.Network.Mesh)
	switch {
	case p < 1 || p > m.Nodes():
		return &router.KeyError{Key: "procs", Value: fmt.Sprint(p), Allowed: fmt.Sprintf("1..%d (the tiles of the mesh)", m.Nodes())}
	case n < 1:
		return &router.KeyError{Key: "sizes", Value: fmt.Sprint(n), Allowed: ">= 1"}
	}
	return nil
}

func (s *AppSweep) runOne(sc *Scenario, version string, p, n int) (AppResult, error) {
	native := version == "native"
	switch s.App {
	case "cg":
		return RunCG(sc, CGConfig{Procs: p, N: n, Tol: 1e-8, MaxIter: 10 * n, Native: native, Seed: s.Seed})
	case "qr":
		return RunQR(sc, QRConfig{Procs: p, N: n, Native: native, Seed: s.Seed, Grid: s.Variant})
	case "matmul":
		return RunMatMul(sc, MatMulConfig{Procs: p, N: n, Decomp: s.Variant, Native: native, Seed: s.Seed})
	default:
		return RunGlobalSum(sc, GlobalSumConfig{Procs: p, N: n, Method: s.Variant, Native: native, Seed: s.Seed})
	}
}

// Run simulates every (version, P, size) in parallel across cores; rows
// come in that order whatever the number of workers.
func (s *AppSweep) Run(sc *Scenario, opt RunOptions) ([]AppRow, error) {
	type job struct {
		version string
		p, n    int
	}
	var jobs []job
	for _, v := range s.Versions {
		for _, p := range s.Procs {
			for _, n := range s.Sizes {
				jobs = append(jobs, job{v, p, n})
			}
		}
	}
	rows := make([]AppRow, len(jobs))
	errs := make([]error, len(jobs))
	forEach(len(jobs), opt, func(i int) error {
		j := jobs[i]
		res, err := s.runOne(sc, j.version, j.p, j.n)
		if err != nil {
			errs[i] = fmt.Errorf("%s %s, P=%d, size %d: %w", s.App, j.version, j.p, j.n, err)
			return errs[i]
		}
		rows[i] = AppRow{App: s.App, Variant: s.Variant, Version: j.version, Procs: j.p, Size: j.n,
			Cycles: int64(res.Cycles), Seconds: float64(res.Cycles) / sc.Node.ClockHz, Correct: res.Correct, Detail: res.Detail}
		if s.App == "matmul" && s.Params != nil {
			block := 8 * j.n * j.n / j.p
			pr, err := logp.MatMulTime(s.Params.Hockney(block), j.n, j.p, s.Variant, float64(sc.Node.FlopCycles))
			if err != nil {
				errs[i] = err
				return err
			}
			rows[i].Hockney = pr.Cycles
		}
		return nil
	})
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	base := slices.Min(s.Procs)
	find := func(version string, p, n int) *AppRow {
		for i := range rows {
			if r := &rows[i]; r.Version == version && r.Procs == p && r.Size == n {
				return r
			}
		}
		return nil
	}
	for i := range rows {
		r := &rows[i]
		r.BaselineProcs = base
		if b := find(r.Version, base, r.Size); b != nil && r.Cycles > 0 {
			r.Speedup = float64(base) * float64(b.Cycles) / float64(r.Cycles)
			r.Efficiency = r.Speedup / float64(r.Procs)
		}
		if r.Version == "mpi" {
			if nat := find("native", r.Procs, r.Size); nat != nil && nat.Cycles > 0 {
				r.MPIOverNative = float64(r.Cycles) / float64(nat.Cycles)
			}
		}
	}
	return rows, nil
}

// SpeedupChart draws speedup against P per version and size, with the
// ideal line; the baseline is the smallest P of the sweep, scaled so that
// it counts as that many ranks' worth of speed.
func SpeedupChart(rows []AppRow) plots.Chart {
	c := plots.Chart{Title: fmt.Sprintf("%s speedup (baseline: P=%d, same version)", appName(rows), rows[0].BaselineProcs),
		XLabel: "ranks (P)", YLabel: "speedup (baseline P x T(baseline) / T(P))",
		Series: seriesByVersion(rows, func(r AppRow) float64 { return r.Speedup })}
	var ideal plots.Series
	seen := map[int]bool{}
	for _, r := range rows {
		if !seen[r.Procs] {
			seen[r.Procs] = true
			ideal.X = append(ideal.X, float64(r.Procs))
			ideal.Y = append(ideal.Y, float64(r.Procs))
		}
	}
	slices.Sort(ideal.X)
	slices.Sort(ideal.Y)
	ideal.Name, ideal.Dashed = "ideal", true
	// Where the Hockney model predicts the time, its speedup goes dashed
	// beside the simulated one.
	var out []plots.Series
	for _, sr := range c.Series {
		out = append(out, sr)
		m := plots.Series{Name: sr.Name + " (Hockney)", Dashed: true, Companion: true}
		for _, r := range rows {
			if fmt.Sprintf("%s, size %d", r.Version, r.Size) != sr.Name || r.Hockney <= 0 {
				continue
			}
			for _, b := range rows {
				if b.Version == r.Version && b.Size == r.Size && b.Procs == r.BaselineProcs && b.Hockney > 0 {
					m.X = append(m.X, float64(r.Procs))
					m.Y = append(m.Y, float64(r.BaselineProcs)*b.Hockney/r.Hockney)
				}
			}
		}
		if len(m.X) > 0 {
			out = append(out, m)
		}
	}
	c.Series = append(out, ideal)
	return c
}

// EfficiencyChart draws parallel efficiency (speedup / P) against P per
// version and size; the baseline is the same as SpeedupChart's.
func EfficiencyChart(rows []AppRow) plots.Chart {
	return plots.Chart{Title: fmt.Sprintf("%s efficiency (baseline: P=%d, same version)", appName(rows), rows[0].BaselineProcs),
		XLabel: "ranks (P)", YLabel: "efficiency (speedup / P)",
		Series: seriesByVersion(rows, func(r AppRow) float64 { return r.Efficiency })}
}

// seriesByVersion is one line against P per version and size, named as
// SpeedupChart's Hockney companions expect.
func seriesByVersion(rows []AppRow, y func(AppRow) float64) []plots.Series {
	var out []plots.Series
	idx := map[string]int{}
	for _, r := range rows {
		key := fmt.Sprintf("%s, size %d", r.Version, r.Size)
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, plots.Series{Name: key})
		}
		out[i].X = append(out[i].X, float64(r.Procs))
		out[i].Y = append(out[i].Y, y(r))
	}
	return out
}

// RatioChart draws the MPI version's time over the native one's against
// problem size, one line per P: the layout of thesis tables 5.1 and 5.2.
// It has no series when the sweep ran only one version.
func RatioChart(rows []AppRow) plots.Chart {
	c := plots.Chart{Title: appName(rows) + ": MPI time / native time", XLabel: "problem size", YLabel: "MPI / native (time ratio)"}
	idx := map[int]int{}
	for _, r := range rows {
		if r.MPIOverNative <= 0 {
			continue
		}
		i, ok := idx[r.Procs]
		if !ok {
			i = len(c.Series)
			idx[r.Procs] = i
			c.Series = append(c.Series, plots.Series{Name: fmt.Sprintf("P=%d", r.Procs)})
		}
		c.Series[i].X = append(c.Series[i].X, float64(r.Size))
		c.Series[i].Y = append(c.Series[i].Y, r.MPIOverNative)
	}
	return c
}

func appName(rows []AppRow) string {
	if rows[0].Variant != "" {
		return rows[0].App + " " + rows[0].Variant
	}
	return rows[0].App
}
