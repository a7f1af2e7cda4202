package study

import (
	"nocsim/scenarios"
)

// The runners a scenario's [workload] keys describe, with the defaults
// of the keys the file leaves out, and what their runs allow.

func procsOrAll(sc *scenarios.Scenario) []int {
	if len(sc.Workload.Procs) > 0 {
		return sc.Workload.Procs
	}
	return []int{sc.Machine().Tiles()}
}

func pingPong(sc *scenarios.Scenario) *PingPong {
	w := sc.Workload
	to := w.To
	if to < 0 {
		to = sc.Machine().Tiles() - 1
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

func pairsBench(sc *scenarios.Scenario) *Pairs {
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

func collSweep(sc *scenarios.Scenario) *CollSweep {
	w := sc.Workload
	sizes := w.Sizes
	if len(sizes) == 0 {
		sizes = []int{8, 1024, 65536}
	}
	return &CollSweep{Op: w.Op, Algs: w.Algs, Procs: procsOrAll(sc), Sizes: sizes, Root: w.Root}
}

func appSweep(sc *scenarios.Scenario) *AppSweep {
	w := sc.Workload
	v := w.Variant
	if vs := Apps[w.App]; v == "" && len(vs) > 0 {
		v = vs[0]
	}
	sizes := w.Sizes
	if len(sizes) == 0 {
		sizes = []int{64, 256}
	}
	return &AppSweep{App: w.App, Variant: v, Procs: procsOrAll(sc), Sizes: sizes, Versions: w.Versions, Seed: uint64(w.AppSeed),
		Nonzeros: w.Nonzeros, Distribute: w.Distribute, Grid: w.Grid}
}

// calibrationSizes are the workload's sizes, or the default set.
func calibrationSizes(sc *scenarios.Scenario) []int {
	if len(sc.Workload.Sizes) == 0 {
		return DefaultCalibrationSizes
	}
	return sc.Workload.Sizes
}
