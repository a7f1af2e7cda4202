package study

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"nocsim/config"
	"nocsim/logp"
	"nocsim/mpi"
	"nocsim/scenarios"
	"nocsim/scenarios/apps"
	"nocsim/scenarios/report"
)

// Apps lists the applications `nocsim app` runs, with their variants.
var Apps = map[string][]string{
	"cg":        {"", "thesis"},
	"qr":        {"1d", "2d", "thesis"},
	"matmul":    {"1d", "2d"},
	"globalsum": {"serial", "hypercube", "breakeven", "onesided", "accumulate", "rma"},
	"halo":      {"compare", "twosided", "fence", "pscw"},
}

// VariantsText lists an application's variants for an error message,
// naming CG's default variant, whose name is empty, as "" with what it is
// (a bare join would read "allowed , thesis").
func VariantsText(app string) string {
	var vs []string
	for _, v := range Apps[app] {
		if v == "" {
			v = `"" (the default: 3 Allreduces an iteration)`
		}
		vs = append(vs, v)
	}
	return strings.Join(vs, ", ")
}

// WeakScaled tells whether an application's size is per rank, so that its
// problem grows with P (weak scaling): the global sum's vector length
// (every rank holds a vector of that length) and the halo exchange's row
// length (every rank owns the same number of rows). Their speedup is the
// scaled speedup, their efficiency the weak-scaling efficiency.
func WeakScaled(app string) bool { return app == "globalsum" || app == "halo" }

// oneSided tells whether an application method uses one-sided MPI, which
// has no native version and no recorded schedule (the recorder sees
// messages, not RMA).
func oneSided(app, method string) bool {
	return app == "halo" || app == "globalsum" && (method == "onesided" || method == "accumulate")
}

// BreakEven tells whether the sweep is the global sum's serial against
// hypercube comparison, whose rows GlobalSumBreakEven analyses.
func (s *AppSweep) BreakEven() bool { return s.App == "globalsum" && s.Variant == "breakeven" }

// methods is what one sweep runs: the variant itself, or, for the global
// sum's "breakeven", both methods side by side.
func (s *AppSweep) methods() []string {
	switch {
	case s.BreakEven():
		return []string{"serial", "hypercube"}
	case s.App == "globalsum" && s.Variant == "rma":
		return []string{"serial", "hypercube", "onesided", "accumulate"}
	case s.App == "halo" && s.Variant == "compare":
		return apps.HaloMethods
	}
	return []string{s.Variant}
}

// MPIOnly tells whether every method of the sweep is MPI only (one-sided,
// or the rma comparison), so that the versions default to mpi alone.
func (s *AppSweep) MPIOnly() bool {
	return s.App == "halo" || s.App == "globalsum" && (s.Variant == "rma" || oneSided(s.App, s.Variant))
}

// AppSweep runs an application over rank counts, sizes and versions.
type AppSweep struct {
	App     string
	Variant string // cg: "" or thesis; qr: 1d, 2d or thesis; matmul: 1d or 2d; globalsum: serial, hypercube or breakeven (both)
	Procs   []int
	Sizes   []int // cg: unknowns (nonzeros with Nonzeros); matmul: matrix order; globalsum: vector length
	// Nonzeros makes a CG sweep's sizes nonzero counts (thesis table
	// 5.1), each run with apps.CGUnknowns(size) unknowns.
	Nonzeros bool
	// Distribute lists the thesis CG's DistributeP methods the MPI
	// version runs: bcast, alltoall (none: bcast).
	Distribute []string
	// Grid fixes the thesis QR's grid, "XxY" ("": apps.QRThesisGrid(P)).
	Grid     string
	Versions []string // mpi, native
	Seed     uint64
	// Params, when set, adds the Hockney prediction of the slides to
	// matrix-multiply runs (t_s and t_e from the LogGP parameters), and to
	// every MPI run the LogGOPS tier's prediction of its recorded schedule
	// (xfid.go).
	Params *logp.Params
}

