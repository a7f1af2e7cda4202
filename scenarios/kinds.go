package scenarios

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"nocsim/mpi"
	"nocsim/scenarios/report"
)

// kindResult is what one workload kind's run gives Scenario.Run, which
// writes it the same way for every kind.
type kindResult struct {
	rows     any          // results.json, and results.csv when a slice
	lines    []string     // the summary's headline lines
	chart    func() error // draws the kind's charts into the staged directory
	flitHops uint64       // counted by network (noc) runs only, for the speed meter
}

// kindRunners runs each [workload] kind: one entry per WorkloadKinds name
// (TestKindRunnersCoverWorkloadKinds), instead of a switch on the names.
var kindRunners = map[string]func(sc *Scenario, src Source, opt RunOptions, out *stagedDir, rec *GoalRecording) (kindResult, error){
	"noc":       (*Scenario).runNocKind,
	"pingpong":  (*Scenario).runPingPongKind,
	"coll":      (*Scenario).runCollKind,
	"app":       (*Scenario).runAppKind,
	"pairs":     (*Scenario).runPairsKind,
	"thesis":    (*Scenario).runThesisKind,
	"calibrate": (*Scenario).runCalibrateKind,
}

// runNocKind runs the [noc] sweep of synthetic traffic.
func (sc *Scenario) runNocKind(src Source, opt RunOptions, out *stagedDir, rec *GoalRecording) (kr kindResult, err error) {
	pts, _ := sc.NocPoints(src)
	res, err := RunNoc(pts, opt)
	if err != nil {
		return kr, err
	}
	nr := NocRows(pts, res)
	kr.rows = nr
	for _, r := range nr {
		kr.flitHops += r.FlitHops
	}
	for _, r := range nr {
		kr.lines = append(kr.lines, fmt.Sprintf("%s at %.3f flits/node/cycle: %.1f cycles average latency, %s", r.Traffic, r.OfferedRate, r.AvgPacketLatency, rowSaturation(r)))
	}
	kr.chart = func() error {
		return out.save("latency.png", func(p string) error { return report.NocChart(nr, sc.Name+": "+sc.NocTitle()).Save(p, 0, 0) })
	}
	return kr, nil
}

// runPingPongKind runs a ping-pong between two ranks.
func (sc *Scenario) runPingPongKind(src Source, opt RunOptions, out *stagedDir, rec *GoalRecording) (kr kindResult, err error) {
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
		return kr, err
	}
	kr.rows = pr
	for _, r := range pr {
		kr.lines = append(kr.lines, fmt.Sprintf("%d bytes: %.1f cycles one way", r.SizeBytes, r.OneWayCycles))
	}
	if slices.ContainsFunc(pr, func(r report.PingRow) bool { return r.SizeBytes > 0 }) {
		kr.chart = func() error {
			return out.save("pingpong.png", func(p string) error { return report.PingPongChart(pr, sc.MachineText()).Save(p, 0, 0) })
		}
	}
	return kr, nil
}

// runCollKind runs a collective sweep, on the chip or on the LogGOPS tier.
func (sc *Scenario) runCollKind(src Source, opt RunOptions, out *stagedDir, rec *GoalRecording) (kr kindResult, err error) {
	if sc.onTier() {
		ts, warnings, err := sc.tierSweep()
		if err != nil {
			return kr, err
		}
		for _, w := range warnings {
			kr.lines = append(kr.lines, "warning: [workload] params: "+w)
		}
		tr, err := ts.Run(opt)
		if err != nil {
			return kr, err
		}
		kr.rows = tr
		for _, r := range tr {
			kr.lines = append(kr.lines, fmt.Sprintf("%s %s on the LogGOPS tier, P=%d, %d bytes: %.1f cycles", r.Op, r.Algorithm, r.Procs, r.SizeBytes, r.Cycles))
		}
		kr.chart = func() error {
			return out.save("tier.png", func(p string) error { return report.CollTierChart(tr, ts.ParamsName).Save(p, 0, 0) })
		}
		return kr, nil
	}
	cr, err := sc.collSweep().Run(sc, opt)
	if err != nil {
		return kr, err
	}
	kr.rows = cr
	for _, r := range cr {
		kr.lines = append(kr.lines, fmt.Sprintf("%s %s, P=%d, %d bytes: %d cycles, correct %v", r.Op, r.Algorithm, r.Procs, r.SizeBytes, r.Cycles, r.Correct))
	}
	// Against size when several were run, else against P.
	x := "procs"
	if len(sc.collSweep().Sizes) > 1 {
		x = "size"
	}
	if ch := report.CollChart(cr, x, sc.MachineText(), ""); len(ch.Series) > 0 {
		kr.chart = func() error { return out.save("coll.png", func(p string) error { return ch.Save(p, 0, 0) }) }
	}
	return kr, nil
}

