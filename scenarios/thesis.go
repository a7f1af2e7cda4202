package scenarios

import (
	"fmt"
	"slices"

	"nocsim/des"
	"nocsim/scenarios/apps"
)

// ThesisResult is one table row run on a machine: the thesis's figures
// beside nocsim's, both versions.
type ThesisResult struct {
	Row         ThesisRow
	Native, MPI des.Time // cycles
	// Correct: both versions' answers passed their checks against gonum.
	Correct bool
	Detail  string
}

// NativeK and MPIK are nocsim's times in thousands of cycles, the
// thesis's unit.
func (r ThesisResult) NativeK() float64 { return float64(r.Native) / 1000 }

// MPIK is the MPI version's time in thousands of cycles.
func (r ThesisResult) MPIK() float64 { return float64(r.MPI) / 1000 }

// Ratio is nocsim's MPI/native time ratio.
func (r ThesisResult) Ratio() float64 { return float64(r.MPI) / float64(r.Native) }

// errPct is the relative error of got against the reference want, in %.
func errPct(got, want float64) float64 { return 100 * (got - want) / want }

// ThesisRecord is one row as --json prints it; every time is in
// thousands of cycles and every error in % of the thesis's value.
type ThesisRecord struct {
	Nonzeros           int     `json:"nonzeros,omitempty"`
	Matrix             int     `json:"matrix,omitempty"`
	Procs              int     `json:"procs"`
	Distribute         string  `json:"distribute,omitempty"`
	ThesisNativeKCycle float64 `json:"thesis_native_kcycles"`
	ThesisMPIKCycle    float64 `json:"thesis_mpi_kcycles"`
	ThesisRatio        float64 `json:"thesis_ratio"`
	NativeKCycle       float64 `json:"native_kcycles"`
	MPIKCycle          float64 `json:"mpi_kcycles"`
	Ratio              float64 `json:"ratio"`
	NativeErrPct       float64 `json:"native_err_pct"`
	MPIErrPct          float64 `json:"mpi_err_pct"`
	RatioErrPct        float64 `json:"ratio_err_pct"`
	Correct            bool    `json:"correct"`
}

// Record is the row's JSON form.
func (r ThesisResult) Record() ThesisRecord {
	t := r.Row
	return ThesisRecord{Nonzeros: t.Nonzeros, Matrix: t.Matrix, Procs: t.Procs, Distribute: t.Distribute,
		ThesisNativeKCycle: t.NativeK, ThesisMPIKCycle: t.MPIK, ThesisRatio: t.Ratio(),
		NativeKCycle: r.NativeK(), MPIKCycle: r.MPIK(), Ratio: r.Ratio(),
		NativeErrPct: errPct(r.NativeK(), t.NativeK), MPIErrPct: errPct(r.MPIK(), t.MPIK),
		RatioErrPct: errPct(r.Ratio(), t.Ratio()), Correct: r.Correct}
}

// ThesisRows selects rows of table ("5.1" or "5.2"), keeping those whose
// processor count is in procs (all when procs is empty) and whose size is
// in sizes (all when empty).
func ThesisRows(table string, procs, sizes []int) ([]ThesisRow, error) {
	rows, ok := ThesisTables[table]
	if !ok {
		return nil, fmt.Errorf("table = %q: allowed 5.1, 5.2", table)
	}
	var out []ThesisRow
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

// RunThesis runs every row on sc's machine, each on a chip of the row's
// processor grid (apps.QRThesisGrid), native and MPI, in parallel across runs;
// results are in row order and do not depend on the worker count.
func RunThesis(sc *Scenario, rows []ThesisRow, opt RunOptions) ([]ThesisResult, error) {
	res := make([]ThesisResult, len(rows))
	runs := make([]apps.Result, 2*len(rows))
	err := forEach(len(runs), opt, func(i int) error {
		a, err := runThesisVersion(sc, rows[i/2], i%2 == 0)
		runs[i] = a
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, r := range rows {
		nat, mp := runs[2*i], runs[2*i+1]
		res[i] = ThesisResult{Row: r, Native: nat.Cycles, MPI: mp.Cycles, Correct: nat.Correct && mp.Correct,
			Detail: fmt.Sprintf("native: %s; mpi: %s", nat.Detail, mp.Detail)}
	}
	return res, nil
}

// thesisScenario is sc on the row's chip: exactly the row's processors,
// as the grid section 5.2.1 tiles over the matrix (apps.QRThesisGrid: 2x2,
// 4x2, 4x4, 8x4, 8x8), for CG rows too.
func thesisScenario(sc *Scenario, r ThesisRow) (Scenario, error) {
	x, y := apps.QRThesisGrid(r.Procs)
	s := *sc
	s.Network.Mesh = fmt.Sprintf("%dx%d", x, y)
	s.MPI.Procs = r.Procs
	return s, nil
}
