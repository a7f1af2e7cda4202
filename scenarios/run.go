package scenarios

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"nocsim/config"
	"nocsim/scenarios/report"
)

// Check validates everything a run of the scenario needs, before any
// simulation: every section, the workload's keys and limits, and, when the
// file has a [sweep], every axis and every point it expands to. validate,
// run and sweep all call it, so they accept exactly the same files.
func (sc *Scenario) Check(src Source) error {
	if err := sc.checkPoint(src); err != nil {
		return err
	}
	if err := sc.checkGoalOutput(src); err != nil {
		return err
	}
	if len(sc.Sweep.Axis) > 0 || sc.Sweep.Reps != 0 {
		_, _, err := sc.SweepScenarios(src)
		return err
	}
	return nil
}

func explainWorkload(err error, src Source) error {
	ke, ok := err.(*config.KeyError)
	if !ok || src == nil {
		return err
	}
	for _, k := range WorkloadKeys {
		if k.Name == ke.Key {
			return fmt.Errorf("%s = %s: allowed %s", src("workload", ke.Key), ke.Value, ke.Allowed)
		}
	}
	return err
}

// CheckTrace tells whether the workload's runs can be traced (RunOptions.
// Trace): its MPI runs on the flit-level chip. A workload without any is
// refused, so that a trace is never silently empty.
func (sc *Scenario) CheckTrace() error {
	w := sc.Workload
	switch {
	case w.Kind == "pingpong", w.Kind == "coll" && !sc.onTier(), (w.Kind == "app" || w.Kind == "pairs") && slices.Contains(w.Versions, "mpi"):
		return nil
	case w.Kind == "coll":
		return fmt.Errorf("[workload] tier = %s: the LogGOPS tier runs no chip to trace; allowed kind pingpong, coll on the chip, or app with MPI versions", w.Tier)
	case w.Kind == "app" || w.Kind == "pairs":
		return fmt.Errorf("[workload] versions = %s: no MPI runs to trace; allowed with mpi among the versions", strings.Join(w.Versions, ","))
	}
	return fmt.Errorf("[workload] kind = %s: no MPI runs to trace; allowed kind pingpong, pairs, coll (on the chip) or app", w.Kind)
}

func (sc *Scenario) procsOrAll() []int {
	if len(sc.Workload.Procs) > 0 {
		return sc.Workload.Procs
	}
	return []int{sc.Tiles()}
}

func (sc *Scenario) pingPong() *PingPong {
	w := sc.Workload
	to := w.To
	if to < 0 {
		to = sc.Tiles() - 1
		if sc.MPI.Procs > 0 {
			to = sc.MPI.Procs - 1
		}
	}
	sizes := w.Sizes
	if len(sizes) == 0 {
		sizes = []int{4, 64, 1024, 65536}
	}
	return &PingPong{From: w.From, To: to, Sizes: sizes, Reps: w.Reps}
}

func (sc *Scenario) pairsBench() *Pairs {
	w := sc.Workload
	pairs, sizes := w.Pairs, w.Sizes
	if len(pairs) == 0 {
		pairs = DefaultPairCounts(pairsProcs(sc))
	}
	if len(sizes) == 0 {
		sizes = DefaultPairsSizes
	}
	return &Pairs{Pairs: pairs, Sizes: sizes, Reps: w.Reps, Versions: w.Versions, Placement: w.Placement, Topologies: w.Topologies}
}

func (sc *Scenario) collSweep() *CollSweep {
	w := sc.Workload
	sizes := w.Sizes
	if len(sizes) == 0 {
		sizes = []int{8, 1024, 65536}
	}
	return &CollSweep{Op: w.Op, Algs: w.Algs, Procs: sc.procsOrAll(), Sizes: sizes, Root: w.Root}
}

func (sc *Scenario) appSweep() *AppSweep {
	w := sc.Workload
	v := w.Variant
	if vs := Apps[w.App]; v == "" && len(vs) > 0 {
		v = vs[0]
	}
	sizes := w.Sizes
	if len(sizes) == 0 {
		sizes = []int{64, 256}
	}
	return &AppSweep{App: w.App, Variant: v, Procs: sc.procsOrAll(), Sizes: sizes, Versions: w.Versions, Seed: uint64(w.AppSeed),
		Nonzeros: w.Nonzeros, Distribute: w.Distribute, Grid: w.Grid}
}