// Check validates the sweep (each run also validates its own
// configuration before anything is simulated).
func (s *AppSweep) Check(sc *scenarios.Scenario, src scenarios.Source) error {
	if err := sc.CheckMachine(src); err != nil {
		return err
	}
	m := sc.Machine()
	bad := func(key string, v any, allowed string) error {
		return &config.KeyError{Key: key, Value: fmt.Sprint(v), Allowed: allowed}
	}
	variants, ok := Apps[s.App]
	switch {
	case !ok:
		return bad("app", s.App, "cg, qr, matmul, globalsum, halo")
	case !slices.Contains(variants, s.Variant):
		return bad("variant", s.Variant, VariantsText(s.App))
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
		for _, m := range s.methods() {
			if v == "native" && (oneSided(s.App, m) || s.Variant == "rma") {
				return bad("versions", v, fmt.Sprintf("mpi (%s %s compares MPI versions; one-sided MPI has no native version)", s.App, s.Variant))
			}
		}
	}
	if s.Params != nil && slices.ContainsFunc(s.methods(), func(m string) bool { return oneSided(s.App, m) }) {
		return bad("params", "set", fmt.Sprintf("not with %s %s: the LogGOPS tier replays recorded messages, and one-sided operations are not recorded", s.App, s.Variant))
	}
	if s.Nonzeros && s.App != "cg" {
		return bad("nonzeros", "true", "with app cg only")
	}
	for _, d := range s.Distribute {
		if d != "bcast" && d != "alltoall" {
			return bad("distribute", d, "bcast, alltoall")
		}
		if d == "alltoall" && (s.App != "cg" || s.Variant != "thesis") {
			return bad("distribute", d, "alltoall with app cg, variant thesis only")
		}
	}
	if _, _, err := s.grid(); err != nil {
		return err
	}
	for _, p := range s.Procs {
		if q := int(math.Sqrt(float64(p))); s.Variant == "2d" && q*q != p {
			return bad("procs", p, "perfect squares (1, 4, 9, 16, ...) for the 2d variant")
		}
		if slices.Contains(s.methods(), "hypercube") && p&(p-1) != 0 {
			return bad("procs", p, fmt.Sprintf("powers of two (1, 2, 4, 8, ...) for the %s variant", s.Variant))
		}
	}
	// Each configuration's own check, without running it.
	for _, p := range s.Procs {
		for _, n := range s.Sizes {
			if err := s.validate(sc, m.Tiles(), p, n); err != nil {
				return err
			}
		}
	}
	return s.checkMemory(sc, m.Tiles())
}

func (s *AppSweep) validate(sc *scenarios.Scenario, tiles, p, n int) error {
	switch {
	case p < 1 || p > tiles:
		return &config.KeyError{Key: "procs", Value: fmt.Sprint(p), Allowed: fmt.Sprintf("1..%d (the tiles of the mesh)", tiles)}
	case n < 1:
		return &config.KeyError{Key: "sizes", Value: fmt.Sprint(n), Allowed: ">= 1"}
	}
	// The application's own constraints (rows per processor, divisibility,
	// largest order), as its Run function checks them.
	for _, method := range s.methods() {
		var err error
		switch s.App {
		case "cg":
			cfg := s.cgConfig(method, "", p, n, false, nil)
			err = cfg.Validate(sc)
		case "qr":
			x, y, _ := s.grid()
			err = apps.QRConfig{Procs: p, N: n, Seed: s.Seed, Grid: method, GridX: x, GridY: y}.Validate(sc)
		case "matmul":
			_, err = apps.MatMulConfig{Procs: p, N: n, Decomp: method, Seed: s.Seed}.Check(sc)
		case "halo":
			err = apps.HaloConfig{Procs: p, N: n, Method: method, Seed: s.Seed}.Check(sc)
		default:
			err = apps.GlobalSumConfig{Procs: p, N: n, Method: method, Seed: s.Seed}.Check(sc)
		}
		if err != nil {
			return &config.KeyError{Key: "sizes", Value: fmt.Sprintf("%d (at procs = %d)", n, p), Allowed: "what the application accepts: " + err.Error()}
		}
	}
	return nil
}

