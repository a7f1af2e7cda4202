package scenarios

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"nocsim/logp"
	"nocsim/logp/goal"
	"nocsim/logp/loggops"
	"nocsim/mpi/trace"
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
}

// RankComparison is one rank's finish on both tiers.
type RankComparison struct {
	Rank      int     `json:"rank"`
	Simulated float64 `json:"simulated_cycles"`
	Predicted float64 `json:"predicted_cycles"`
	ErrorPct  float64 `json:"error_pct"`
}

// CompareSchedule runs s on the scenario's chip (rank r on tile r, sends
// and receives as MPI non-blocking calls, calc as computation) and on the
// LogGOPS tier with p mapped by loggops.FromFitted.
func (sc *Scenario) CompareSchedule(s *goal.Schedule, p logp.Params) (*ScheduleComparison, error) {
	m, err := sc.Network.Topology()
	if err != nil {
		return nil, err
	}
	if len(s.Ranks) > m.Nodes() {
		return nil, fmt.Errorf("the schedule has %d ranks, the %s mesh %d tiles: allowed at most one rank per tile", len(s.Ranks), sc.Network.Mesh, m.Nodes())
	}
	run := *sc
	run.MPI.Procs = len(s.Ranks)
	place := run.Placement()
	q, err := loggops.FromFitted(p, m, place, run.RendezvousThreshold())
	if err != nil {
		return nil, err
	}
	tier, err := loggops.Simulate(s, q, loggops.Options{})
	if err != nil {
		return nil, fmt.Errorf("LogGOPS tier: %w", err)
	}
	tr, err := trace.FromGoal(s)
	if err != nil {
		return nil, err
	}
	w, err := run.newWorld()
	if err != nil {
		return nil, err
	}
	defer w.M.Close()
	fin, err := w.LaunchTraceFinish(tr)
	if err != nil {
		return nil, err
	}
	if err := w.Run(); err != nil {
		return nil, fmt.Errorf("flit level: %w", err)
	}
	mm, _ := ParseMesh(sc.Network.Mesh)
	out := &ScheduleComparison{Mesh: meshLabel(mm, topoOmit(sc.Network)), Protocol: run.MPI.Protocol, Predicted: tier.Max}
	for r := range s.Ranks {
		sim := float64(fin[r])
		out.Ranks = append(out.Ranks, RankComparison{Rank: r, Simulated: sim, Predicted: tier.Finish[r], ErrorPct: pctErr(tier.Finish[r], sim)})
		out.Simulated = max(out.Simulated, sim)
		for _, op := range s.Ranks[r].Ops {
			if op.Kind == goal.Send {
				out.Messages++
				if op.Bytes > q.S {
					out.Rendezvous++
				}
			}
		}
	}
	out.ErrorPct = pctErr(out.Predicted, out.Simulated)
	st := w.M.Net.Totals()
	out.StallFlitCycles = st.VCStalls + st.SwitchStall + st.CreditStall
	return out, nil
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
	_, err := fmt.Fprintf(out, "mesh %s, protocol %s: %d messages (%d rendezvous), %d flit-cycles of router stalls on the chip\n",
		c.Mesh, c.Protocol, c.Messages, c.Rendezvous, c.StallFlitCycles)
	return err
}

// WriteJSON prints the comparison as one JSON object.
func (c *ScheduleComparison) WriteJSON(out io.Writer) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
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
