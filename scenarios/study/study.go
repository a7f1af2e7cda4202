package study

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"nocsim/logp"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// The main job: on the embedded default machine (an SCMP-like 4x4 mesh),
// characterise the network under synthetic traffic, calibrate LogGP,
// compare collective algorithms with the model's predictions, and run CG
// and QR in MPI and native versions; write every table and chart into dir
// and return a short summary.
//
// The directory is staged beside dir and renamed into place only when the
// whole study has succeeded, so a failed or killed run never leaves a new
// config.toml beside older results.
func DefaultStudy(prov scenarios.Provenance, dir string, opt scenarios.RunOptions, log func(string)) (sum Summary, err error) {
	base, src, err := scenarios.Load()
	if err != nil {
		return Summary{}, err
	}
	out, err := scenarios.StageDir(dir)
	if err != nil {
		return Summary{}, err
	}
	defer finish(out, &sum, &err)
	sum.Dir = dir
	eff, err := base.EffectiveTOMLMarking(src, false)
	if err != nil {
		return sum, err
	}
	// The applications below use app seed 1 whatever the scenario says.
	if err := scenarios.RecordFiles(eff, prov.Meta(base.Name, "default study", base.Noc.Seed, 1), out.Write); err != nil {
		return sum, err
	}

	d := &defaultStudy{base: base, src: src, opt: opt, write: out.Write, chart: out.Save, log: log, sum: &sum}
	for _, part := range []func() error{d.network, d.calibration, d.collectives, d.applications, d.globalSum} {
		if err := part(); err != nil {
			return sum, err
		}
	}
	if opt.Speed != nil {
		if sp, ok := opt.Speed.Speed(0); ok {
			sum.Speed = &sp
			m := prov.Meta(base.Name, "default study", base.Noc.Seed, 1)
			m.Speed = &sp
			if err := out.Rewrite("meta.json", func(b *bytes.Buffer) error { return report.WriteJSON(b, m) }); err != nil {
				return sum, err
			}
		}
	}
	if err := writeReport(out); err != nil {
		return sum, err
	}
	return sum, nil
}

// defaultStudy is the default study's state between its parts: the
// scenario, where results go, and the parameters the calibration fits
// for the parts after it.
type defaultStudy struct {
	base   scenarios.Scenario
	src    scenarios.Source
	opt    scenarios.RunOptions
	write  func(name string, fill func(*bytes.Buffer) error) error
	chart  func(name string, draw func(path string) error) error
	log    func(string)
	sum    *Summary
	params logp.Params
}

// step logs the start of a part and returns what logs its end.
func (d *defaultStudy) step(s string) func() {
	start := time.Now()
	d.log(s)
	return func() { d.log(fmt.Sprintf("%s done in %.1f s", s, time.Since(start).Seconds())) }
}

// network: the network under synthetic traffic.
func (d *defaultStudy) network() error {
	// 1. The network under synthetic traffic.
	done := d.step("network: latency against offered load")
	pts, err := d.base.NocPoints(d.src)
	if err != nil {
		return err
	}
	res, err := RunNoc(pts, d.opt)
	if err != nil {
		return err
	}
	noc := NocRows(pts, res)
	if err := d.write("noc.json", func(b *bytes.Buffer) error { return report.WriteJSON(b, noc) }); err != nil {
		return err
	}
	if err := d.chart("latency.png", func(p string) error { return report.NocChart(noc, d.base.NocTitle()).Save(p, 0, 0) }); err != nil {
		return err
	}
	d.sum.Lines = append(d.sum.Lines, nocHeadline(noc)...)
	if d.base.EnergyOn() {
		if err := d.chart("energy.png", func(p string) error { return report.NocPowerChart(noc, d.base.NocTitle()).Save(p, 0, 0) }); err != nil {
			return err
		}
		d.sum.Lines = append(d.sum.Lines, energyHeadline(noc)...)
	}
	done()

	return nil
}

// calibration: LogGP from the simulator's own microbenchmarks.
func (d *defaultStudy) calibration() error {
	// 2. LogGP from the simulator's own microbenchmarks.
	done := d.step("calibration: LogGP fit")
	cal, err := Calibrate(&d.base, DefaultCalibrationSizes, 1)
	if err != nil {
		return err
	}
	d.params = cal.Report.Params
	params := d.params
	if err := params.Validate(); err != nil {
		return fmt.Errorf("calibration gave non-physical parameters: %w", err)
	}
	if err := d.write("params.json", func(b *bytes.Buffer) error { return report.WriteJSON(b, params) }); err != nil {
		return err
	}
	if err := d.write("calibration.txt", func(b *bytes.Buffer) error { return cal.Report.WriteText(b) }); err != nil {
		return err
	}
	if err := d.chart("oneway.png", func(p string) error { return CalibrationChart(cal, d.base.MachineText(), "params.json").Save(p, 0, 0) }); err != nil {
		return err
	}
	last := params.Segments[len(params.Segments)-1]
	d.sum.Lines = append(d.sum.Lines, fmt.Sprintf("LogGP (%s, long messages): L = %.0f + %.0f/hop cycles, o_s = %.0f, o_r = %.0f, g = %.0f cycles, G = %.2f cycles/byte; breakpoints %v bytes",
		params.Protocol, last.L, last.Lh, last.Os, last.Or, last.Gap, last.G, cal.Report.Breakpoints))
	done()

	return nil
}

