package thesis

import (
	"fmt"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"slices"

	"nocsim/scenarios/apps"
)

// Rows selects rows of table ("5.1" or "5.2"), keeping those whose
// processor count is in procs (all when procs is empty) and whose size is
// in sizes (all when empty).
func Rows(table string, procs, sizes []int) ([]report.ThesisRow, error) {
	rows, ok := Tables[table]
	if !ok {
		return nil, fmt.Errorf("table = %q: allowed 5.1, 5.2", table)
	}
	var out []report.ThesisRow
	for _, r := range rows {
		if (len(procs) == 0 || slices.Contains(procs, r.Procs)) && (len(sizes) == 0 || slices.Contains(sizes, r.Size())) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no row of table %s has procs in %v and size in %v", table, procs, sizes)
	}
	return out, nil
}

// Run runs every row on sc's machine, each on a chip of the row's
// processor grid (apps.QRThesisGrid), native and MPI, in parallel across runs;
// results are in row order and do not depend on the worker count. Each
// version's energy is priced under sc's [energy] model (every chip it ran
// on, as nocsim app prices a version), unless the model is none.
func Run(sc *scenarios.Scenario, rows []report.ThesisRow, opt scenarios.RunOptions) ([]report.ThesisResult, error) {
	res := make([]report.ThesisResult, len(rows))
	runs := make([]apps.Result, 2*len(rows))
	energy := make([]*report.Energy, 2*len(rows))
	err := scenarios.ForEach(len(runs), opt, func(i int) error {
		a, e, err := runVersion(sc, rows[i/2], i%2 == 0)
		runs[i], energy[i] = a, e
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, r := range rows {
		nat, mp := runs[2*i], runs[2*i+1]
		res[i] = report.ThesisResult{Row: r, Native: nat.Cycles, MPI: mp.Cycles, Correct: nat.Correct && mp.Correct,
			Detail:       fmt.Sprintf("native: %s; mpi: %s", nat.Detail, mp.Detail),
			NativeEnergy: energy[2*i], MPIEnergy: energy[2*i+1]}
	}
	return res, nil
}

// rowScenario is sc on the row's chip: exactly the row's processors,
// as the grid section 5.2.1 tiles over the matrix (apps.QRThesisGrid: 2x2,
// 4x2, 4x4, 8x4, 8x8), for CG rows too.
func rowScenario(sc *scenarios.Scenario, r report.ThesisRow) (scenarios.Scenario, error) {
	x, y := apps.QRThesisGrid(r.Procs)
	s := *sc
	s.Network.Mesh = fmt.Sprintf("%dx%d", x, y)
	s.MPI.Procs = r.Procs
	return s, nil
}
