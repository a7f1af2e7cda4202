package scenarios

import (
	"slices"

	"nocsim/endpoint/traffic"
	"nocsim/scenarios/report"
)

// NocRows turns results into rows.
func NocRows(pts []traffic.Synthetic, res []traffic.SynthResult) []report.NocRow {
	rows := make([]report.NocRow, len(res))
	for i, r := range res {
		p := pts[i]
		ev := r.Events + r.Ticks
		rows[i] = report.NocRow{
			Mesh: meshLabel(p.Mesh, topoKey(p.Topo)), Traffic: r.Traffic, PacketFlits: p.PacketFlits, Seed: int64(p.Seed),
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
			VCShares:        r.VCShare, Links: r.Links,
		}
		if len(r.VCShare) > 0 {
			rows[i].VCShareMin, rows[i].VCShareMax = slices.Min(r.VCShare), slices.Max(r.VCShare)
		}
	}
	return rows
}
