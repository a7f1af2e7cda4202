package study

import (
	"fmt"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/thesis"
)

// Workload is one [workload] kind: what `nocsim run` does with the machine
// the other sections describe.
type Workload interface {
	// Check validates the workload's own keys and limits against the
	// scenario, before any simulation (the configuration is checked).
	Check(sc *scenarios.Scenario, src scenarios.Source) error
	// Run performs the workload; Run writes what it gives the same way
	// for every kind.
	Run(sc *scenarios.Scenario, opt scenarios.RunOptions) (*Result, error)
}

// Result is what a workload's run gives Run.
type Result struct {
	Rows     any      // results.json, and results.csv when a slice
	Lines    []string // the summary's headline lines
	Files    []File   // written beside the results (breakeven.json, params.json)
	Charts   []Chart  // drawn when [output] plots is true
	FlitHops uint64   // counted by network (noc) runs only, for the speed meter
}

// File is one more file of a run's results.
type File struct {
	Name string
	Text []byte
}

// Chart is one chart of a run, drawn only when the run draws charts.
type Chart struct {
	File          string
	Draw          func() plots.Chart
	Width, Height float64 // inches; 0 takes the plots package's default
}

// chartOf is a chart of the default size already built.
func chartOf(file string, c plots.Chart) Chart {
	return Chart{File: file, Draw: func() plots.Chart { return c }}
}

// kinds runs each [workload] kind: one entry per scenarios.WorkloadKinds
// name (TestKindsCoverWorkloadKinds), instead of a switch on the names.
var kinds = map[string]Workload{
	"noc":       nocKind{},
	"pingpong":  pingPongKind{},
	"coll":      collKind{},
	"app":       appKind{},
	"pairs":     pairsKind{},
	"thesis":    thesisKind{},
	"calibrate": calibrateKind{},
}

// Check validates everything a run of the scenario needs, before any
// simulation: every section, the workload's keys and limits, and, when the
// file has a [sweep], every axis and every point it expands to. validate,
// run and sweep all call it, so they accept exactly the same files.
func Check(sc *scenarios.Scenario, src scenarios.Source) error {
	if err := sc.CheckConfig(src); err != nil {
		return err
	}
	if err := checkWorkload(sc, src); err != nil {
		return err
	}
	if err := checkGoalOutput(sc, src); err != nil {
		return err
	}
	if len(sc.Sweep.Axis) > 0 || sc.Sweep.Reps != 0 {
		_, _, err := sc.SweepScenarios(src, checkWorkload)
		return err
	}
	return nil
}

// checkWorkload is the workload's own check of a scenario whose
// configuration passed (the kind is one of kinds).
func checkWorkload(sc *scenarios.Scenario, src scenarios.Source) error {
	return scenarios.ExplainWorkload(kinds[sc.Workload.Kind].Check(sc, src), src)
}

// thesisKind reproduces the thesis's tables (package thesis).
type thesisKind struct{}

func (thesisKind) Check(sc *scenarios.Scenario, src scenarios.Source) error {
	rows, err := thesis.WorkloadRows(sc)
	if err != nil {
		return err
	}
	return thesis.Check(sc, src, rows)
}

func (thesisKind) Run(sc *scenarios.Scenario, opt scenarios.RunOptions) (*Result, error) {
	rows, _ := thesis.WorkloadRows(sc)
	res, err := thesis.Run(sc, rows, opt)
	if err != nil {
		return nil, err
	}
	kr := &Result{}
	recs := make([]report.ThesisRecord, len(res))
	for i, r := range res {
		recs[i] = r.Record()
		line := fmt.Sprintf("table %s, size %d, P=%d: native %.0f (thesis %.0f), MPI %.0f (thesis %.0f) kcycles, ratio %.3f (thesis %.3f)",
			r.Row.Table, r.Row.Size(), r.Row.Procs, r.NativeK(), r.Row.NativeK, r.MPIK(), r.Row.MPIK, r.Ratio(), r.Row.Ratio())
		if x := r.EnergyRatio(); x > 0 {
			line += fmt.Sprintf("; energy native %.1f uJ, MPI %.1f uJ, ratio %.3f", r.NativeEnergy.TotalPJ/1e6, r.MPIEnergy.TotalPJ/1e6, x)
		}
		kr.Lines = append(kr.Lines, line)
	}
	kr.Rows = recs
	for _, ch := range thesis.Charts(res, sc.Name, sc) {
		kr.Charts = append(kr.Charts, Chart{File: ch.File, Draw: func() plots.Chart { return ch.Chart }, Width: thesis.ChartWidth, Height: thesis.ChartHeight})
	}
	return kr, nil
}
