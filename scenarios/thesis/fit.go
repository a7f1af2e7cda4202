package thesis

import (
	"fmt"
	"io"
	"maps"
	"math"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"slices"
	"strconv"
	"strings"
)

// FitKey is a [node] key `nocsim thesis fit` fits, with its bounds
// (cycles) and where the fit starts when the machine leaves it at 0 (the
// fit works on the logarithm of each key).
type FitKey struct {
	Section  string // "node" or "mpi"
	Key      string
	Min, Max float64
	Start    float64
	Integer  bool // the key takes whole cycles
}

// FitKeys are the keys fitted on Table 5.1: the kernels' cost per
// operation class (a floating-point operation, a word loaded or stored, a
// loop iteration) and the MPI library's software costs (a call, a thread
// switch). Everything else is the machine's as the file gives it: the
// network (link_flits_per_cycle = 2, as the thesis states), the thesis's
// library profile, the protocol.
var FitKeys = []FitKey{
	{"node", "flop_cycles", 0, 1000, 1, false},
	{"node", "mem_cycles", 0, 1000, 0.5, false},
	{"node", "loop_cycles", 0, 1000, 0.5, false},
	{"node", "call_cycles", 0, 100000, 20, true},
	{"node", "native_call_cycles", 0, 100000, 20, true},
	{"node", "thread_dispatch_cycles", 0, 100000, 10, true},
	{"node", "poll_cycles", 0, 100000, 4, true},
	{"node", "copy_cycles_per_word", 0, 100000, 1, true},
	{"mpi", "match_cycles", 0, 100000, 2, true},
}

// DefaultFitKeys are the keys `thesis fit` fits unless told
// otherwise. flop_cycles stays 1 (a simple in-order FPU): a flop and a
// memory word come in nearly fixed proportion in CG's loops, so a fit of
// both cannot tell them apart and drifts to a flop costing nothing.
var DefaultFitKeys = []string{"mem_cycles", "loop_cycles", "call_cycles", "native_call_cycles", "thread_dispatch_cycles", "poll_cycles", "copy_cycles_per_word", "match_cycles"}

// FitResult is a fit of FitKeys on table rows.
type FitResult struct {
	Keys    []string  // "section.key"
	Values  []float64 // cycles, one per key
	Results []report.ThesisResult
	// RMSLog is the root mean square of log(nocsim / thesis) over every
	// native and MPI time fitted; Start is the same at the starting point.
	RMSLog, Start float64
	Evals, Steps  int
}

// setKeys sets "section.key" keys on a copy of sc.
func setKeys(sc *scenarios.Scenario, keys []string, vals []float64) (scenarios.Scenario, error) {
	s := *sc
	for i, k := range keys {
		sec, key, _ := strings.Cut(k, ".")
		if err := s.Set(sec, key, keyText(vals[i])); err != nil {
			return s, err
		}
	}
	return s, nil
}

