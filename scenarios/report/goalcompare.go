package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"nocsim/plots"
)

// ScheduleComparison is one GOAL schedule run on both tiers: the flit-level
// chip (simulated) and the LogGOPS tier with fitted parameters
// (predicted). Errors are (predicted - simulated) / simulated, percent.
type ScheduleComparison struct {
	Mesh            string           `json:"mesh"`
	Protocol        string           `json:"protocol"`
	Ranks           []RankComparison `json:"ranks"`
	Simulated       float64          `json:"simulated_cycles"`
	Predicted       float64          `json:"predicted_cycles"`
	ErrorPct        float64          `json:"error_pct"`
	StallFlitCycles uint64           `json:"stall_flit_cycles"`   // router stalls during the flit-level run (contention)
	Messages        int              `json:"messages"`            // sends in the schedule
	Rendezvous      int              `json:"rendezvous_messages"` // of which above the protocol's eager threshold
	// Energy is the chip's simulated energy (the whole chip, the run's
	// first cycle to its last), absent with energy_model = none;
	// PredictedEnergyPJ the tier's by the parameters' fitted energy model
	// (pJ), absent when they hold none; EnergyErrorPct the error of the
	// prediction, when both are there.
	Energy            *Energy  `json:"energy,omitempty"`
	PredictedEnergyPJ float64  `json:"predicted_energy_pj,omitempty"`
	EnergyErrorPct    *float64 `json:"energy_error_pct,omitempty"`
}

// RankComparison is one rank's finish on both tiers.
type RankComparison struct {
	Rank      int     `json:"rank"`
	Simulated float64 `json:"simulated_cycles"`
	Predicted float64 `json:"predicted_cycles"`
	ErrorPct  float64 `json:"error_pct"`
}

// WriteTable prints the comparison per rank, then overall.
func (c *ScheduleComparison) WriteTable(out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tsimulated\tpredicted\terror\t")
	fmt.Fprintln(tw, "\t(cycles)\t(cycles)\t(%)\t")
	for _, r := range c.Ranks {
		fmt.Fprintf(tw, "%d\t%.0f\t%.1f\t%+.2f\t\n", r.Rank, r.Simulated, r.Predicted, r.ErrorPct)
	}
	fmt.Fprintf(tw, "max\t%.0f\t%.1f\t%+.2f\t\n", c.Simulated, c.Predicted, c.ErrorPct)
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(out, "mesh %s, protocol %s: %d messages (%d rendezvous), %d flit-cycles of router stalls on the chip\n",
		c.Mesh, c.Protocol, c.Messages, c.Rendezvous, c.StallFlitCycles); err != nil {
		return err
	}
	var parts []string
	if e := c.Energy; e != nil {
		parts = append(parts, fmt.Sprintf("simulated %.1f nJ at %.1f mW", e.TotalPJ/1e3, e.PowerMW))
	}
	if c.PredictedEnergyPJ > 0 {
		parts = append(parts, fmt.Sprintf("predicted %.1f nJ (the fitted energy model)", c.PredictedEnergyPJ/1e3))
	}
	if c.EnergyErrorPct != nil {
		parts = append(parts, fmt.Sprintf("error %+.2f%%", *c.EnergyErrorPct))
	}
	if len(parts) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(out, "energy: %s\n", strings.Join(parts, ", "))
	return err
}

// Chart draws each rank's finish on both tiers; the title names the
// schedule (its file), the machine and the parameters.
func (c *ScheduleComparison) Chart(schedule, paramsName string) plots.Chart {
	sim := plots.Series{Name: "simulated (flit level)"}
	pred := plots.Series{Name: "predicted (LogGOPS tier)", Dashed: true}
	for _, r := range c.Ranks {
		sim.X, sim.Y = append(sim.X, float64(r.Rank)), append(sim.Y, r.Simulated)
		pred.X, pred.Y = append(pred.X, float64(r.Rank)), append(pred.Y, r.Predicted)
	}
	return plots.Chart{Title: fmt.Sprintf("%s, finish per rank: %s mesh, %s protocol, params %s", schedule, c.Mesh, c.Protocol, paramsName),
		XLabel: "rank (MPI rank number)", YLabel: "finish (cycles)", Series: []plots.Series{sim, pred}}
}
