package study

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"nocsim/mpi"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// The workload kinds of the kinds table but thesis (workload.go): each
// builds its runner from the [workload] keys (config.go), checks it, and
// turns its rows into headline lines and charts.

// nocKind runs the [noc] sweep of synthetic traffic.
type nocKind struct{}

func (nocKind) Check(sc *scenarios.Scenario, src scenarios.Source) error {
	_, err := sc.NocPoints(src)
	return err
}

func (nocKind) Run(sc *scenarios.Scenario, opt scenarios.RunOptions) (*Result, error) {
	pts, _ := sc.NocPoints(nil)
	res, err := RunNoc(pts, opt)
	if err != nil {
		return nil, err
	}
	nr := NocRows(pts, res)
	kr := &Result{Rows: nr}
	for _, r := range nr {
		kr.FlitHops += r.FlitHops
	}
	for _, r := range nr {
		kr.Lines = append(kr.Lines, fmt.Sprintf("%s at %.3f flits/node/cycle: %.1f cycles average latency, %s", r.Traffic, r.OfferedRate, r.AvgPacketLatency, rowSaturation(r)))
	}
	kr.Charts = []Chart{{File: "latency.png", Draw: func() plots.Chart { return report.NocChart(nr, sc.Name+": "+sc.NocTitle()) }}}
	return kr, nil
}

// rowSaturation says whether this one rate row saturated, and why.
func rowSaturation(r report.NocRow) string {
	if r.Saturated {
		return "saturated (" + r.SaturationReason + ")"
	}
	return "not saturated"
}

// pingPongKind runs a ping-pong between two ranks.
type pingPongKind struct{}

func (pingPongKind) Check(sc *scenarios.Scenario, src scenarios.Source) error {
	return pingPong(sc).Check(sc, src)
}

func (pingPongKind) Run(sc *scenarios.Scenario, opt scenarios.RunOptions) (*Result, error) {
	pp := pingPong(sc)
	if opt.Record != nil {
		pp.Record = func(w *mpi.World) { opt.Record("pingpong", w.Trace()) }
	}
	ppsc := sc
	if opt.Trace != nil {
		traced := *sc
		traced.MPI = traced.MPI.TraceTo(opt.Trace, 0, fmt.Sprintf("pingpong %d -> %d", pp.From, pp.To))
		ppsc = &traced
	}
	pr, _, err := pp.Run(ppsc)
	if err != nil {
		return nil, err
	}
	kr := &Result{Rows: pr}
	for _, r := range pr {
		kr.Lines = append(kr.Lines, fmt.Sprintf("%d bytes: %.1f cycles one way", r.SizeBytes, r.OneWayCycles))
	}
	if slices.ContainsFunc(pr, func(r report.PingRow) bool { return r.SizeBytes > 0 }) {
		kr.Charts = []Chart{{File: "pingpong.png", Draw: func() plots.Chart { return report.PingPongChart(pr, sc.MachineText()) }}}
	}
	return kr, nil
}

// collKind runs a collective sweep, on the chip or on the LogGOPS tier.
type collKind struct{}

func (collKind) Check(sc *scenarios.Scenario, src scenarios.Source) error {
	if sc.OnTier() {
		ts, _, err := tierSweep(sc)
		if err != nil {
			return err
		}
		return ts.Check()
	}
	return collSweep(sc).Check(sc, src)
}

func (collKind) Run(sc *scenarios.Scenario, opt scenarios.RunOptions) (*Result, error) {
	if sc.OnTier() {
		return runCollTier(sc, opt)
	}
	cr, err := collSweep(sc).Run(sc, opt)
	if err != nil {
		return nil, err
	}
	kr := &Result{Rows: cr}
	for _, r := range cr {
		kr.Lines = append(kr.Lines, fmt.Sprintf("%s %s, P=%d, %d bytes: %d cycles, correct %v%s", r.Op, r.Algorithm, r.Procs, r.SizeBytes, r.Cycles, r.Correct, energyText(r.Energy)))
	}
	// Against size when several were run, else against P.
	x := "procs"
	if len(collSweep(sc).Sizes) > 1 {
		x = "size"
	}
	if ch := report.CollChart(cr, x, sc.MachineText(), ""); len(ch.Series) > 0 {
		kr.Charts = []Chart{chartOf("coll.png", ch)}
	}
	return kr, nil
}

// runCollTier runs the coll workload on the LogGOPS tier.
func runCollTier(sc *scenarios.Scenario, opt scenarios.RunOptions) (*Result, error) {
	ts, warnings, err := tierSweep(sc)
	if err != nil {
		return nil, err
	}
	kr := &Result{}
	for _, w := range warnings {
		kr.Lines = append(kr.Lines, "warning: [workload] params: "+w)
	}
	tr, err := ts.Run(opt)
	if err != nil {
		return nil, err
	}
	kr.Rows = tr
	for _, r := range tr {
		kr.Lines = append(kr.Lines, fmt.Sprintf("%s %s on the LogGOPS tier, P=%d, %d bytes: %.1f cycles", r.Op, r.Algorithm, r.Procs, r.SizeBytes, r.Cycles))
	}
	kr.Charts = []Chart{{File: "tier.png", Draw: func() plots.Chart { return report.CollTierChart(tr, ts.ParamsName) }}}
	return kr, nil
}

// pairsKind runs Radke's pairs benchmark.
type pairsKind struct{}

func (pairsKind) Check(sc *scenarios.Scenario, src scenarios.Source) error {
	return pairsBench(sc).Check(sc, src)
}

