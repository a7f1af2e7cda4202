package report

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"text/tabwriter"

	"nocsim/endpoint/traffic"
	"nocsim/plots"
)

// NocRow is one point of a synthetic-traffic sweep as written to JSON and
// CSV. Units: rates in flits/node/cycle, latencies and cycles in cycles,
// link utilisation in flits/cycle per link, VC shares as fractions of all
// router-to-router flits in the window, per-link VC counts in flits over the
// window, stalls in flit-cycles (VC stalls in head-cycles), *_per_second per
// wall-clock second.
type NocRow struct {
	Mesh               string                `json:"mesh"`
	Traffic            string                `json:"traffic"`
	PacketFlits        int                   `json:"packet_flits,omitempty"` // 0 (left out) with a size mix
	Seed               int64                 `json:"seed"`
	OfferedRate        float64               `json:"offered_flits_per_node_cycle"`
	GeneratedRate      float64               `json:"generated_flits_per_node_cycle"`
	AcceptedRate       float64               `json:"accepted_flits_per_node_cycle"`
	AvgPacketLatency   float64               `json:"avg_packet_latency_cycles"`
	P50PacketLatency   float64               `json:"p50_packet_latency_cycles"`
	P95PacketLatency   float64               `json:"p95_packet_latency_cycles"`
	P99PacketLatency   float64               `json:"p99_packet_latency_cycles"`
	AvgNetworkLatency  float64               `json:"avg_network_latency_cycles"`
	ZeroLoadLatency    float64               `json:"zero_load_latency_cycles"`
	AvgHops            float64               `json:"avg_hops"`
	LinkUtilMean       float64               `json:"link_util_mean_flits_per_cycle"`
	LinkUtilMax        float64               `json:"link_util_max_flits_per_cycle"`
	VCShares           []float64             `json:"vc_shares_fraction"`
	VCShareMin         float64               `json:"vc_share_min_fraction"`
	VCShareMax         float64               `json:"vc_share_max_fraction"`
	VCStalls           uint64                `json:"vc_stall_head_cycles"`
	SwitchStalls       uint64                `json:"switch_stall_flit_cycles"`
	CreditStalls       uint64                `json:"credit_stall_flit_cycles"`
	MeasuredPackets    int                   `json:"measured_packets"`
	DeliveredPackets   int                   `json:"delivered_packets"`
	LatencyTrend       float64               `json:"latency_trend_ratio"`
	Saturated          bool                  `json:"saturated"`
	SaturationReason   string                `json:"saturation_reason"`
	Cycles             int64                 `json:"cycles"`
	Events             uint64                `json:"events"`
	FlitHops           uint64                `json:"flit_hops"`
	WallSeconds        float64               `json:"wall_seconds"`
	SimCyclesPerSecond float64               `json:"sim_cycles_per_second"`
	EventsPerSecond    float64               `json:"events_per_second"`
	FlitHopsPerSecond  float64               `json:"flit_hops_per_second"`
	Links              []traffic.LinkVCFlits `json:"links"`
	// Routers are each router's counts in the window: what --link-map
	// draws beside the links (none on a bus).
	Routers []traffic.RouterWindow `json:"routers,omitempty"`

	// The traffic beyond Bernoulli, left out of JSON when not used so that
	// Bernoulli rows read as before (CSV leaves their cells empty):
	// on_off's mean burst and its chain's mean on and off periods
	// (BookSim's burst_beta and burst_alpha are their inverses), a size
	// mix's lengths, shares and mean, and request-reply's round trips
	// (request creation to reply tail ejection), replies' own latencies
	// (from the request's arrival) and the analytic zero-load round trip.
	Injection         string    `json:"injection,omitempty"` // on_off; absent: bernoulli
	BurstPackets      float64   `json:"burst_packets,omitempty"`
	BurstOnCycles     float64   `json:"burst_on_cycles,omitempty"`
	BurstOffCycles    float64   `json:"burst_off_cycles,omitempty"`
	PacketSizes       []int     `json:"packet_sizes_flits,omitempty"`
	PacketSizeShares  []float64 `json:"packet_size_shares_fraction,omitempty"`
	MeanPacketFlits   float64   `json:"mean_packet_flits,omitempty"`
	ReplyFlits        int       `json:"reply_flits,omitempty"`
	DeliveredReplies  int       `json:"delivered_reply_packets,omitempty"`
	AvgRoundTrip      float64   `json:"avg_round_trip_latency_cycles,omitempty"`
	P50RoundTrip      float64   `json:"p50_round_trip_latency_cycles,omitempty"`
	P95RoundTrip      float64   `json:"p95_round_trip_latency_cycles,omitempty"`
	P99RoundTrip      float64   `json:"p99_round_trip_latency_cycles,omitempty"`
	AvgReplyLatency   float64   `json:"avg_reply_latency_cycles,omitempty"`
	ZeroLoadRoundTrip float64   `json:"zero_load_round_trip_cycles,omitempty"`

	// Energy is the measurement window's energy under the [energy] model;
	// absent with energy_model = none (and on a bus), so that such rows
	// read as before energy existed.
	Energy *Energy `json:"energy,omitempty"`
}

