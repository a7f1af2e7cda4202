package study

import (
	"fmt"
	"slices"
	"strings"

	"nocsim/coll"
	"nocsim/config"
	"nocsim/logp"
	"nocsim/logp/collgen"
	"nocsim/logp/loggops"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// TierSweep runs a collective's generated schedules on the LogGOPS tier for
// every algorithm x procs x size.
type TierSweep struct {
	Op    string
	Algs  []string
	Procs []int
	Sizes []int
	Root  int
	// Params gives the tier's parameters for a run of procs ranks: fixed
	// (FixedTierParams) or from fitted LogGP parameters (FittedTierParams,
	// whose placement depends on whether the ranks fit the fitted mesh).
	Params func(procs int) (loggops.Params, error)
	Opt    collgen.Options // flop and copy costs; Root is set from Root
	// OptimalLogP, when set, gives the L, o and g the optimal broadcast's
	// tree is built for at a message size (as the chip run with the same
	// parameters builds it); otherwise Opt's.
	OptimalLogP func(bytes int) (L, o, g float64)
	// MeshWidth, when set, is the width of the mesh the ranks sit on
	// (rank i on tile i), which the mesh algorithms' trees follow; nil:
	// the smallest square holding them (as logp's forms take without a
	// machine).
	MeshWidth func(procs int) int
	// ParamsName says where the parameters came from (a fitted file, or
	// their values), for chart titles.
	ParamsName string
	// Beat, when set, is called now and then (every 2^16 events) by the
	// worker simulating point i (in the order of the rows) with the
	// simulated cycle it has reached, for a progress display within long
	// points. It may be called from several workers at once.
	Beat func(point int, cycle float64)
	// Fitted, when set (UseFitted), prices each schedule when it holds an
	// energy model (logp.Params.TierEnergy): the static power over the
	// tier's time and every message over the hops between its ranks (the
	// tier's own placement, or the fit's average distance when it has
	// none).
	Fitted *logp.Params
}

// FixedTierParams is the same parameter set at every P.
func FixedTierParams(p loggops.Params) func(int) (loggops.Params, error) {
	return func(int) (loggops.Params, error) { return p, nil }
}

// FittedTierParams maps fitted LogGP parameters to the tier (TierParamsFor:
// every fitted segment; ranks on the fitted mesh while they fit it, at its
// average distance past it; S from the fitted protocol).
func FittedTierParams(p logp.Params) func(int) (loggops.Params, error) {
	return func(procs int) (loggops.Params, error) {
		return scenarios.TierParamsFor(p, procs, scenarios.ProtocolThreshold(p.Protocol))
	}
}

// UseFitted runs the sweep on LogGP parameters fitted by calibrate (read
// from path): the tier's parameters per P (FittedTierParams), the fitted
// mesh's width for the mesh algorithms' trees, and the optimal broadcast's
// tree built for the fitted L, o and g at each size, as a chip run with
// the same parameters builds it.
func (s *TierSweep) UseFitted(path string, p logp.Params) {
	s.Params, s.OptimalLogP, s.MeshWidth = FittedTierParams(p), p.OptimalLogP, p.MeshWidth
	s.ParamsName = FittedParamsName(path, p)
	s.Fitted = &p
}

// UseFixed runs the sweep on one LogGOPS parameter set at every P, the
// optimal broadcast's tree built for its L, o (the mean of o_s and o_r)
// and g, and the chart titled with its values.
func (s *TierSweep) UseFixed(p loggops.Params) {
	s.Params = FixedTierParams(p)
	s.ParamsName = fmt.Sprintf("L=%g o_s=%g o_r=%g g=%g G=%g O=%g S=%d", p.L, p.Os, p.Or, p.Gap, p.G, p.O, p.S)
	s.OptimalLogP = func(int) (L, o, g float64) { return p.L, (p.Os + p.Or) / 2, p.Gap }
}

// Check validates the sweep; errors are KeyErrors naming the flag or key.
func (s *TierSweep) Check() error {
	bad := func(key string, v any, allowed string) error {
		return &config.KeyError{Key: key, Value: fmt.Sprint(v), Allowed: allowed}
	}
	if !slices.Contains(collgen.Ops, s.Op) {
		return bad("op", s.Op, strings.Join(collgen.Ops, ", "))
	}
	names := collgen.Algorithms(s.Op)
	if len(s.Algs) == 0 {
		return bad("algs", "[]", strings.Join(names, ", "))
	}
	for _, a := range s.Algs {
		if coll.IsNative(scenarios.RegistryOp(s.Op), a) {
			return bad("algs", a, strings.Join(names, ", ")+" (this one runs on SCMP's native primitives, not MPI messages: it has no schedule)")
		}
		if !slices.Contains(names, a) {
			return bad("algs", a, strings.Join(names, ", ")+" (the loggops tier needs named algorithms, not auto)")
		}
	}
	if len(s.Procs) == 0 {
		return bad("procs", "[]", fmt.Sprintf("rank counts 1..%d", collgen.MaxProcs))
	}
	for _, p := range s.Procs {
		if p < 1 || p > collgen.MaxProcs {
			return bad("procs", p, fmt.Sprintf("1..%d", collgen.MaxProcs))
		}
		if collgen.Rooted(s.Op) && (s.Root < 0 || s.Root >= p) {
			return bad("root", s.Root, fmt.Sprintf("0..%d (every procs value must include the root)", p-1))
		}
		for _, a := range s.Algs {
			if est := collgen.Estimate(s.Op, a, p); est > collgen.MaxOps {
				return bad("procs", p, fmt.Sprintf("a rank count where %s %s has at most %d operations (about %d here, which would need about %.1f GB)", s.Op, a, collgen.MaxOps, est, float64(collgen.Memory(est, p))/1e9))
			}
		}
	}
	if len(s.Sizes) == 0 {
		return bad("sizes", "[]", "byte counts")
	}
	eb := max(s.Opt.ElemBytes, 1)
	for _, n := range s.Sizes {
		if n < 0 || n > 1<<30 || collgen.IsReduction(s.Op) && n%eb != 0 {
			allowed := "0..1073741824 bytes"
			if collgen.IsReduction(s.Op) {
				allowed += fmt.Sprintf(", a multiple of %d (the element)", eb)
			}
			return bad("sizes", n, allowed)
		}
	}
	for _, p := range s.Procs {
		q, err := s.Params(p)
		if err == nil {
			err = q.Validate()
		}
		if err != nil {
			return bad("params", fmt.Sprintf("at P=%d", p), err.Error())
		}
	}
	return nil
}

// Run generates and simulates every point, in parallel across points;
// rows come in (algorithm, procs, size) order whatever the workers.
func (s *TierSweep) Run(opt scenarios.RunOptions) ([]report.TierRow, error) {
	type job struct {
		alg       string
		procs, sz int
	}
	var jobs []job
	for _, a := range s.Algs {
		for _, p := range s.Procs {
			for _, n := range s.Sizes {
				jobs = append(jobs, job{a, p, n})
			}
		}
	}
	rows := make([]report.TierRow, len(jobs))
	err := scenarios.ForEach(len(jobs), opt, func(i int) error {
		j := jobs[i]
		o := s.Opt
		o.Root = s.Root
		if s.OptimalLogP != nil {
			o.OptimalL, o.OptimalO, o.OptimalG = s.OptimalLogP(j.sz)
		}
		if !collgen.Rooted(s.Op) {
			o.Root = 0
		}
		if s.MeshWidth != nil {
			o.MeshW = s.MeshWidth(j.procs)
		}
		sch, err := collgen.Generate(s.Op, j.alg, j.procs, int64(j.sz), o)
		if err != nil {
			return err
		}
		q, err := s.Params(j.procs)
		if err != nil {
			return err
		}
		var lo loggops.Options
		if s.Beat != nil {
			lo.Progress = func(_, _ int, t float64) { s.Beat(i, t) }
		}
		res, err := loggops.Simulate(sch, q, lo)
		if err != nil {
			return fmt.Errorf("%s %s, P=%d, %d bytes: %w", s.Op, j.alg, j.procs, j.sz, err)
		}
		rows[i] = report.TierRow{Tier: scenarios.TierLogGOPS, Op: s.Op, Algorithm: j.alg, Procs: j.procs, SizeBytes: j.sz, Root: o.Root, Cycles: res.Max, Ops: sch.NumOps()}
		if s.Fitted != nil {
			rows[i].PredictedEnergyPJ, _ = s.Fitted.TierEnergy(sch, q, res.Max)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}