func (pairsKind) Run(sc *scenarios.Scenario, opt scenarios.RunOptions) (*Result, error) {
	pr, err := pairsBench(sc).Run(sc, opt)
	if err != nil {
		return nil, err
	}
	kr := &Result{Rows: pr, Charts: pairsCharts(sc, pr)}
	for _, r := range pr {
		kr.Lines = append(kr.Lines, fmt.Sprintf("%s %s, %d pairs, %d bytes: %.3f bytes/cycle per pair (%.1f MB/s), %.3f aggregate, correct %v",
			r.Topology, r.Version, r.Pairs, r.SizeBytes, r.MeanPairBW, r.MeanPairMBps, r.AggregateBW, r.Correct))
	}
	return kr, nil
}

// calibrateKind runs the LogGP calibration; params.json when the fit is valid.
type calibrateKind struct{}

func (calibrateKind) Check(sc *scenarios.Scenario, src scenarios.Source) error {
	return CheckCalibration(sc, calibrationSizes(sc), sc.Workload.Reps)
}

func (calibrateKind) Run(sc *scenarios.Scenario, opt scenarios.RunOptions) (*Result, error) {
	cal, err := Calibrate(sc, calibrationSizes(sc), max(sc.Workload.Reps, 1))
	if err != nil {
		return nil, err
	}
	kr := &Result{Rows: cal.Report}
	saved := ""
	if err := cal.Report.Params.Validate(); err == nil {
		saved = "params.json"
		var pb bytes.Buffer
		if err := report.WriteJSON(&pb, cal.Report.Params); err != nil {
			return nil, err
		}
		kr.Files = []File{{Name: "params.json", Text: pb.Bytes()}}
	}
	var tb bytes.Buffer
	cal.Report.WriteText(&tb)
	kr.Lines = strings.Split(strings.TrimSpace(tb.String()), "\n")
	kr.Charts = []Chart{{File: "oneway.png", Draw: func() plots.Chart { return CalibrationChart(cal, sc.MachineText(), saved) }}}
	return kr, nil
}

// appKind runs an application sweep, with the break-even and the tier
// prediction when asked.
type appKind struct{}

func (appKind) Check(sc *scenarios.Scenario, src scenarios.Source) error {
	if err := appSweep(sc).Check(sc, src); err != nil {
		return err
	}
	_, _, err := sc.WorkloadParams()
	return err
}

func (appKind) Run(sc *scenarios.Scenario, opt scenarios.RunOptions) (*Result, error) {
	sw := appSweep(sc)
	params, warnings, err := sc.WorkloadParams()
	if err != nil {
		return nil, err
	}
	sw.Params = params
	kr := &Result{}
	for _, w := range warnings {
		kr.Lines = append(kr.Lines, "warning: [workload] params: "+w)
	}
	ar, err := sw.Run(sc, opt)
	if err != nil {
		return nil, err
	}
	kr.Rows = ar
	for _, r := range ar {
		line := fmt.Sprintf("%s %s %s, P=%d, size %d: %d cycles, %s %.2f, correct %v", r.App, r.Variant, r.Version, r.Procs, r.Size, r.Cycles, r.SpeedupName(), r.Speedup, r.Correct)
		if r.TierColumns != nil {
			line += fmt.Sprintf("; LogGOPS tier %.0f cycles (%+.1f%%)", r.TierCycles, r.TierErrPct)
		}
		line += energyText(r.Energy)
		kr.Lines = append(kr.Lines, line)
	}
	var be []report.BreakEven
	if sw.BreakEven() {
		be = report.GlobalSumBreakEven(ar)
		var b bytes.Buffer
		if err := report.WriteJSON(&b, be); err != nil {
			return nil, err
		}
		kr.Files = []File{{Name: "breakeven.json", Text: b.Bytes()}}
		for _, b := range be {
			kr.Lines = append(kr.Lines, fmt.Sprintf("break-even, size %d, serial %s vs hypercube %s: %s", b.Size, b.SerialVersion, b.HypercubeVersion, b.Describe()))
		}
	}
	kr.Charts = appCharts(sc, ar, be, params != nil)
	return kr, nil
}

// appCharts are an application sweep's charts: time, break-even (with
// be), speedup, efficiency, the tier's prediction (with params) and MPI
// against native (with both versions).
func appCharts(sc *scenarios.Scenario, ar []report.AppRow, be []report.BreakEven, params bool) []Chart {
	machine, paramsFile := sc.MachineText(), filepath.Base(sc.Workload.Params)
	cs := []Chart{{File: "time.png", Draw: func() plots.Chart { return report.TimeChart(ar, sc.Node.ClockHz, machine) }}}
	if be != nil {
		cs = append(cs, Chart{File: "breakeven.png", Draw: func() plots.Chart { return report.BreakEvenChart(be, machine) }})
	}
	cs = append(cs, Chart{File: "speedup.png", Draw: func() plots.Chart { return report.SpeedupChart(ar, machine, paramsFile) }},
		Chart{File: "efficiency.png", Draw: func() plots.Chart { return report.EfficiencyChart(ar, machine) }})
	if params {
		if tier := report.AppTierChart(ar, machine, paramsFile); len(tier.Series) > 0 {
			cs = append(cs, Chart{File: "tier.png", Draw: func() plots.Chart { return tier }, Width: 8, Height: 4})
		}
	}
	if ratio := report.RatioChart(ar, machine); len(ratio.Series) > 0 {
		cs = append(cs, chartOf("mpi-vs-native.png", ratio))
	}
	return cs
}