// WallClockColumns are the columns that depend on the machine, not the
// simulation; everything else is reproducible byte for byte.
var WallClockColumns = []string{"wall_seconds", "sim_cycles_per_second", "events_per_second", "flit_hops_per_second"}

// WriteNocCSV writes rows with a header of the JSON keys.
func WriteNocCSV(w io.Writer, rows []NocRow) error {
	cw := csv.NewWriter(w)
	energy := slices.ContainsFunc(rows, func(r NocRow) bool { return r.Energy != nil })
	head := nocColumns
	if energy {
		head = append(slices.Clip(head), energyColumns...)
	}
	cw.Write(head)
	for _, r := range rows {
		f := r.fields()
		if energy {
			f = append(f, r.energyFields()...)
		}
		cw.Write(f)
	}
	cw.Flush()
	return cw.Error()
}

var nocColumns = []string{"mesh", "traffic", "packet_flits", "seed", "offered_flits_per_node_cycle", "generated_flits_per_node_cycle", "accepted_flits_per_node_cycle",
	"avg_packet_latency_cycles", "p50_packet_latency_cycles", "p95_packet_latency_cycles", "p99_packet_latency_cycles", "avg_network_latency_cycles",
	"zero_load_latency_cycles", "avg_hops", "link_util_mean_flits_per_cycle", "link_util_max_flits_per_cycle", "vc_share_min_fraction", "vc_share_max_fraction", "vc_stall_head_cycles", "switch_stall_flit_cycles", "credit_stall_flit_cycles",
	"measured_packets", "delivered_packets", "latency_trend_ratio", "saturated", "saturation_reason", "cycles", "events", "flit_hops",
	"wall_seconds", "sim_cycles_per_second", "events_per_second", "flit_hops_per_second",
	// The traffic beyond Bernoulli, after the columns of old so that
	// scripts reading those by position still can.
	"injection", "burst_packets", "burst_on_cycles", "burst_off_cycles", "mean_packet_flits",
	"reply_flits", "delivered_reply_packets", "avg_round_trip_latency_cycles", "p50_round_trip_latency_cycles", "p95_round_trip_latency_cycles",
	"p99_round_trip_latency_cycles", "avg_reply_latency_cycles", "zero_load_round_trip_cycles"}

// energyColumns follow the others when a row has energy (energy_model not
// none), so that a table without energy reads as before.
var energyColumns = []string{"energy_model", "energy_pj", "power_mw", "energy_per_delivered_flit_pj", "dynamic_energy_pj", "clock_energy_pj", "leakage_energy_pj"}

func (r NocRow) energyFields() []string {
	e := r.Energy
	if e == nil {
		return make([]string, len(energyColumns))
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }
	return []string{e.Model, f(e.TotalPJ), f(e.PowerMW), f(e.PerFlitPJ), f(e.DynamicPJ), f(e.ClockPJ), f(e.LeakagePJ)}
}

