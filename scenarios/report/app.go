package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"nocsim/logp"
)

// AppRow is one run. Speedup is against the same version and size at the
// smallest P of the sweep (the baseline, stated in BaselineProcs): for an
// application whose size is the whole problem (strong scaling) it is
// baseline P x T(baseline) / T(P), efficiency that over P; for one whose
// size is per rank (WeakScaled: the problem grows with P) it is the scaled
// speedup P x T(baseline) / T(P), efficiency the weak-scaling efficiency
// T(baseline) / T(P), and WeakScaling says so. MPIOverNative is the MPI
// version's time over the native one's at the same P and size, the layout
// of thesis tables 5.1 and 5.2. WeakScaled is scenarios'.
type AppRow struct {
	App           string  `json:"app"`
	Variant       string  `json:"variant,omitempty"`
	Version       string  `json:"version"`
	Distribute    string  `json:"distribute,omitempty"` // thesis CG, MPI: bcast or alltoall
	Procs         int     `json:"procs"`
	Size          int     `json:"size"`
	Nonzeros      int     `json:"nonzeros,omitempty"` // CG sized by nonzeros: Size is then the unknowns
	Cycles        int64   `json:"cycles"`
	Seconds       float64 `json:"seconds"`
	Correct       bool    `json:"correct"`
	Detail        string  `json:"detail"`
	BaselineProcs int     `json:"baseline_procs"`
	Speedup       float64 `json:"speedup"`
	Efficiency    float64 `json:"efficiency"`
	WeakScaling   bool    `json:"weak_scaling"` // Speedup and Efficiency are scaled speedup and weak-scaling efficiency
	MPIOverNative float64 `json:"mpi_over_native,omitempty"`
	Hockney       float64 `json:"hockney_cycles,omitempty"` // matmul with parameters: the slides' prediction
	// Scaling is, for matmul with parameters, the slides' scalability
	// conditions at this size (the same for every P of the size).
	Scaling      *logp.MatMulScaling `json:"scaling,omitempty"`
	*TierColumns                     // MPI runs with parameters: the LogGOPS tier's prediction (scenarios/study/xfid.go)
	// Energy is the version's energy: every chip it ran on, from its
	// first cycle to its last (absent with energy_model = none).
	Energy *Energy `json:"energy,omitempty"`
}

// SpeedupName names what Speedup holds: "speedup", or "scaled speedup" for
// a weak-scaled application.
func (r AppRow) SpeedupName() string {
	if r.WeakScaling {
		return "scaled speedup"
	}
	return "speedup"
}

// SpeedupFormula is Speedup's definition, for chart axes.
func (r AppRow) SpeedupFormula() string {
	if r.WeakScaling {
		return "P x T(baseline) / T(P), the problem per rank fixed"
	}
	return "baseline P x T(baseline) / T(P)"
}

// EfficiencyName names what Efficiency holds.
func (r AppRow) EfficiencyName() string {
	if r.WeakScaling {
		return "weak-scaling efficiency"
	}
	return "efficiency"
}

// EfficiencyFormula is Efficiency's definition, for chart axes.
func (r AppRow) EfficiencyFormula() string {
	if r.WeakScaling {
		return "T(baseline) / T(P)"
	}
	return "speedup / P"
}

// TierColumns are an application run's LogGOPS-tier prediction from its
// recorded schedule and fitted parameters, beside what the flit level had
// that the model lacks. Times in cycles; the error in percent of the
// simulated time.
type TierColumns struct {
	TierCycles      float64 `json:"tier_cycles"`
	TierErrPct      float64 `json:"tier_error_pct"`
	StallFlitCycles uint64  `json:"stall_flit_cycles"`   // router stalls: contention
	Messages        int     `json:"messages"`            // point-to-point messages, those of collectives included
	Rendezvous      int     `json:"rendezvous_messages"` // of which above the eager threshold: an RTS and a CTS each
	CalcCycles      int64   `json:"calc_cycles"`         // largest per-rank recorded computation (reductions and copies included)
}

