package mpi

import (
	"slices"
	"testing"

	sched "nocsim/coll"
)

// opsRunningPrograms are the operations whose calls run coll programs.
var opsRunningPrograms = map[string]bool{"barrier": true, "bcast": true, "scatter": true, "gather": true, "allgather": true, "alltoall": true, "reduce": true, "allreduce": true, "reduce_scatter": true, "scan": true}

// TestEveryAlgorithmRuns checks that each registry entry carries code of
// its operation's runner type, the one the operation's call asserts: an
// entry with none, or with another operation's, would be listed and
// accepted by Validate yet fail as "unknown" when run.
func TestEveryAlgorithmRuns(t *testing.T) {
	for _, e := range algIndex {
		var ok bool
		switch e.Op {
		case "barrier":
			_, ok = e.run.(barrierRun)
		case "bcast":
			_, ok = e.run.(bcastRun)
		case "scatter":
			_, ok = e.run.(scatterRun)
		case "gather":
			_, ok = e.run.(gatherRun)
		case "allgather":
			_, ok = e.run.(allgatherRun)
		case "alltoall":
			_, ok = e.run.(alltoallRun)
		}
		if _, prog := e.run.(*sched.Algorithm); prog && opsRunningPrograms[e.Op] {
			ok = true
		}
		if !ok {
			t.Errorf("%s %s: runner %T is not the operation's", e.Op, e.Name, e.run)
		}
	}
}

// TestProfileAlgorithmsHidden checks that the thesis profile's own code is
// registered for every operation whose profile algorithm is "thesis", yet
// neither listed nor selectable.
func TestProfileAlgorithmsHidden(t *testing.T) {
	for _, op := range sched.Ops {
		if slices.Contains(sched.Names(op), "thesis") {
			t.Errorf("%s: the profile's code is listed as selectable", op)
		}
		if alg := ThesisAlgorithm(op); lookupAlg(op, alg).run == nil {
			t.Errorf("%s: the thesis profile runs %q, which has no code", op, alg)
		}
	}
}