// keyText writes a fitted value: whole numbers as integers, fractions to
// four significant digits (more than the fit resolves).
func keyText(v float64) string {
	if v == math.Round(v) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// Fit fits keys (FitKeys, or a subset) so that rows' native
// and MPI times come as close as they can to the thesis's in relative
// terms (least squares on the logarithms, Levenberg-Marquardt with gonum's
// linear least squares; fitLogLM). Each evaluation runs every row, both
// versions (Run). The fit is deterministic.
func Fit(sc *scenarios.Scenario, rows []report.ThesisRow, keys []FitKey, maxSteps int, opt scenarios.RunOptions, progress func(step int, rmsLog float64)) (FitResult, error) {
	names := make([]string, len(keys))
	params := make([]lmParam, len(keys))
	x0 := make([]float64, len(keys))
	for i, k := range keys {
		names[i] = k.Section + "." + k.Key
		params[i] = lmParam{Name: names[i], Min: k.Min, Max: k.Max, Integer: k.Integer}
		v, err := sc.NumericKey(k.Section, k.Key)
		if err != nil {
			return FitResult{}, err
		}
		if v <= 0 && k.Start > 0 {
			v = k.Start // 0 is a bound: start where the fit can move
		}
		x0[i] = math.Min(math.Max(v, k.Min), k.Max)
	}
	want := make([]float64, 0, 2*len(rows))
	for _, r := range rows {
		want = append(want, r.NativeK)
	}
	for _, r := range rows {
		want = append(want, r.MPIK)
	}
	var last []report.ThesisResult
	model := func(x []float64) ([]float64, error) {
		s, err := setKeys(sc, names, x)
		if err != nil {
			return nil, err
		}
		res, err := Run(&s, rows, scenarios.RunOptions{Workers: opt.Workers})
		if err != nil {
			return nil, err
		}
		last = res
		y := make([]float64, 0, 2*len(res))
		for _, r := range res {
			y = append(y, r.NativeK())
		}
		for _, r := range res {
			y = append(y, r.MPIK())
		}
		return y, nil
	}
	startRMS := -1.0
	fit, err := fitLogLM(model, params, x0, want, maxSteps, func(step int, rms float64) {
		if startRMS < 0 {
			startRMS = rms
		}
		if progress != nil {
			progress(step, rms)
		}
	})
	if err != nil {
		return FitResult{}, err
	}
	// The results at the fitted point (the last evaluation may have been
	// a rejected trial).
	s, err := setKeys(sc, names, fit.X)
	if err != nil {
		return FitResult{}, err
	}
	if last, err = Run(&s, rows, scenarios.RunOptions{Workers: opt.Workers}); err != nil {
		return FitResult{}, err
	}
	out := FitResult{Keys: names, Results: last, RMSLog: fit.RMS, Start: startRMS, Evals: fit.Evals + 1, Steps: fit.Steps}
	out.Values = fit.X
	return out, nil
}

// WriteMachine writes the machine file: base (the machine the fit
// started from, as TOML text) with the fitted keys set in their sections,
// the keys set apart from the file (set: "section.key" to TOML value text,
// e.g. a flag's) likewise, and a header that says how the keys were
// fitted and how well.
func WriteMachine(w io.Writer, base string, fit FitResult, set map[string]string) error {
	var b strings.Builder
	b.WriteString("# The SCMP machine of the thesis (J. H. Poole, 2004; seed 000), for `nocsim thesis`.\n")
	b.WriteString("# Written by `nocsim thesis fit`: the keys marked \"fitted\" were fitted on Table 5.1\n")
	fmt.Fprintf(&b, "# (CG, native and MPI times, %d rows) by least squares on log(time); nothing is fitted\n", len(fit.Results))
	b.WriteString("# to Table 5.2 (QR), which this machine predicts.\n")
	fmt.Fprintf(&b, "# RMS of log(nocsim/thesis): %.4f at the start, %.4f fitted (%d evaluations, %d steps).\n", fit.Start, fit.RMSLog, fit.Evals, fit.Steps)
	value := map[string]string{} // "section.key" -> the line's value and comment
	order := slices.Sorted(maps.Keys(set))
	for _, k := range order {
		value[k] = set[k] + " # set apart from the base file"
	}
	for i, k := range fit.Keys {
		value[k] = keyText(fit.Values[i]) + " # cycles, fitted"
	}
	keys := append(slices.Clone(fit.Keys), order...)
	done := map[string]bool{}
	section := ""
	flush := func() { // the section's fitted keys not yet written
		for _, k := range keys {
			if sec, key, _ := strings.Cut(k, "."); sec == section && !done[k] {
				fmt.Fprintf(&b, "%s = %s\n", key, value[k])
				done[k] = true
			}
		}
	}
	for _, l := range strings.Split(strings.TrimRight(base, "\n"), "\n") {
		t := strings.TrimSpace(l)
		if section == "" && strings.HasPrefix(t, "#") {
			continue // the old header
		}
		if strings.HasPrefix(t, "[") {
			flush()
			section = strings.Trim(t, "[] ")
		}
		if k, _, ok := strings.Cut(t, "="); ok && !strings.HasPrefix(t, "#") {
			if _, f := value[section+"."+strings.TrimSpace(k)]; f {
				continue // replaced by the fitted or set value
			}
		}
		b.WriteString(l + "\n")
	}
	flush()
	for _, sec := range []string{"network", "node", "mpi"} { // sections the base lacks
		section = sec
		var missing bool
		for _, k := range keys {
			missing = missing || strings.HasPrefix(k, sec+".") && !done[k]
		}
		if missing {
			fmt.Fprintf(&b, "\n[%s]\n", sec)
			flush()
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
