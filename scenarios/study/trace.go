package study

import (
	"fmt"
	"slices"
	"strings"

	"nocsim/scenarios"
)

// traceable is a kind whose runs may hold MPI runs on the flit-level
// chip: checkTrace says whether this scenario's do.
type traceable interface {
	checkTrace(sc *scenarios.Scenario) error
}

// CheckTrace tells whether the workload's runs can be traced (RunOptions.
// Trace): its MPI runs on the flit-level chip. A workload without any is
// refused, so that a trace is never silently empty.
func CheckTrace(sc *scenarios.Scenario) error {
	if t, ok := kinds[sc.Workload.Kind].(traceable); ok {
		return t.checkTrace(sc)
	}
	return fmt.Errorf("[workload] kind = %s: no MPI runs to trace; allowed kind pingpong, pairs, coll (on the chip) or app", sc.Workload.Kind)
}

func (pingPongKind) checkTrace(sc *scenarios.Scenario) error { return nil }

func (collKind) checkTrace(sc *scenarios.Scenario) error {
	if sc.OnTier() {
		return fmt.Errorf("[workload] tier = %s: the LogGOPS tier runs no chip to trace; allowed kind pingpong, coll on the chip, or app with MPI versions", sc.Workload.Tier)
	}
	return nil
}

func (appKind) checkTrace(sc *scenarios.Scenario) error   { return mpiVersionTraced(sc) }
func (pairsKind) checkTrace(sc *scenarios.Scenario) error { return mpiVersionTraced(sc) }

// mpiVersionTraced refuses a run of native versions only: they have no
// MPI to trace.
func mpiVersionTraced(sc *scenarios.Scenario) error {
	if w := sc.Workload; !slices.Contains(w.Versions, "mpi") {
		return fmt.Errorf("[workload] versions = %s: no MPI runs to trace; allowed with mpi among the versions", strings.Join(w.Versions, ","))
	}
	return nil
}
