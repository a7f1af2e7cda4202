package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// ReplayRow is a Netrace trace's replay on the network as written to JSON:
// the whole replay's figures (Region 0) and, in Regions, each region's.
// Cycles are the simulated network's; recorded_cycles is the trace's
// recorded runtime, multiplied by the time scale; runtime_cycles the
// runtime under the simulated network (the later of the last delivery and
// the recorded end); slowdown_ratio the one over the other. Latencies run
// from a packet's injection (handed to its source NIU) to its tail's
// ejection; the dependency wait is how long after its trace cycle a packet
// was injected.
type ReplayRow struct {
	Trace        string  `json:"trace"`
	Benchmark    string  `json:"benchmark"`
	Mesh         string  `json:"mesh"`
	Dependencies bool    `json:"dependencies"`
	Scale        float64 `json:"scale_ratio"`
	FlitBits     int     `json:"flit_bits"`
	ControlFlits int     `json:"control_packet_flits"`
	DataFlits    int     `json:"data_packet_flits"`
	// TraceComplete is false when a packet limit stopped the reader.
	TraceComplete bool           `json:"trace_complete"`
	LastInjection int64          `json:"last_injection_at_cycles"`
	LastDelivery  int64          `json:"last_delivery_at_cycles"`
	Cycles        int64          `json:"cycles"`
	Events        uint64         `json:"events"`
	FlitHops      uint64         `json:"flit_hops"`
	WallSeconds   float64        `json:"wall_seconds"`
	Energy        *Energy        `json:"energy,omitempty"`
	ReplayRegion                 // the whole replay
	Regions       []ReplayRegion `json:"regions"`
}

// ReplayRegion is one region's (or, Region 0, the whole replay's) figures.
type ReplayRegion struct {
	Region            int     `json:"region"` // counted from 1; 0 the whole replay
	Packets           int     `json:"packets"`
	DeliveredPackets  int     `json:"delivered_packets"`
	ControlPackets    int     `json:"control_packets"`
	DataPackets       int     `json:"data_packets"`
	Flits             int64   `json:"flits"`
	RecordedCycles    int64   `json:"recorded_cycles"`
	RuntimeCycles     int64   `json:"runtime_cycles"`
	Slowdown          float64 `json:"slowdown_ratio"` // 0 for a region that records no cycles
	AvgPacketLatency  float64 `json:"avg_packet_latency_cycles"`
	P50PacketLatency  float64 `json:"p50_packet_latency_cycles"`
	P95PacketLatency  float64 `json:"p95_packet_latency_cycles"`
	P99PacketLatency  float64 `json:"p99_packet_latency_cycles"`
	AvgNetworkLatency float64 `json:"avg_network_latency_cycles"`
	AvgHops           float64 `json:"avg_hops"`
	AvgDepWait        float64 `json:"avg_dependency_wait_cycles"`
	OfferedRate       float64 `json:"offered_flits_per_node_cycle"`
	AcceptedRate      float64 `json:"accepted_flits_per_node_cycle"`
}

// WriteReplayTable writes the replay: what ran, one line for the whole
// replay and one per region, the energy, and the speed line.
func WriteReplayTable(w io.Writer, r ReplayRow) error {
	deps := "honoured"
	if !r.Dependencies {
		deps = "ignored"
	}
	part := ""
	if !r.TraceComplete {
		part = " (packet limit: the first packets only)"
	}
	network := r.Mesh // "8x8", or "8x8 torus": the topology after the tiles
	if !strings.Contains(network, " ") {
		network += " mesh"
	}
	fmt.Fprintf(w, "trace %s (%s): %d packets%s on the %s, dependencies %s, time scale %g, %d-bit flits (control %d flits, data %d)\n",
		r.Trace, r.Benchmark, r.Packets, part, network, deps, r.Scale, r.FlitBits, r.ControlFlits, r.DataFlits)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "part\tpackets\tflits\trecorded\truntime\tslowdown\tavg lat\tp50\tp99\tnet lat\tdep wait\thops\toffered\taccepted\t")
	fmt.Fprintln(tw, "\t\t\t(cyc)\t(cyc)\t(ratio)\t(cyc)\t(cyc)\t(cyc)\t(cyc)\t(cyc)\t\t(fl/n/c)\t(fl/n/c)\t")
	line := func(name string, g ReplayRegion) {
		slow := "-" // a region of no recorded cycles has no slowdown
		if g.RecordedCycles > 0 {
			slow = fmt.Sprintf("%.5f", g.Slowdown)
		}
		lat := func(format string, v float64) string {
			if g.DeliveredPackets == 0 {
				return "-"
			}
			return fmt.Sprintf(format, v)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.5f\t%.5f\t\n", name, g.Packets, g.Flits,
			g.RecordedCycles, g.RuntimeCycles, slow, lat("%.1f", g.AvgPacketLatency), lat("%.0f", g.P50PacketLatency),
			lat("%.0f", g.P99PacketLatency), lat("%.1f", g.AvgNetworkLatency), lat("%.1f", g.AvgDepWait), lat("%.2f", g.AvgHops),
			g.OfferedRate, g.AcceptedRate)
	}
	line("all", r.ReplayRegion)
	for _, g := range r.Regions {
		line(fmt.Sprintf("region %d", g.Region), g)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "last injection at cycle %d, last delivery at cycle %d\n", r.LastInjection, r.LastDelivery)
	if e := r.Energy; e != nil {
		fmt.Fprintf(w, "energy: %.2f nJ (dynamic %.2f, clock %.2f, leakage %.2f), %.1f mW average, %.2f pJ per delivered flit (%s)\n",
			e.TotalPJ/1e3, e.DynamicPJ/1e3, e.ClockPJ/1e3, e.LeakagePJ/1e3, e.PowerMW, e.PerFlitPJ, ModelText(e.Model, e.Tech, e.FlitBits))
	}
	_, err := fmt.Fprintf(w, "simulated %d cycles, %d events, %d flit-hops in %.2f s: %.0f cycles/s, %.0f events/s, %.0f flit-hops/s\n",
		r.Cycles, r.Events, r.FlitHops, r.WallSeconds, PerSecond(float64(r.Cycles), r.WallSeconds),
		PerSecond(float64(r.Events), r.WallSeconds), PerSecond(float64(r.FlitHops), r.WallSeconds))
	return err
}

// WriteReplayCSV writes the whole replay and its regions as CSV rows, the
// whole replay first (region 0).
func WriteReplayCSV(b *bytes.Buffer, r ReplayRow) error {
	return WriteRowsCSV(b, append([]ReplayRegion{r.ReplayRegion}, r.Regions...))
}
