package study

import (
	"path/filepath"

	"nocsim/endpoint/traffic"
	"nocsim/endpoint/traffic/netrace"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// ReplayRow turns a trace's replay into its report: the whole replay and
// each region; mesh is the network's label (scenarios.MeshLabel).
func ReplayRow(path, mesh string, r traffic.Replay, res traffic.ReplayResult) report.ReplayRow {
	row := report.ReplayRow{
		Trace: filepath.Base(path), Benchmark: r.Trace.Benchmark, Mesh: mesh,
		Dependencies: r.Deps, Scale: r.Scale, FlitBits: r.FlitBits,
		ControlFlits: traffic.PacketFlits(netrace.ControlBytes, r.FlitBits), DataFlits: traffic.PacketFlits(netrace.DataBytes, r.FlitBits),
		TraceComplete: r.Trace.Complete, LastInjection: res.LastInjection, LastDelivery: res.LastDelivery,
		Cycles: res.Cycles, Events: res.Events + res.Ticks, FlitHops: res.FlitHops, WallSeconds: res.WallSeconds,
		ReplayRegion: replayRegion(res.RegionResult),
	}
	row.Regions = make([]report.ReplayRegion, len(res.Regions))
	for i, g := range res.Regions {
		row.Regions[i] = replayRegion(g)
	}
	if res.Energy != nil {
		row.Energy = scenarios.EnergyReport(*res.Energy, res.Activity.Totals().Ejected, res.Activity.Occupancy())
	}
	return row
}

func replayRegion(g traffic.RegionResult) report.ReplayRegion {
	return report.ReplayRegion{Region: g.Region, Packets: g.Packets, DeliveredPackets: g.Delivered,
		ControlPackets: g.ControlPackets, DataPackets: g.DataPackets, Flits: g.Flits,
		RecordedCycles: g.Recorded, RuntimeCycles: g.Runtime, Slowdown: g.Slowdown,
		AvgPacketLatency: g.AvgLatency, P50PacketLatency: g.P50, P95PacketLatency: g.P95, P99PacketLatency: g.P99,
		AvgNetworkLatency: g.AvgNetworkLatency, AvgHops: g.AvgHops, AvgDepWait: g.AvgDepWait,
		OfferedRate: g.OfferedRate, AcceptedRate: g.AcceptedRate}
}
