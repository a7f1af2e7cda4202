package study

import (
	"fmt"
	"slices"

	"nocsim/endpoint/traffic"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// NocRows turns results into rows.
func NocRows(pts []traffic.Synthetic, res []traffic.SynthResult) []report.NocRow {
	rows := make([]report.NocRow, len(res))
	for i, r := range res {
		p := pts[i]
		ev := r.Events + r.Ticks
		rows[i] = report.NocRow{
			Mesh: scenarios.MeshLabel(p.Mesh, scenarios.TopoKey(p.Topo)), Traffic: r.Traffic, PacketFlits: p.PacketFlits, Seed: int64(p.Seed),
			OfferedRate: r.OfferedRate, GeneratedRate: r.GeneratedRate, AcceptedRate: r.AcceptedRate,
			AvgPacketLatency: r.AvgPacketLatency, P50PacketLatency: r.P50, P95PacketLatency: r.P95, P99PacketLatency: r.P99,
			AvgNetworkLatency: r.AvgNetworkLatency, ZeroLoadLatency: r.ZeroLoadLatency, AvgHops: r.AvgHops,
			LinkUtilMean: r.LinkUtilMean, LinkUtilMax: r.LinkUtilMax,
			VCStalls: r.VCStalls, SwitchStalls: r.SwitchStalls, CreditStalls: r.CreditStalls,
			MeasuredPackets: r.Measured, DeliveredPackets: r.Delivered,
			LatencyTrend: r.LatencyTrend, Saturated: r.Saturated, SaturationReason: r.SaturationReason,
			Cycles: r.Cycles, Events: ev, FlitHops: r.FlitHops, WallSeconds: r.WallSeconds,
			SimCyclesPerSecond: r.SimCyclesPerSecond(), FlitHopsPerSecond: r.FlitHopsPerSecond(),
			EventsPerSecond: report.PerSecond(float64(ev), r.WallSeconds),
			VCShares:        r.VCShare, Links: r.Links, Routers: r.Routers,
		}
		trafficColumns(&rows[i], &p, r)
		if r.Energy != nil {
			rows[i].Energy = scenarios.EnergyReport(*r.Energy, r.Activity.Totals().Ejected, r.Activity.Occupancy())
		}
		if len(r.VCShare) > 0 {
			rows[i].VCShareMin, rows[i].VCShareMax = slices.Min(r.VCShare), slices.Max(r.VCShare)
		}
	}
	return rows
}

// trafficColumns fills the row's columns of on_off, size-mix and
// request-reply traffic; a Bernoulli one-way point leaves them empty.
func trafficColumns(row *report.NocRow, p *traffic.Synthetic, r traffic.SynthResult) {
	if b, ok := p.Burst(); ok {
		row.Injection, row.BurstPackets = p.Injection, p.BurstPackets
		// A zero load never turns on: its off period has no mean.
		if b.Alpha > 0 {
			row.BurstOnCycles, row.BurstOffCycles = b.OnCycles(), b.OffCycles()
		}
	}
	if len(p.PacketSizes) > 0 {
		row.PacketFlits = 0
		row.PacketSizes, row.PacketSizeShares, row.MeanPacketFlits = p.PacketSizes, p.SizeShares(), p.MeanPacketFlits()
	}
	if p.ReplyFlits > 0 {
		row.ReplyFlits, row.DeliveredReplies, row.ZeroLoadRoundTrip = p.ReplyFlits, r.RepliesDelivered, r.ZeroLoadRoundTrip
		row.AvgRoundTrip, row.P50RoundTrip, row.P95RoundTrip, row.P99RoundTrip = r.AvgRoundTrip, r.RoundTripP50, r.RoundTripP95, r.RoundTripP99
		row.AvgReplyLatency = r.AvgReplyLatency
	}
}

// RunNoc simulates every point, in parallel across points (never inside
// one), and returns the results in point order. If any point fails, the
// error of the first failing point in order is returned.
func RunNoc(pts []traffic.Synthetic, opt scenarios.RunOptions) ([]traffic.SynthResult, error) {
	res := make([]traffic.SynthResult, len(pts))
	errs := make([]error, len(pts))
	err := scenarios.ForEach(len(pts), opt, func(i int) error {
		res[i], errs[i] = pts[i].Run()
		if errs[i] != nil {
			errs[i] = fmt.Errorf("point %d (%s at %v flits/node/cycle): %w", i+1, pts[i].Pattern.Name(), pts[i].Rate, errs[i])
		}
		return errs[i]
	})
	if err != nil {
		for _, e := range errs {
			if e != nil {
				return nil, e
			}
		}
	}
	return res, nil
}

// SampleRows are the points' sampling windows (sample_cycles), point by
// point in order.
func SampleRows(pts []traffic.Synthetic, res []traffic.SynthResult) []report.SampleRow {
	var rows []report.SampleRow
	for i, r := range res {
		nodes := float64(pts[i].Mesh.Nodes())
		if pts[i].Topo != nil {
			nodes = float64(pts[i].Topo.Nodes())
		}
		for _, s := range r.Samples {
			cyc := float64(s.End - s.Start)
			row := report.SampleRow{Traffic: r.Traffic, OfferedRate: r.OfferedRate, Start: int64(s.Start), End: int64(s.End),
				Injected: float64(s.InjectedFlits) / nodes / cyc, Ejected: float64(s.EjectedFlits) / nodes / cyc,
				Delivered: s.Delivered, AvgLatency: s.AvgLatency, InFlight: s.InFlightFlits}
			for _, n := range s.Links {
				u := float64(n) / cyc
				row.LinkUtilMean += u / float64(len(s.Links))
				row.LinkUtilMax = max(row.LinkUtilMax, u)
			}
			rows = append(rows, row)
		}
	}
	return rows
}