// grid parses Grid: X and Y, 0 and 0 when it is empty.
func (s *AppSweep) grid() (x, y int, err error) {
	if s.Grid == "" {
		return 0, 0, nil
	}
	if s.App != "qr" || s.Variant != "thesis" {
		return 0, 0, &config.KeyError{Key: "grid", Value: s.Grid, Allowed: "with app qr, variant thesis only"}
	}
	if _, e := fmt.Sscanf(s.Grid, "%dx%d", &x, &y); e != nil || x < 1 || y < 1 || fmt.Sprintf("%dx%d", x, y) != s.Grid {
		return 0, 0, &config.KeyError{Key: "grid", Value: s.Grid, Allowed: "XxY with X, Y >= 1 (e.g. 8x4)"}
	}
	return x, y, nil
}

// cgConfig is the CG run of one point: size n is the unknowns, or the
// nonzeros with s.Nonzeros.
func (s *AppSweep) cgConfig(variant, distribute string, p, n int, native bool, record func(*mpi.World)) apps.CGConfig {
	cfg := apps.CGConfig{Procs: p, N: n, Tol: 1e-8, Native: native, Seed: s.Seed, Record: record,
		Variant: variant, Distribute: distribute}
	if s.Nonzeros {
		cfg.N, cfg.Nonzeros = apps.CGUnknowns(n), n
	}
	// CG converges in at most N steps in exact arithmetic; 10 N leaves
	// room for rounding, within the largest MaxIter.
	cfg.MaxIter = min(10*cfg.N, 100000)
	return cfg
}

func (s *AppSweep) runOne(sc *scenarios.Scenario, variant, version, distribute string, p, n int, record func(*mpi.World)) (apps.Result, *report.Energy, error) {
	chips := &scenarios.ChipRecorder{Scenario: sc}
	res, err := s.runApp(chips, variant, version, distribute, p, n, record)
	if err != nil {
		return res, nil, err
	}
	e, err := sc.ChipsEnergy(chips.Made)
	return res, e, err
}

// runApp runs one application version on chips from mc.
func (s *AppSweep) runApp(sc apps.Machine, variant, version, distribute string, p, n int, record func(*mpi.World)) (apps.Result, error) {
	native := version == "native"
	if native || oneSided(s.App, variant) {
		record = nil
	}
	switch s.App {
	case "cg":
		return apps.RunCG(sc, s.cgConfig(variant, distribute, p, n, native, record))
	case "qr":
		x, y, _ := s.grid()
		return apps.RunQR(sc, apps.QRConfig{Procs: p, N: n, Native: native, Seed: s.Seed, Grid: variant, GridX: x, GridY: y, Record: record})
	case "matmul":
		return apps.RunMatMul(sc, apps.MatMulConfig{Procs: p, N: n, Decomp: variant, Native: native, Seed: s.Seed, Record: record})
	case "halo":
		return apps.RunHalo(sc, apps.HaloConfig{Procs: p, N: n, Method: variant, Seed: s.Seed})
	default:
		return apps.RunGlobalSum(sc, apps.GlobalSumConfig{Procs: p, N: n, Method: variant, Native: native, Seed: s.Seed, Record: record})
	}
}