// collectives: simulated against predicted.
func (d *defaultStudy) collectives() error {
	params := d.params
	// 3. Collectives, simulated against predicted.
	for _, op := range []string{"bcast", "allreduce"} {
		done := d.step("collectives: " + op)
		sw := &CollSweep{Op: op, Algs: AlgorithmsFor(op), Procs: []int{4, 16}, Sizes: []int{8, 1024, 16384}}
		rows, err := sw.Run(&d.base, d.opt)
		if err != nil {
			return err
		}
		if err := PredictRows(params, rows); err != nil {
			return err
		}
		if err := d.write(op+".json", func(b *bytes.Buffer) error { return report.WriteJSON(b, rows) }); err != nil {
			return err
		}
		if err := d.chart(op+".png", func(p string) error {
			return report.CollChart(rows, "size", d.base.MachineText(), "params.json").Save(p, 0, 0)
		}); err != nil {
			return err
		}
		d.sum.Lines = append(d.sum.Lines, collHeadline(op, rows, params)...)
		done()
	}

	return nil
}

// applications: the thesis's applications, MPI against native.
func (d *defaultStudy) applications() error {
	params := d.params
	// 4. The thesis's applications, MPI against native.
	for _, app := range []struct {
		name  string
		sizes []int
	}{{"cg", []int{64, 256}}, {"qr", []int{32, 64}}} {
		done := d.step("application: " + app.name)
		sw := &AppSweep{App: app.name, Procs: []int{1, 4, 16}, Sizes: app.sizes, Versions: []string{"mpi", "native"}, Seed: 1}
		if app.name == "cg" {
			sw.Params = &params // the LogGOPS tier predicts each MPI run's recorded schedule
		}
		rows, err := sw.Run(&d.base, d.opt)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if !r.Correct {
				return fmt.Errorf("%s %s, P=%d, size %d: wrong answer (%s)", r.App, r.Version, r.Procs, r.Size, r.Detail)
			}
		}
		if err := d.write(app.name+".json", func(b *bytes.Buffer) error { return report.WriteJSON(b, rows) }); err != nil {
			return err
		}
		if err := d.chart(app.name+"-speedup.png", func(p string) error {
			return report.SpeedupChart(rows, d.base.MachineText(), "params.json").Save(p, 0, 0)
		}); err != nil {
			return err
		}
		if err := d.chart(app.name+"-efficiency.png", func(p string) error { return report.EfficiencyChart(rows, d.base.MachineText()).Save(p, 0, 0) }); err != nil {
			return err
		}
		if err := d.chart(app.name+"-mpi-vs-native.png", func(p string) error { return report.RatioChart(rows, d.base.MachineText()).Save(p, 0, 0) }); err != nil {
			return err
		}
		d.sum.Lines = append(d.sum.Lines, appHeadline(rows))
		if sw.Params != nil {
			if err := d.chart(app.name+"-tier.png", func(p string) error {
				return report.AppTierChart(rows, d.base.MachineText(), "params.json").Save(p, 8, 4)
			}); err != nil {
				return err
			}
			d.sum.Lines = append(d.sum.Lines, report.TierHeadline(rows))
		}
		done()
	}

	return nil
}

// globalSum: Radke's global sum, where the hypercube overtakes the serial
// sum.
func (d *defaultStudy) globalSum() error {
	// 5. Radke's global sum: where the hypercube overtakes the serial sum.
	done := d.step("application: globalsum break-even")
	gs := &AppSweep{App: "globalsum", Variant: "breakeven", Procs: []int{2, 4, 8, 16}, Sizes: []int{1, 16, 1024}, Versions: []string{"mpi", "native"}, Seed: 1}
	rows, err := gs.Run(&d.base, d.opt)
	if err != nil {
		return err
	}
	be := report.GlobalSumBreakEven(rows)
	if err := d.write("globalsum.json", func(b *bytes.Buffer) error {
		return report.WriteJSON(b, report.BreakEvenResult{Runs: rows, BreakEven: be})
	}); err != nil {
		return err
	}
	if err := d.chart("globalsum-breakeven.png", func(p string) error { return report.BreakEvenChart(be, d.base.MachineText()).Save(p, 0, 0) }); err != nil {
		return err
	}
	for _, b := range be {
		if b.SerialVersion == "native" && b.HypercubeVersion == "mpi" {
			d.sum.Lines = append(d.sum.Lines, fmt.Sprintf("globalsum of %d-element vectors, serial (native) against hypercube (MPI): %s", b.Size, b.Describe()))
		}
	}
	done()
	return nil
}

