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
	"nocsim/mpi"
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
	m, _ := ParseMesh(sc.Network.Mesh)
	return []int{m.Nodes()}
}

func (sc *Scenario) pingPong() *PingPong {
	w := sc.Workload
	to := w.To
	if to < 0 {
		m, _ := ParseMesh(sc.Network.Mesh)
		to = m.Nodes() - 1
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
	var rows any
	var chart func() error
	var flitHops uint64 // counted by network (noc) runs only
	var be []report.BreakEven
	var rec *GoalRecording
	if sc.Output.Goal != "" {
		rec = NewGoalRecording()
		opt.Record = rec.Record
	}
	switch sc.Workload.Kind {
	case "noc":
		pts, _ := sc.NocPoints(src)
		res, err := RunNoc(pts, opt)
		if err != nil {
			return sum, err
		}
		nr := NocRows(pts, res)
		rows = nr
		for _, r := range nr {
			flitHops += r.FlitHops
		}
		for _, r := range nr {
			sum.Lines = append(sum.Lines, fmt.Sprintf("%s at %.3f flits/node/cycle: %.1f cycles average latency, %s", r.Traffic, r.OfferedRate, r.AvgPacketLatency, rowSaturation(r)))
		}
		chart = func() error {
			return out.save("latency.png", func(p string) error { return report.NocChart(nr, sc.Name+": "+sc.NocTitle()).Save(p, 0, 0) })
		}
	case "pingpong":
		pp := sc.pingPong()
		if rec != nil {
			pp.Record = func(w *mpi.World) { rec.Record("pingpong", w.Trace()) }
		}
		ppsc := sc
		if opt.Trace != nil {
			traced := *sc
			traced.MPI = traced.MPI.TraceTo(opt.Trace, 0, fmt.Sprintf("pingpong %d -> %d", pp.From, pp.To))
			ppsc = &traced
		}
		pr, _, err := pp.Run(ppsc)
		if err != nil {
			return sum, err
		}
		rows = pr
		for _, r := range pr {
			sum.Lines = append(sum.Lines, fmt.Sprintf("%d bytes: %.1f cycles one way", r.SizeBytes, r.OneWayCycles))
		}
		if slices.ContainsFunc(pr, func(r report.PingRow) bool { return r.SizeBytes > 0 }) {
			chart = func() error {
				return out.save("pingpong.png", func(p string) error { return report.PingPongChart(pr, sc.MachineText()).Save(p, 0, 0) })
			}
		}
	case "coll":
		if sc.onTier() {
			ts, warnings, err := sc.tierSweep()
			if err != nil {
				return sum, err
			}
			for _, w := range warnings {
				sum.Lines = append(sum.Lines, "warning: [workload] params: "+w)
			}
			tr, err := ts.Run(opt)
			if err != nil {
				return sum, err
			}
			rows = tr
			for _, r := range tr {
				sum.Lines = append(sum.Lines, fmt.Sprintf("%s %s on the LogGOPS tier, P=%d, %d bytes: %.1f cycles", r.Op, r.Algorithm, r.Procs, r.SizeBytes, r.Cycles))
			}
			chart = func() error {
				return out.save("tier.png", func(p string) error { return report.CollTierChart(tr, ts.ParamsName).Save(p, 0, 0) })
			}
			break
		}
		cr, err := sc.collSweep().Run(sc, opt)
		if err != nil {
			return sum, err
		}
		rows = cr
		for _, r := range cr {
			sum.Lines = append(sum.Lines, fmt.Sprintf("%s %s, P=%d, %d bytes: %d cycles, correct %v", r.Op, r.Algorithm, r.Procs, r.SizeBytes, r.Cycles, r.Correct))
		}
		// Against size when several were run, else against P.
		x := "procs"
		if len(sc.collSweep().Sizes) > 1 {
			x = "size"
		}
		if ch := report.CollChart(cr, x, sc.MachineText(), ""); len(ch.Series) > 0 {
			chart = func() error { return out.save("coll.png", func(p string) error { return ch.Save(p, 0, 0) }) }
		}
	case "app":
		sw := sc.appSweep()
		params, warnings, err := sc.workloadParams()
		if err != nil {
			return sum, err
		}
		sw.Params = params
		for _, w := range warnings {
			sum.Lines = append(sum.Lines, "warning: [workload] params: "+w)
		}
		ar, err := sw.Run(sc, opt)
		if err != nil {
			return sum, err
		}
		rows = ar
		for _, r := range ar {
			line := fmt.Sprintf("%s %s %s, P=%d, size %d: %d cycles, %s %.2f, correct %v", r.App, r.Variant, r.Version, r.Procs, r.Size, r.Cycles, r.SpeedupName(), r.Speedup, r.Correct)
			if r.TierColumns != nil {
				line += fmt.Sprintf("; LogGOPS tier %.0f cycles (%+.1f%%)", r.TierCycles, r.TierErrPct)
			}
			sum.Lines = append(sum.Lines, line)
		}
		if sw.BreakEven() {
			be = report.GlobalSumBreakEven(ar)
			if err := write("breakeven.json", func(b *bytes.Buffer) error { return report.WriteJSON(b, be) }); err != nil {
				return sum, err
			}
			for _, b := range be {
				sum.Lines = append(sum.Lines, fmt.Sprintf("break-even, size %d, serial %s vs hypercube %s: %s", b.Size, b.SerialVersion, b.HypercubeVersion, b.Describe()))
			}
		}
		chart = func() error {
			if err := out.save("time.png", func(p string) error { return report.TimeChart(ar, sc.Node.ClockHz, sc.MachineText()).Save(p, 0, 0) }); err != nil {
				return err
			}
			if be != nil {
				if err := out.save("breakeven.png", func(p string) error { return report.BreakEvenChart(be, sc.MachineText()).Save(p, 0, 0) }); err != nil {
					return err
				}
			}
			if err := out.save("speedup.png", func(p string) error {
				return report.SpeedupChart(ar, sc.MachineText(), filepath.Base(sc.Workload.Params)).Save(p, 0, 0)
			}); err != nil {
				return err
			}
			if err := out.save("efficiency.png", func(p string) error { return report.EfficiencyChart(ar, sc.MachineText()).Save(p, 0, 0) }); err != nil {
				return err
			}
			if params != nil {
				tier := report.AppTierChart(ar, sc.MachineText(), filepath.Base(sc.Workload.Params))
				if len(tier.Series) > 0 {
					if err := out.save("tier.png", func(p string) error { return tier.Save(p, 8, 4) }); err != nil {
						return err
					}
				}
			}
			if ratio := report.RatioChart(ar, sc.MachineText()); len(ratio.Series) > 0 {
				return out.save("mpi-vs-native.png", func(p string) error { return ratio.Save(p, 0, 0) })
			}
			return nil
		}
	case "pairs":
		pr, err := sc.pairsBench().Run(sc, opt)
		if err != nil {
			return sum, err
		}
		rows = pr
		for _, r := range pr {
			sum.Lines = append(sum.Lines, fmt.Sprintf("%s %s, %d pairs, %d bytes: %.3f bytes/cycle per pair (%.1f MB/s), %.3f aggregate, correct %v",
				r.Topology, r.Version, r.Pairs, r.SizeBytes, r.MeanPairBW, r.MeanPairMBps, r.AggregateBW, r.Correct))
		}
		chart = func() error { return sc.pairsCharts(pr, out) }
	case "thesis":
		trows, _ := sc.thesisRows()
		res, err := RunThesis(sc, trows, opt)
		if err != nil {
			return sum, err
		}
		recs := make([]report.ThesisRecord, len(res))
		for i, r := range res {
			recs[i] = r.Record()
			sum.Lines = append(sum.Lines, fmt.Sprintf("table %s, size %d, P=%d: native %.0f (thesis %.0f), MPI %.0f (thesis %.0f) kcycles, ratio %.3f (thesis %.3f)",
				r.Row.Table, r.Row.Size(), r.Row.Procs, r.NativeK(), r.Row.NativeK, r.MPIK(), r.Row.MPIK, r.Ratio(), r.Row.Ratio()))
		}
		rows = recs
		chart = func() error {
			for _, ch := range report.ThesisCharts(res, ThesisMachineText(res, sc.Name, sc)) {
				if err := out.save(ch.File, func(p string) error { return ch.Chart.Save(p, 8, 4.5) }); err != nil {
					return err
				}
			}
			return nil
		}
	case "calibrate":
		sizes := sc.Workload.Sizes
		if len(sizes) == 0 {
			sizes = DefaultCalibrationSizes
		}
		cal, err := sc.Calibrate(sizes, max(sc.Workload.Reps, 1))
		if err != nil {
			return sum, err
		}
		rows = cal.Report
		saved := ""
		if err := cal.Report.Params.Validate(); err == nil {
			saved = "params.json"
			var pb bytes.Buffer
			if err := report.WriteJSON(&pb, cal.Report.Params); err != nil {
				return sum, err
			}
			if err := write("params.json", func(b *bytes.Buffer) error { _, err := b.Write(pb.Bytes()); return err }); err != nil {
				return sum, err
			}
		}
		var tb bytes.Buffer
		cal.Report.WriteText(&tb)
		sum.Lines = strings.Split(strings.TrimSpace(tb.String()), "\n")
		chart = func() error {
			return out.save("oneway.png", func(p string) error { return CalibrationChart(cal, sc.MachineText(), saved).Save(p, 0, 0) })
		}
	}
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