// runAppKind runs an application sweep, with the break-even and the tier prediction when asked.
func (sc *Scenario) runAppKind(src Source, opt RunOptions, out *stagedDir, rec *GoalRecording) (kr kindResult, err error) {
	var be []report.BreakEven
	sw := sc.appSweep()
	params, warnings, err := sc.workloadParams()
	if err != nil {
		return kr, err
	}
	sw.Params = params
	for _, w := range warnings {
		kr.lines = append(kr.lines, "warning: [workload] params: "+w)
	}
	ar, err := sw.Run(sc, opt)
	if err != nil {
		return kr, err
	}
	kr.rows = ar
	for _, r := range ar {
		line := fmt.Sprintf("%s %s %s, P=%d, size %d: %d cycles, %s %.2f, correct %v", r.App, r.Variant, r.Version, r.Procs, r.Size, r.Cycles, r.SpeedupName(), r.Speedup, r.Correct)
		if r.TierColumns != nil {
			line += fmt.Sprintf("; LogGOPS tier %.0f cycles (%+.1f%%)", r.TierCycles, r.TierErrPct)
		}
		kr.lines = append(kr.lines, line)
	}
	if sw.BreakEven() {
		be = report.GlobalSumBreakEven(ar)
		if err := out.write("breakeven.json", func(b *bytes.Buffer) error { return report.WriteJSON(b, be) }); err != nil {
			return kr, err
		}
		for _, b := range be {
			kr.lines = append(kr.lines, fmt.Sprintf("break-even, size %d, serial %s vs hypercube %s: %s", b.Size, b.SerialVersion, b.HypercubeVersion, b.Describe()))
		}
	}
	kr.chart = func() error {
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
	return kr, nil
}

// runPairsKind runs Radke's pairs benchmark.
func (sc *Scenario) runPairsKind(src Source, opt RunOptions, out *stagedDir, rec *GoalRecording) (kr kindResult, err error) {
	pr, err := sc.pairsBench().Run(sc, opt)
	if err != nil {
		return kr, err
	}
	kr.rows = pr
	for _, r := range pr {
		kr.lines = append(kr.lines, fmt.Sprintf("%s %s, %d pairs, %d bytes: %.3f bytes/cycle per pair (%.1f MB/s), %.3f aggregate, correct %v",
			r.Topology, r.Version, r.Pairs, r.SizeBytes, r.MeanPairBW, r.MeanPairMBps, r.AggregateBW, r.Correct))
	}
	kr.chart = func() error { return sc.pairsCharts(pr, out) }
	return kr, nil
}

// runThesisKind runs the thesis table reproduction.
func (sc *Scenario) runThesisKind(src Source, opt RunOptions, out *stagedDir, rec *GoalRecording) (kr kindResult, err error) {
	trows, _ := sc.thesisRows()
	res, err := RunThesis(sc, trows, opt)
	if err != nil {
		return kr, err
	}
	recs := make([]report.ThesisRecord, len(res))
	for i, r := range res {
		recs[i] = r.Record()
		kr.lines = append(kr.lines, fmt.Sprintf("table %s, size %d, P=%d: native %.0f (thesis %.0f), MPI %.0f (thesis %.0f) kcycles, ratio %.3f (thesis %.3f)",
			r.Row.Table, r.Row.Size(), r.Row.Procs, r.NativeK(), r.Row.NativeK, r.MPIK(), r.Row.MPIK, r.Ratio(), r.Row.Ratio()))
	}
	kr.rows = recs
	kr.chart = func() error {
		for _, ch := range report.ThesisCharts(res, ThesisMachineText(res, sc.Name, sc)) {
			if err := out.save(ch.File, func(p string) error { return ch.Chart.Save(p, 8, 4.5) }); err != nil {
				return err
			}
		}
		return nil
	}
	return kr, nil
}

// runCalibrateKind runs the LogGP calibration; params.json when the fit is valid.
func (sc *Scenario) runCalibrateKind(src Source, opt RunOptions, out *stagedDir, rec *GoalRecording) (kr kindResult, err error) {
	sizes := sc.Workload.Sizes
	if len(sizes) == 0 {
		sizes = DefaultCalibrationSizes
	}
	cal, err := sc.Calibrate(sizes, max(sc.Workload.Reps, 1))
	if err != nil {
		return kr, err
	}
	kr.rows = cal.Report
	saved := ""
	if err := cal.Report.Params.Validate(); err == nil {
		saved = "params.json"
		var pb bytes.Buffer
		if err := report.WriteJSON(&pb, cal.Report.Params); err != nil {
			return kr, err
		}
		if err := out.write("params.json", func(b *bytes.Buffer) error { _, err := b.Write(pb.Bytes()); return err }); err != nil {
			return kr, err
		}
	}
	var tb bytes.Buffer
	cal.Report.WriteText(&tb)
	kr.lines = strings.Split(strings.TrimSpace(tb.String()), "\n")
	kr.chart = func() error {
		return out.save("oneway.png", func(p string) error { return CalibrationChart(cal, sc.MachineText(), saved).Save(p, 0, 0) })
	}
	return kr, nil
}