// WriteRecord puts the effective configuration (config.toml) and the
// provenance (meta.json) into the output directory. A sweep uses it: its
// directory fills point by point, so it cannot be staged whole.
func (sc *Scenario) WriteRecord(src Source, prov Provenance) error {
	dir := sc.OutputDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return sc.record(src, prov, func(name string, fill func(*bytes.Buffer) error) error {
		return WriteFile(filepath.Join(dir, name), fill)
	})
}

func (sc *Scenario) record(src Source, prov Provenance, write func(string, func(*bytes.Buffer) error) error) error {
	eff, err := sc.EffectiveTOML(src)
	if err != nil {
		return err
	}
	return recordFiles(eff, sc.meta(prov, nil), write)
}

func (sc *Scenario) meta(prov Provenance, speed *Speed) Meta {
	m := prov.meta(sc.Name, sc.Workload.Kind, sc.Noc.Seed, sc.Workload.AppSeed)
	if len(sc.Sweep.Axis) > 0 || sc.Sweep.Reps > 1 {
		m.SweepReps = max(sc.Sweep.Reps, 1)
	}
	m.Speed = speed
	return m
}

// WriteSpeedIn rewrites dir's meta.json with the run's speed, once the run
// is done (a sweep's directory holds meta.json from its start).
func (sc *Scenario) WriteSpeedIn(dir string, prov Provenance, speed Speed) error {
	return WriteFile(filepath.Join(dir, "meta.json"), func(b *bytes.Buffer) error { return report.WriteJSON(b, sc.meta(prov, &speed)) })
}

// Summary is what `nocsim run` reports.
type Summary struct {
	Dir   string
	Files []string
	Lines []string // a few lines of headline results
	Speed *Speed   // with RunOptions.Speed: how fast the run went (also in meta.json)
}

// Run performs the scenario's workload and writes, into its output
// directory, the results (JSON and CSV), the effective configuration, the
// provenance (meta.json) and the charts. The directory is staged beside
// the target and renamed into place only when every file is written: a
// run that fails or is killed leaves an older result untouched. Check
// must have passed.
func (sc *Scenario) Run(src Source, prov Provenance, opt RunOptions) (sum Summary, err error) {
	dir := sc.OutputDir()
	out, err := stageDir(dir)
	if err != nil {
		return Summary{}, err
	}
	defer out.finish(&sum, &err)
	sum.Dir = dir
	write := out.write
	if err := sc.record(src, prov, write); err != nil {
		return sum, err
	}
	var rec *GoalRecording
	if sc.Output.Goal != "" {
		rec = NewGoalRecording()
		opt.Record = rec.Record
	}
	run, ok := kindRunners[sc.Workload.Kind]
	if !ok {
		return sum, fmt.Errorf("[workload] kind = %q: no runner", sc.Workload.Kind)
	}
	res, err := run(sc, src, opt, out, rec)
	if err != nil {
		return sum, err
	}
	sum.Lines = append(sum.Lines, res.lines...)
	rows, chart, flitHops := res.rows, res.chart, res.flitHops
	if err := write("results.json", func(b *bytes.Buffer) error { return report.WriteJSON(b, rows) }); err != nil {
		return sum, err
	}
	if rec != nil {
		files, err := rec.Files(sc.Output.Goal)
		if err != nil {
			return sum, err
		}
		for _, f := range files {
			if err := write(f.Path, func(b *bytes.Buffer) error { _, err := b.Write(f.Text); return err }); err != nil {
				return sum, err
			}
		}
	}
	if reflect.ValueOf(rows).Kind() == reflect.Slice {
		if err := write("results.csv", func(b *bytes.Buffer) error { return report.WriteRowsCSV(b, rows) }); err != nil {
			return sum, err
		}
	}
	if sc.Output.Plots && chart != nil {
		if err := chart(); err != nil {
			return sum, err
		}
	}
	if opt.Speed != nil {
		// Measured before the charts are drawn would leave their CPU time
		// out; measured here it counts everything but the final rename.
		if sp, ok := opt.Speed.Speed(flitHops); ok {
			sum.Speed = &sp
			if err := WriteFile(filepath.Join(out.tmp, "meta.json"), func(b *bytes.Buffer) error { return report.WriteJSON(b, sc.meta(prov, &sp)) }); err != nil {
				return sum, err
			}
		}
	}
	return sum, nil
}

// rowSaturation says whether this one rate row saturated, and why.
func rowSaturation(r report.NocRow) string {
	if r.Saturated {
		return "saturated (" + r.SaturationReason + ")"
	}
	return "not saturated"
}