func (r NocRow) fields() []string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }
	u := func(x uint64) string { return strconv.FormatUint(x, 10) }
	// Cells of what a row's traffic does not use are empty, not 0.
	opt := func(x float64) string {
		if x == 0 {
			return ""
		}
		return f(x)
	}
	optInt := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	injection := cmp.Or(r.Injection, traffic.InjectBernoulli)
	replyCells := []string{optInt(r.ReplyFlits), optInt(r.DeliveredReplies), opt(r.AvgRoundTrip), opt(r.P50RoundTrip), opt(r.P95RoundTrip),
		opt(r.P99RoundTrip), opt(r.AvgReplyLatency), opt(r.ZeroLoadRoundTrip)}
	if r.ReplyFlits > 0 {
		// A request-reply point with nothing delivered has real zeros.
		replyCells[1] = strconv.Itoa(r.DeliveredReplies)
	}
	// A size mix's lengths and shares are lists, JSON only like the other
	// lists; its mean is here.
	extra := append([]string{injection, opt(r.BurstPackets), opt(r.BurstOnCycles), opt(r.BurstOffCycles), opt(r.MeanPacketFlits)}, replyCells...)
	return append([]string{r.Mesh, r.Traffic, optInt(r.PacketFlits), strconv.FormatInt(r.Seed, 10), f(r.OfferedRate), f(r.GeneratedRate), f(r.AcceptedRate),
		f(r.AvgPacketLatency), f(r.P50PacketLatency), f(r.P95PacketLatency), f(r.P99PacketLatency), f(r.AvgNetworkLatency),
		f(r.ZeroLoadLatency), f(r.AvgHops), f(r.LinkUtilMean), f(r.LinkUtilMax), f(r.VCShareMin), f(r.VCShareMax), u(r.VCStalls), u(r.SwitchStalls), u(r.CreditStalls),
		strconv.Itoa(r.MeasuredPackets), strconv.Itoa(r.DeliveredPackets), f(r.LatencyTrend), strconv.FormatBool(r.Saturated), r.SaturationReason,
		strconv.FormatInt(r.Cycles, 10), u(r.Events), u(r.FlitHops),
		f(r.WallSeconds), f(r.SimCyclesPerSecond), f(r.EventsPerSecond), f(r.FlitHopsPerSecond)}, extra...)
}

