package report

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"nocsim/des"
)

// ThesisRow is one row of the thesis's Table 5.1 (conjugate gradient,
// sized by nonzeros) or Table 5.2 (QR decomposition, sized by the matrix
// order): what J. H. Poole measured on the SCMP simulator, in thousands of
// processor cycles ("thousands of clock ticks (or microseconds, assuming
// a 1 GHz system clock)", chapter 5).
type ThesisRow struct {
	// Table is "5.1" or "5.2".
	Table string
	// Nonzeros is the CG matrix's nonzero count (Table 5.1; 0 in 5.2).
	Nonzeros int
	// Matrix is the QR matrix order N of an N x N matrix (Table 5.2; 0
	// in 5.1).
	Matrix int
	// Procs is the processor count.
	Procs int
	// NativeK and MPIK are the thesis's native SCMP and MPI times, in
	// thousands of cycles.
	NativeK, MPIK float64
	// Distribute is how a Table 5.1 run's MPI version distributes p: ""
	// (a loop of packed broadcasts, as written) or "alltoall" (one
	// MPI_Alltoallw, the thesis's section 6.1 future work). Not a thesis
	// figure: the caller sets it to compare the two.
	Distribute string
}

// Ratio is the thesis's MPI/native ratio, from its two times (the table's
// own Ratio column agrees to its three decimals).
func (r ThesisRow) Ratio() float64 { return r.MPIK / r.NativeK }

// Size is the row's problem size: nonzeros (5.1) or matrix order (5.2).
func (r ThesisRow) Size() int { return r.Nonzeros + r.Matrix }

// ThesisResult is one table row run on a machine: the thesis's figures
// beside nocsim's, both versions.
type ThesisResult struct {
	Row         ThesisRow
	Native, MPI des.Time // cycles
	// Correct: both versions' answers passed their checks against gonum.
	Correct bool
	Detail  string
	// NativeEnergy and MPIEnergy are each version's energy under the
	// machine's [energy] model: every chip the version ran on, from its
	// first cycle to its last (nocsim app's pricing); nil with
	// energy_model = none.
	NativeEnergy, MPIEnergy *Energy
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
	// nocsim's energy of each version (pJ), its average power (mW) and
	// the MPI/native energy ratio; absent without an energy model.
	NativeEnergyPJ float64 `json:"native_energy_pj,omitempty"`
	NativePowerMW  float64 `json:"native_power_mw,omitempty"`
	MPIEnergyPJ    float64 `json:"mpi_energy_pj,omitempty"`
	MPIPowerMW     float64 `json:"mpi_power_mw,omitempty"`
	EnergyRatio    float64 `json:"energy_ratio,omitempty"`
}

// Record is the row's JSON form.
func (r ThesisResult) Record() ThesisRecord {
	t := r.Row
	return ThesisRecord{Nonzeros: t.Nonzeros, Matrix: t.Matrix, Procs: t.Procs, Distribute: t.Distribute,
		ThesisNativeKCycle: t.NativeK, ThesisMPIKCycle: t.MPIK, ThesisRatio: t.Ratio(),
		NativeKCycle: r.NativeK(), MPIKCycle: r.MPIK(), Ratio: r.Ratio(),
		NativeErrPct: errPct(r.NativeK(), t.NativeK), MPIErrPct: errPct(r.MPIK(), t.MPIK),
		RatioErrPct: errPct(r.Ratio(), t.Ratio()), Correct: r.Correct,
		NativeEnergyPJ: r.NativeEnergy.total(), NativePowerMW: r.NativeEnergy.power(),
		MPIEnergyPJ: r.MPIEnergy.total(), MPIPowerMW: r.MPIEnergy.power(), EnergyRatio: r.EnergyRatio()}
}

// EnergyRatio is nocsim's MPI/native energy ratio; 0 unless both
// versions were priced.
func (r ThesisResult) EnergyRatio() float64 {
	if r.NativeEnergy == nil || r.MPIEnergy == nil || r.NativeEnergy.TotalPJ <= 0 {
		return 0
	}
	return r.MPIEnergy.TotalPJ / r.NativeEnergy.TotalPJ
}

// total and power are e's energy (pJ) and power (mW), 0 for none.
func (e *Energy) total() float64 {
	if e == nil {
		return 0
	}
	return e.TotalPJ
}

func (e *Energy) power() float64 {
	if e == nil {
		return 0
	}
	return e.PowerMW
}

// WriteThesisTable prints the thesis's figures and nocsim's side by side,
// in thousands of cycles as the thesis reports them, then, when the runs
// were priced, nocsim's energy (uJ: a row runs for milliseconds) and
// power of each version and their energy ratio.
func WriteThesisTable(out io.Writer, res []ThesisResult) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	size := "nonzeros"
	if res[0].Row.Table == "5.2" {
		size = "matrix"
	}
	energy := slices.ContainsFunc(res, func(r ThesisResult) bool { return r.NativeEnergy != nil || r.MPIEnergy != nil })
	head, units := "", ""
	if energy {
		head = "native energy\tnative power\tMPI energy\tMPI power\tenergy ratio\t"
		units = "(uJ)\t(mW)\t(uJ)\t(mW)\t(MPI/native)\t"
	}
	fmt.Fprintf(tw, "%s\tprocs\tthesis native\tnocsim native\terror\tthesis MPI\tnocsim MPI\terror\tthesis ratio\tnocsim ratio\terror\t%s\n", size, head)
	fmt.Fprintln(tw, "\t\t(kcycles)\t(kcycles)\t(%)\t(kcycles)\t(kcycles)\t(%)\t(MPI/native)\t(MPI/native)\t(%)\t"+units)
	for _, r := range res {
		k := r.Record()
		sz := fmt.Sprint(r.Row.Size())
		if r.Row.Matrix > 0 {
			sz = fmt.Sprintf("%dx%d", r.Row.Matrix, r.Row.Matrix)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%+.1f\t%.0f\t%.0f\t%+.1f\t%.3f\t%.3f\t%+.1f\t", sz, k.Procs,
			k.ThesisNativeKCycle, k.NativeKCycle, k.NativeErrPct, k.ThesisMPIKCycle, k.MPIKCycle, k.MPIErrPct,
			k.ThesisRatio, k.Ratio, k.RatioErrPct)
		if energy {
			fmt.Fprint(tw, uJCells(r.NativeEnergy), uJCells(r.MPIEnergy))
			if x := r.EnergyRatio(); x > 0 {
				fmt.Fprintf(tw, "%.3f\t", x)
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// uJCells are a table's energy (uJ) and power (mW) cells for e, "-" for
// a run without energy.
func uJCells(e *Energy) string {
	if e == nil {
		return "-\t-\t"
	}
	return fmt.Sprintf("%.1f\t%.1f\t", e.TotalPJ/1e6, e.PowerMW)
}
