package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"nocsim/plots"
)

// SampleRow is one sampling window of one noc point (sample_cycles): the
// network's load, latency and occupancy over the window, a time series
// per point. Rates are over the window's cycles and the nodes.
type SampleRow struct {
	Traffic      string  `json:"traffic"`
	OfferedRate  float64 `json:"offered_flits_per_node_cycle"`
	Start        int64   `json:"start_cycle"`
	End          int64   `json:"end_cycle"`
	Injected     float64 `json:"injected_flits_per_node_cycle"`
	Ejected      float64 `json:"ejected_flits_per_node_cycle"`
	Delivered    int     `json:"delivered_packets"`
	AvgLatency   float64 `json:"avg_packet_latency_cycles"` // 0 when none was delivered
	InFlight     int     `json:"in_flight_flits"`           // at the window's end
	LinkUtilMean float64 `json:"link_util_mean_flits_per_cycle"`
	LinkUtilMax  float64 `json:"link_util_max_flits_per_cycle"`
}

var sampleColumns = []string{"traffic", "offered_flits_per_node_cycle", "start_cycle", "end_cycle", "injected_flits_per_node_cycle",
	"ejected_flits_per_node_cycle", "delivered_packets", "avg_packet_latency_cycles", "in_flight_flits",
	"link_util_mean_flits_per_cycle", "link_util_max_flits_per_cycle"}

// WriteSamplesCSV writes the rows as CSV, a header of the JSON keys.
func WriteSamplesCSV(w io.Writer, rows []SampleRow) error {
	cw := csv.NewWriter(w)
	cw.Write(sampleColumns)
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }
	for _, r := range rows {
		cw.Write([]string{r.Traffic, f(r.OfferedRate), strconv.FormatInt(r.Start, 10), strconv.FormatInt(r.End, 10), f(r.Injected),
			f(r.Ejected), strconv.Itoa(r.Delivered), f(r.AvgLatency), strconv.Itoa(r.InFlight), f(r.LinkUtilMean), f(r.LinkUtilMax)})
	}
	cw.Flush()
	return cw.Error()
}

// SampleCharts are the strip charts of the rows: the load the network
// delivered (ejected flits per node per cycle) over time, and the mean
// latency of the packets delivered in each window (log scale: a
// saturated point's grows without bound beside the others' flat lines),
// a line per point, each value at its window's end.
func SampleCharts(rows []SampleRow, machine string) (load, latency plots.Chart) {
	load = plots.Chart{Title: "delivered load over time: " + machine, XLabel: "time (cycles, window end)",
		YLabel: "ejected load (flits/node/cycle, per window)"}
	latency = plots.Chart{Title: "packet latency over time: " + machine, XLabel: "time (cycles, window end)",
		YLabel: "packet latency (cycles, window mean)", LogY: true}
	var ls, ts *plots.Series
	last := ""
	for _, r := range rows {
		name := fmt.Sprintf("%s at %s", r.Traffic, rateText(r.OfferedRate))
		if name != last {
			load.Series = append(load.Series, plots.Series{Name: name})
			latency.Series = append(latency.Series, plots.Series{Name: name})
			ls, ts, last = &load.Series[len(load.Series)-1], &latency.Series[len(latency.Series)-1], name
		}
		ls.X, ls.Y = append(ls.X, float64(r.End)), append(ls.Y, r.Ejected)
		if r.Delivered > 0 {
			ts.X, ts.Y = append(ts.X, float64(r.End)), append(ts.Y, r.AvgLatency)
		}
	}
	return load, latency
}