// rateText prints a load in flits/node/cycle with three decimals, or three
// significant digits below 0.01, so a small offered load is not shown
// rounded to another value.
func rateText(v float64) string {
	if v == 0 || math.Abs(v) >= 0.01 {
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// WriteNocTable writes a readable table, units in the header, and the
// simulator's speed underneath.
func WriteNocTable(w io.Writer, rows []NocRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// Round-trip columns only when a row has replies: a table of one-way
	// traffic reads as it always has.
	replies := slices.ContainsFunc(rows, func(r NocRow) bool { return r.ReplyFlits > 0 })
	energy := slices.ContainsFunc(rows, func(r NocRow) bool { return r.Energy != nil })
	head, units := "", ""
	if replies {
		head, units = "round trip\trt zero-load\t", "(cyc)\t(cyc)\t"
	}
	ehead, eunits := "", ""
	if energy {
		ehead, eunits = "energy/flit\tpower\t", "(pJ)\t(mW)\t"
	}
	fmt.Fprintln(tw, "traffic\toffered\taccepted\tavg lat\tp50\tp95\tp99\tnet lat\tzero-load\t"+head+"hops\tlink util\tlink max\tVC share max\t"+ehead+"saturated\t")
	fmt.Fprintln(tw, "\t(fl/n/c)\t(fl/n/c)\t(cyc)\t(cyc)\t(cyc)\t(cyc)\t(cyc)\t(cyc)\t"+units+"\t(fl/c)\t(fl/c)\t(fraction)\t"+eunits+"\t")
	var cyc, ev, hops uint64
	var wall float64
	for _, r := range rows {
		sat := "no"
		if r.Saturated {
			sat = "YES"
		}
		lat := func(format string, v float64) string {
			if r.DeliveredPackets == 0 {
				return "-" // nothing measured arrived: no latency to show
			}
			return fmt.Sprintf(format, v)
		}
		rt := ""
		if replies {
			rtt := "-" // no reply of a measured request arrived
			if r.DeliveredReplies > 0 {
				rtt = fmt.Sprintf("%.1f", r.AvgRoundTrip)
			}
			rt = fmt.Sprintf("%s\t%.1f\t", rtt, r.ZeroLoadRoundTrip)
		}
		en := ""
		if energy {
			en = "-\t-\t"
			if e := r.Energy; e != nil && e.PerFlitPJ > 0 {
				en = fmt.Sprintf("%.1f\t%.1f\t", e.PerFlitPJ, e.PowerMW)
			} else if e != nil {
				en = fmt.Sprintf("-\t%.1f\t", e.PowerMW)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s%.2f\t%.3f\t%.3f\t%.3f\t%s%s\t\n",
			r.Traffic, rateText(r.OfferedRate), rateText(r.AcceptedRate), lat("%.1f", r.AvgPacketLatency), lat("%.0f", r.P50PacketLatency),
			lat("%.0f", r.P95PacketLatency), lat("%.0f", r.P99PacketLatency), lat("%.1f", r.AvgNetworkLatency),
			r.ZeroLoadLatency, rt, r.AvgHops, r.LinkUtilMean, r.LinkUtilMax, r.VCShareMax, en, sat)
		cyc += uint64(r.Cycles)
		ev += r.Events
		hops += r.FlitHops
		wall += r.WallSeconds
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Saturated {
			fmt.Fprintf(w, "saturated: %s at %s: %s\n", r.Traffic, rateText(r.OfferedRate), r.SaturationReason)
		}
	}
	// Each run (a row) times itself on the wall clock; runs go in
	// parallel, so the sum is neither the command's elapsed time nor its
	// CPU time, and the footer says which it is.
	_, err := fmt.Fprintf(w, "simulated %d cycles, %d events, %d flit-hops in %.2f s, the runs' wall-clock times summed (runs go in parallel): %.0f cycles/s, %.0f events/s, %.0f flit-hops/s\n",
		cyc, ev, hops, wall, PerSecond(float64(cyc), wall), PerSecond(float64(ev), wall), PerSecond(float64(hops), wall))
	return err
}

// NocChart draws average packet latency against offered load, one line per
// traffic pattern, its analytic zero-load latency dashed, saturated points
// marked.
func NocChart(rows []NocRow, title string) plots.Chart {
	c := plots.Chart{Title: title, XLabel: "offered load (flits/node/cycle)", YLabel: "average packet latency (cycles)",
		LogY: true, MarkLegend: "saturated"}
	var order []string
	byTraffic := map[string][]NocRow{}
	for _, r := range rows {
		if _, ok := byTraffic[r.Traffic]; !ok {
			order = append(order, r.Traffic)
		}
		byTraffic[r.Traffic] = append(byTraffic[r.Traffic], r)
	}
	for _, t := range order {
		rs := byTraffic[t]
		s := plots.Series{Name: t}
		z := plots.Series{Name: t + " zero-load", Dashed: true}
		for _, r := range rs {
			z.X = append(z.X, r.OfferedRate)
			z.Y = append(z.Y, r.ZeroLoadLatency)
			if r.DeliveredPackets == 0 {
				continue // nothing measured (a zero load): no latency to draw
			}
			s.X = append(s.X, r.OfferedRate)
			s.Y = append(s.Y, r.AvgPacketLatency)
			s.Marks = append(s.Marks, r.Saturated)
		}
		if len(s.X) > 0 {
			c.Series = append(c.Series, s)
			z.Companion = true
		}
		c.Series = append(c.Series, z)
	}
	return c
}
