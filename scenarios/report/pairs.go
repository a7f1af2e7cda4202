package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"nocsim/des"
)

// PairsRow is one (version, pair count, size) point. A pair's window runs
// from its start to the arrival of its last byte. Native senders all start
// at cycle 0. MPI pairs start when both their ranks have left the barrier
// that precedes the stream: a barrier does not release every rank in the
// same cycle, and on a line its late messages can queue behind the first
// transfers, so a pair is timed from when both its ends could take part.
// StartSkewCycles says how far apart the pairs' starts were.
type PairsRow struct {
	Topology string `json:"topology"` // [network] topology: mesh, torus, cmesh, ring, ring_uni, bus
	// The chip's energy over the whole run (warm-up included), per byte
	// the run moved, and its average power; absent when energy is not
	// priced (energy_model = none, a bus).
	EnergyPJ        float64 `json:"energy_pj,omitempty"`
	EnergyPerBytePJ float64 `json:"energy_per_byte_pj,omitempty"`
	PowerMW         float64 `json:"power_mw,omitempty"`
	Version         string  `json:"version"`
	Protocol        string  `json:"protocol"` // MPI protocol, or "dma" (native)
	Placement       string  `json:"placement"`
	Pairs           int     `json:"pairs"`
	Procs           int     `json:"procs"`
	SizeBytes       int     `json:"size_bytes"`
	// Messages is the measured transfers per pair (reps), after one
	// warm-up transfer (MPI only).
	Messages int `json:"pair_messages"`
	// TotalBytes is what every pair moved in the measured window.
	TotalBytes int64 `json:"total_bytes"`
	// WindowCycles is from the earliest pair's start to the last arrival
	// of any pair; PairCycles is each pair's own window.
	WindowCycles    des.Time   `json:"window_cycles"`
	PairCycles      []des.Time `json:"pair_cycles"`
	StartSkewCycles des.Time   `json:"start_skew_cycles"`
	// Per-pair bandwidth: each pair's bytes over its own window, the mean
	// and the smallest over pairs; aggregate: all bytes over the common
	// window. MB is 10^6 bytes, at the configured clock.
	MeanPairBW    float64 `json:"mean_pair_bandwidth_bytes_per_cycle"`
	MinPairBW     float64 `json:"min_pair_bandwidth_bytes_per_cycle"`
	AggregateBW   float64 `json:"aggregate_bandwidth_bytes_per_cycle"`
	MeanPairMBps  float64 `json:"mean_pair_bandwidth_mb_per_second"`
	AggregateMBps float64 `json:"aggregate_bandwidth_mb_per_second"`
	Correct       bool    `json:"correct"`
	Error         string  `json:"error,omitempty"`
}

func WritePairsTable(out io.Writer, rows []PairsRow) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	energy := slices.ContainsFunc(rows, func(r PairsRow) bool { return r.EnergyPJ > 0 })
	head, units := "", ""
	if energy {
		head, units = "energy/byte\tpower\t", "(pJ)\t(mW)\t"
	}
	fmt.Fprintln(tw, "topology\tversion\tprotocol\tpairs\tsize\tper pair\tper pair\taggregate\tper pair\taggregate\tstart skew\tcorrect\t"+head)
	fmt.Fprintln(tw, "\t\t\t\t(bytes)\t(B/cycle, mean)\t(B/cycle, min)\t(B/cycle)\t(MB/s, mean)\t(MB/s)\t(cycles)\t\t"+units)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.1f\t%.1f\t%d\t%v\t", r.Topology, r.Version, r.Protocol, r.Pairs, r.SizeBytes,
			r.MeanPairBW, r.MinPairBW, r.AggregateBW, r.MeanPairMBps, r.AggregateMBps, r.StartSkewCycles, r.Correct)
		switch {
		case energy && r.EnergyPJ > 0:
			fmt.Fprintf(tw, "%.1f\t%.1f\t", r.EnergyPerBytePJ, r.PowerMW)
		case energy:
			fmt.Fprint(tw, "-\t-\t")
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rows) > 0 {
		_, err := fmt.Fprintf(out, "placement %s, %d ranks, %d transfers per pair per size\n", rows[0].Placement, rows[0].Procs, rows[0].Messages)
		return err
	}
	return nil
}

// WritePairsCSV writes the rows as CSV, one column per JSON key (a pair's
// windows semicolon-separated), as results.csv holds them.
func WritePairsCSV(b *bytes.Buffer, rows []PairsRow) error { return WriteRowsCSV(b, rows) }