func WriteAppTable(out io.Writer, rows []AppRow) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	hockney := rows[0].Hockney > 0
	tier := slices.ContainsFunc(rows, func(r AppRow) bool { return r.TierColumns != nil })
	nz := slices.ContainsFunc(rows, func(r AppRow) bool { return r.Nonzeros > 0 })
	// A weak-scaled application's figures are named for what they are.
	sp, eff := rows[0].SpeedupName(), rows[0].EfficiencyName()
	head := "app\tversion\tprocs\tsize\tcycles\ttime\t" + sp + "\t" + eff + "\tMPI/native\tcorrect\t"
	units := fmt.Sprintf("\t\t\t\t\t(us)\t(vs P=%d)\t\t\t\t", rows[0].BaselineProcs)
	if nz {
		head = "app\tversion\tprocs\tnonzeros\tsize\tcycles\ttime\t" + sp + "\t" + eff + "\tMPI/native\tcorrect\t"
		units = fmt.Sprintf("\t\t\t\t(unknowns)\t\t(us)\t(vs P=%d)\t\t\t\t", rows[0].BaselineProcs)
	}
	if hockney {
		head, units = head+"Hockney\t", units+"(cycles)\t"
	}
	if tier {
		head += "tier\terror\tstalls\tmessages\trendezvous\tcalc\t"
		units += "(cycles)\t(%)\t(flit-cycles)\t\t\t(cycles)\t"
	}
	energy := slices.ContainsFunc(rows, func(r AppRow) bool { return r.Energy != nil })
	if energy {
		head, units = head+"energy\tpower\t", units+"(nJ)\t(mW)\t"
	}
	fmt.Fprintln(tw, head)
	fmt.Fprintln(tw, units)
	for _, r := range rows {
		ratio := ""
		if r.MPIOverNative > 0 {
			ratio = fmt.Sprintf("%.3f", r.MPIOverNative)
		}
		name := r.App
		if r.Variant != "" {
			name += " " + r.Variant
		}
		if r.Distribute != "" {
			name += " " + r.Distribute
		}
		size := fmt.Sprint(r.Size)
		if nz {
			size = fmt.Sprintf("%d\t%d", r.Nonzeros, r.Size)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%.1f\t%.2f\t%.2f\t%s\t%v\t", name, r.Version, r.Procs, size, r.Cycles,
			r.Seconds*1e6, r.Speedup, r.Efficiency, ratio, r.Correct)
		if hockney {
			fmt.Fprintf(tw, "%.0f\t", r.Hockney)
		}
		if t := r.TierColumns; t != nil {
			fmt.Fprintf(tw, "%.0f\t%+.1f\t%d\t%d\t%d\t%d\t", t.TierCycles, t.TierErrPct, t.StallFlitCycles, t.Messages, t.Rendezvous, t.CalcCycles)
		} else if tier {
			fmt.Fprint(tw, "\t\t\t\t\t\t")
		}
		if energy {
			fmt.Fprint(tw, energyCells(r.Energy))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// WriteMatMulScaling prints the scalability conditions of the rows that
// carry them, one line per decomposition and size.
func WriteMatMulScaling(out io.Writer, rows []AppRow) error {
	seen := map[[2]any]bool{}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := false
	for _, r := range rows {
		s := r.Scaling
		if s == nil || seen[[2]any{s.Decomp, s.N}] {
			continue
		}
		seen[[2]any{s.Decomp, s.N}] = true
		if !head {
			fmt.Fprintln(out, "matrix-multiply scalability (the slides' Hockney conditions; t_proc = 2 flops, t_e per 8-byte element):")
			fmt.Fprintln(tw, "decomp\tn\tt_proc\tt_s\tt_e\tspeedup from n\tat P\ttime falls up to P\t")
			fmt.Fprintln(tw, "\t\t(cycles)\t(cycles)\t(cycles)\t\t\t\t")
			head = true
		}
		minN, peak := "never", "unbounded"
		if s.MinN > 0 {
			minN = fmt.Sprint(s.MinN)
		}
		if !math.IsInf(s.PeakP, 0) {
			peak = fmt.Sprintf("%.1f", s.PeakP)
		}
		fmt.Fprintf(tw, "%s\t%d\t%g\t%.1f\t%.2f\t%s\t1->%d\t%s\t\n", s.Decomp, s.N, s.Tproc, s.Ts, s.Te, minN, s.FirstP, peak)
	}
	return tw.Flush()
}