// Run simulates every (method, version, P, size) in parallel across
// cores; rows come in that order whatever the number of workers.
func (s *AppSweep) Run(sc *scenarios.Scenario, opt scenarios.RunOptions) ([]report.AppRow, error) {
	type job struct {
		variant, version, distribute string
		p, n                         int
	}
	var jobs []job
	for _, m := range s.methods() {
		for _, v := range s.Versions {
			dists := []string{""}
			if s.App == "cg" && m == "thesis" && v == "mpi" {
				dists = s.Distribute
				if len(dists) == 0 {
					dists = []string{"bcast"}
				}
			}
			for _, d := range dists {
				for _, p := range s.Procs {
					for _, n := range s.Sizes {
						jobs = append(jobs, job{m, v, d, p, n})
					}
				}
			}
		}
	}
	rows := make([]report.AppRow, len(jobs))
	errs := make([]error, len(jobs))
	scenarios.ForEach(len(jobs), opt, func(i int) error {
		j := jobs[i]
		// One recording serves --goal-out and the tier's prediction.
		var recorded *mpi.World
		var rec func(*mpi.World)
		if opt.Record != nil || s.Params != nil && j.version == "mpi" {
			point := appPoint(j.variant, len(s.methods()) > 1, j.p, j.n)
			if len(s.Distribute) > 1 {
				point = j.distribute + "-" + point
			}
			rec = func(w *mpi.World) {
				recorded = w
				if opt.Record != nil {
					opt.Record(point, w.Trace())
				}
			}
		}
		run := sc
		if opt.Trace != nil {
			name := fmt.Sprintf("%s, P=%d, size %d", strings.Join(slices.DeleteFunc([]string{s.App, j.variant, j.version}, func(x string) bool { return x == "" }), " "), j.p, j.n)
			if j.distribute != "" {
				name += ", " + j.distribute
			}
			traced := *sc
			traced.MPI = traced.MPI.TraceTo(opt.Trace, i, name)
			run = &traced
		}
		res, en, err := s.runOne(run, j.variant, j.version, j.distribute, j.p, j.n, rec)
		if err != nil {
			errs[i] = fmt.Errorf("%s %s, P=%d, size %d: %w", s.App, j.version, j.p, j.n, err)
			return errs[i]
		}
		rows[i] = report.AppRow{App: s.App, Variant: j.variant, Version: j.version, Distribute: j.distribute, Procs: j.p, Size: res.Size,
			Cycles: int64(res.Cycles), Seconds: float64(res.Cycles) / sc.Node.ClockHz, Correct: res.Correct, Detail: res.Detail, Energy: en}
		if s.Nonzeros {
			rows[i].Nonzeros = j.n
		}
		if s.App == "matmul" && s.Params != nil {
			block := 8 * j.n * j.n / j.p
			pr, err := logp.MatMulTime(s.Params.Hockney(block), j.n, j.p, j.variant, float64(sc.Node.FlopCycles))
			if err != nil {
				errs[i] = err
				return err
			}
			rows[i].Hockney = pr.Cycles
			if rows[i].Scaling, err = matMulScaling(*s.Params, j.n, j.variant, float64(sc.Node.FlopCycles)); err != nil {
				errs[i] = err
				return err
			}
		}
		if recorded != nil && s.Params != nil {
			if rows[i].TierColumns, err = predictRecorded(sc, recorded, *s.Params, float64(res.Cycles)); err != nil {
				errs[i] = fmt.Errorf("%s %s, P=%d, size %d: LogGOPS tier: %w", s.App, j.version, j.p, j.n, err)
				return errs[i]
			}
		}
		return nil
	})
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	s.speedups(rows)
	return rows, nil
}

// speedups fills every row's speedup and efficiency against the smallest
// P's run of the same variant, version and size, and the MPI rows'
// MPI/native ratio.
func (s *AppSweep) speedups(rows []report.AppRow) {
	base := slices.Min(s.Procs)
	find := func(variant, version, distribute string, p, n int) *report.AppRow {
		for i := range rows {
			if r := &rows[i]; r.Variant == variant && r.Version == version && r.Distribute == distribute && r.Procs == p && r.Size == n {
				return r
			}
		}
		return nil
	}
	for i := range rows {
		r := &rows[i]
		r.BaselineProcs = base
		r.WeakScaling = WeakScaled(r.App)
		if b := find(r.Variant, r.Version, r.Distribute, base, r.Size); b != nil && r.Cycles > 0 {
			// Strong: the baseline counts as base ranks' worth of speed.
			// Weak: P ranks do P/base times the baseline's work, so the
			// baseline's time stands for base ranks' worth at every P.
			scale := float64(base)
			if r.WeakScaling {
				scale = float64(r.Procs)
			}
			r.Speedup = scale * float64(b.Cycles) / float64(r.Cycles)
			r.Efficiency = r.Speedup / float64(r.Procs)
		}
		if r.Version == "mpi" {
			if nat := find(r.Variant, "native", "", r.Procs, r.Size); nat != nil && nat.Cycles > 0 {
				r.MPIOverNative = float64(r.Cycles) / float64(nat.Cycles)
			}
		}
	}
}
