package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
)

// GoalResult is a GOAL schedule's run on one tier: each rank's finish time
// and the largest, in cycles. On the LogGOPS tier a rank finishes when its
// CPU is done with its last operation; on the flit-level chip when its
// last operation has completed (its program returned).
type GoalResult struct {
	Tier       string    `json:"tier"` // "loggops" or "flit"
	Ranks      int       `json:"ranks"`
	MaxFinish  float64   `json:"max_finish"`  // cycles
	RankFinish []float64 `json:"rank_finish"` // cycles, per rank
	// LogGOPS tier: the parameters it ran with.
	Params *TierParamsJSON `json:"params,omitempty"`
	// Flit level: the mesh, the cycle the whole run ended (the last flit
	// and handler included), and the messages the ranks received.
	Mesh     string `json:"mesh,omitempty"`
	Cycles   int64  `json:"cycles,omitempty"`
	Messages int    `json:"messages,omitempty"`
	// Energy is the flit-level run's energy under the scenario's [energy]
	// model: the whole chip from the run's first cycle to its last, as
	// coll reports a call's; absent with energy_model = none.
	Energy *Energy `json:"energy,omitempty"`
	// PredictedEnergyPJ is the LogGOPS tier's energy of the schedule by
	// the fitted energy model of the parameters (pJ): the static power
	// over the tier's time and every message over its hops; absent when
	// the parameters hold no energy fit (or were given as flags).
	PredictedEnergyPJ float64 `json:"predicted_energy_pj,omitempty"`
}

// TierParamsJSON is loggops.Params as written in results (times in
// cycles, G and O in cycles per byte, S in bytes).
type TierParamsJSON struct {
	L   float64 `json:"L"`
	Os  float64 `json:"o_s"`
	Or  float64 `json:"o_r"`
	Gap float64 `json:"g"`
	G   float64 `json:"G"`
	O   float64 `json:"O"`
	S   uint64  `json:"S"`
}

// tableBuffer is the buffer a table is written through: the tabwriter
// writes each cell and its padding apart, six writes per rank, which on a
// terminal or pipe cost a system call each (58 s for 2^23 ranks).
const tableBuffer = 1 << 16

// WriteGoalTable writes each rank's finish and the run's largest, with the
// tier it ran on.
func WriteGoalTable(w io.Writer, r *GoalResult) error {
	out := bufio.NewWriterSize(w, tableBuffer)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tfinish\t")
	fmt.Fprintln(tw, "\t(cycles)\t")
	for i, f := range r.RankFinish {
		fmt.Fprintf(tw, "%d\t%s\t\n", i, strconv.FormatFloat(f, 'f', -1, 64))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	last := slices.Index(r.RankFinish, r.MaxFinish)
	fmt.Fprintf(out, "max finish %s cycles (rank %d), %s", strconv.FormatFloat(r.MaxFinish, 'f', -1, 64), last, r.Tier)
	switch {
	case r.Params != nil:
		p := r.Params
		fmt.Fprintf(out, " tier: L=%g o_s=%g o_r=%g g=%g G=%g O=%g S=%d\n", p.L, p.Os, p.Or, p.Gap, p.G, p.O, p.S)
	default:
		fmt.Fprintf(out, " level on %s: run ended at cycle %d, %d messages\n", r.Mesh, r.Cycles, r.Messages)
	}
	if r.PredictedEnergyPJ > 0 {
		fmt.Fprintf(out, "energy %.1f nJ (the fitted energy model: static power over the tier's time, every message over its hops)\n", r.PredictedEnergyPJ/1e3)
	}
	if e := r.Energy; e != nil {
		fmt.Fprintf(out, "energy %.1f nJ at %.1f mW (%s): dynamic %.1f nJ, clock %.1f nJ, leakage %.1f nJ\n",
			e.TotalPJ/1e3, e.PowerMW, ModelText(e.Model, e.Tech, e.FlitBits), e.DynamicPJ/1e3, e.ClockPJ/1e3, e.LeakagePJ/1e3)
	}
	return out.Flush()
}