func nocHeadline(rows []report.NocRow) []string {
	var out []string
	by := map[string][]report.NocRow{}
	var order []string
	for _, r := range rows {
		if _, ok := by[r.Traffic]; !ok {
			order = append(order, r.Traffic)
		}
		by[r.Traffic] = append(by[r.Traffic], r)
	}
	for _, t := range order {
		ok, sat := 0.0, -1.0
		for _, r := range by[t] {
			if r.Saturated && sat < 0 {
				sat = r.OfferedRate
			}
			if !r.Saturated && sat < 0 {
				ok = r.OfferedRate
			}
		}
		if sat < 0 {
			out = append(out, fmt.Sprintf("network: %s traffic unsaturated up to %.2f flits/node/cycle (zero-load latency %.1f cycles)", t, ok, by[t][0].ZeroLoadLatency))
		} else {
			out = append(out, fmt.Sprintf("network: %s traffic saturates between %.2f and %.2f flits/node/cycle", t, ok, sat))
		}
	}
	return out
}

// energyHeadline says, per pattern, what the network draws at the
// lightest and the heaviest load, how much of it is static, and what a
// delivered flit costs at the lightest load and at the heaviest load
// that did not saturate (past it the flits measured are not all those
// offered).
func energyHeadline(rows []report.NocRow) []string {
	var out []string
	order, by := []string{}, map[string][]report.NocRow{}
	for _, r := range rows {
		if r.Energy == nil {
			continue
		}
		if _, ok := by[r.Traffic]; !ok {
			order = append(order, r.Traffic)
		}
		by[r.Traffic] = append(by[r.Traffic], r)
	}
	for _, t := range order {
		rs := by[t]
		lo, hi := rs[0], rs[len(rs)-1]
		line := fmt.Sprintf("energy (%s): %s traffic %.0f mW at %.2f flits/node/cycle to %.0f mW at %.2f (%.0f mW leakage and clock)",
			report.EnergyText(rs), t, lo.Energy.PowerMW, lo.OfferedRate, hi.Energy.PowerMW, hi.OfferedRate, lo.Energy.StaticMW())
		var last *report.NocRow
		for i := range rs {
			if !rs[i].Saturated && rs[i].Energy.PerFlitPJ > 0 {
				last = &rs[i]
			}
		}
		if lo.Energy.PerFlitPJ > 0 && last != nil && last.OfferedRate != lo.OfferedRate {
			line += fmt.Sprintf("; %.1f pJ per delivered flit at %.2f, %.1f pJ at %.2f (the heaviest unsaturated load)",
				lo.Energy.PerFlitPJ, lo.OfferedRate, last.Energy.PerFlitPJ, last.OfferedRate)
		}
		out = append(out, line)
	}
	return out
}

func collHeadline(op string, rows []report.CollRow, p logp.Params) []string {
	var out []string
	type key struct{ procs, size int }
	best := map[key]report.CollRow{}
	var keys []key
	for _, r := range rows {
		k := key{r.Procs, r.SizeBytes}
		b, ok := best[k]
		if !ok {
			keys = append(keys, k)
		}
		if !ok || r.Cycles < b.Cycles {
			best[k] = r
		}
	}
	for _, k := range keys {
		if k.procs != 16 {
			continue
		}
		b := best[k]
		pick, _, _ := ChooseAlgorithm(p, op, k.procs, k.size)
		// Say how the pick did on the chip: a tie (two algorithms with the
		// same tree) reads otherwise as if the model had missed.
		how := ""
		for _, r := range rows {
			if r.Procs == k.procs && r.SizeBytes == k.size && r.Algorithm == pick && pick != b.Algorithm {
				if r.Cycles == b.Cycles {
					how = fmt.Sprintf(" (%d cycles, as fast)", r.Cycles)
				} else {
					how = fmt.Sprintf(" (%d cycles, %.0f%% slower)", r.Cycles, 100*float64(r.Cycles-b.Cycles)/float64(b.Cycles))
				}
			}
		}
		out = append(out, fmt.Sprintf("%s, P=16, %d bytes: fastest %s (%d cycles); the model picks %s%s", op, k.size, b.Algorithm, b.Cycles, pick, how))
	}
	return out
}

func appHeadline(rows []report.AppRow) string {
	var parts []string
	for _, r := range rows {
		if r.Version == "mpi" && r.Procs > 1 {
			parts = append(parts, fmt.Sprintf("P=%d N=%d: %.2f", r.Procs, r.Size, r.MPIOverNative))
		}
	}
	return fmt.Sprintf("%s: MPI/native time %s", rows[0].App, strings.Join(parts, ", "))
}
