package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"nocsim/logp"
)

// The model commands' tables (predict, optimal): what the LogGP and LogP
// models say, beside the simulated results the other files present.

// WriteTerms lists a prediction's terms, one indented line each, in
// cycles.
func WriteTerms(w io.Writer, terms []logp.Term) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range terms {
		fmt.Fprintf(tw, "  %s\t%.1f cycles\n", t.Name, t.Cycles)
	}
	return tw.Flush()
}

// WriteBroadcastSchedule lists an optimal broadcast's ranks past the root:
// the rank each got the message from, when that send began (the arrival
// less L and both overheads) and when it had it, in cycles.
func WriteBroadcastSchedule(w io.Writer, parent []int, at []float64, L, o float64) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tfrom\tsend_cycles\thas_it_cycles\t")
	for i := 1; i < len(parent); i++ {
		fmt.Fprintf(tw, "%d\t%d\t%g\t%g\t\n", i, parent[i], at[i]-L-2*o, at[i])
	}
	return tw.Flush()
}

// WriteGatherSchedule lists a flat gather's senders: when each entered,
// how long it waited for room after its overhead and when the root
// started receiving its message, in cycles.
func WriteGatherSchedule(w io.Writer, fg logp.FlatGather) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tenter_cycles\tstall_cycles\ttaken_cycles\t")
	for i := 1; i < len(fg.Enter); i++ {
		fmt.Fprintf(tw, "%d\t%g\t%g\t%g\t\n", i, fg.Enter[i], fg.Stall[i], fg.Taken[i])
	}
	return tw.Flush()
}
