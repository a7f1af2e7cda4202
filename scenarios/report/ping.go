package report

import (
	"fmt"
	"slices"
	"text/tabwriter"

	"nocsim/mpi"
	"nocsim/plots"
)

// PingRow is one message size of a ping-pong. Times are in cycles, with
// seconds at the configured clock.
type PingRow struct {
	SizeBytes        int     `json:"size_bytes"`
	Protocol         string  `json:"protocol"`
	From             int     `json:"from"`
	To               int     `json:"to"`
	Hops             int     `json:"hops"`
	RoundTripCycles  float64 `json:"round_trip_cycles"`
	OneWayCycles     float64 `json:"one_way_cycles"`
	OneWaySeconds    float64 `json:"one_way_seconds"`
	BandwidthBytesPS float64 `json:"bandwidth_bytes_per_second"`
	// Energy is the chip's energy over the size's measured round trips,
	// and EnergyPerMessagePJ its share per one-way message (half a round
	// trip); absent with energy_model = none.
	EnergyPerMessagePJ float64 `json:"energy_per_message_pj,omitempty"`
	Energy             *Energy `json:"energy,omitempty"`
}

func WritePingTable(out interface{ Write([]byte) (int, error) }, rows []PingRow) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	energy := slices.ContainsFunc(rows, func(r PingRow) bool { return r.Energy != nil })
	head, units := "size\tprotocol\tround trip\tone way\tone way\tbandwidth\t", "(bytes)\t\t(cycles)\t(cycles)\t(us)\t(MB/s)\t"
	if energy {
		head, units = head+"energy/message\tpower\t", units+"(nJ)\t(mW)\t"
	}
	fmt.Fprintln(tw, head)
	fmt.Fprintln(tw, units)
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%.0f\t%.1f\t%.3f\t%.1f\t", r.SizeBytes, r.Protocol, r.RoundTripCycles, r.OneWayCycles, r.OneWaySeconds*1e6, r.BandwidthBytesPS/1e6)
		if energy && r.Energy != nil {
			fmt.Fprintf(tw, "%.3f\t%.1f\t", r.EnergyPerMessagePJ/1e3, r.Energy.PowerMW)
		} else if energy {
			fmt.Fprint(tw, "-\t-\t")
		}
		fmt.Fprintln(tw)
	}
	if len(rows) > 0 {
		fmt.Fprintf(tw, "ranks %d -> %d, %d hops\t\t\t\t\t\t\n", rows[0].From, rows[0].To, rows[0].Hops)
	}
	return tw.Flush()
}

func WriteStats(out interface{ Write([]byte) (int, error) }, w *mpi.World) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tcall\tcount\tbytes\ttotal (cyc)\tmax (cyc)\tblocked (cyc)\t")
	for _, r := range w.Ranks {
		for _, s := range r.Stats() {
			fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%d\t\n", r.Rank(), s.Op, s.Count, s.Bytes, s.Total, s.Max, s.Blocked)
		}
	}
	tw.Flush()
}

// PingPongChart draws the one-way time against message size (log-log);
// the title names the pair, its distance and the machine
// (Scenario.MachineText: mesh, protocol, library).
func PingPongChart(rows []PingRow, machine string) plots.Chart {
	r0 := rows[0]
	hops := "hops"
	if r0.Hops == 1 {
		hops = "hop"
	}
	c := plots.Chart{Title: fmt.Sprintf("ping-pong rank %d <-> %d, %d %s (%s)", r0.From, r0.To, r0.Hops, hops, machine),
		XLabel: "message size (bytes, log scale)", YLabel: "one-way time (cycles, log scale)", LogX: true, LogY: true}
	s := plots.Series{Name: "one way (round trip / 2)"}
	for _, r := range rows {
		if r.SizeBytes > 0 && r.OneWayCycles > 0 {
			s.X = append(s.X, float64(r.SizeBytes))
			s.Y = append(s.Y, r.OneWayCycles)
		}
	}
	c.Series = []plots.Series{s}
	return c
}
