package traffic

import (
	"gonum.org/v1/gonum/stat"

	"nocsim/des"
	"nocsim/endpoint/traffic/netrace"
)

// summarize turns the replay's counts into its result: sizes, runtimes
// and slowdowns, latencies and rates, for the whole replay and each
// region between the first and the last packet's.
func (p *player) summarize() {
	res, r := p.res, p.r
	nodes := float64(r.Topo.Nodes())
	end := r.at(r.Base + r.Span) // the recorded end, on the simulated clock
	res.Recorded = end
	res.Runtime = max(res.LastDelivery, end)
	for i := range p.tr.Packets {
		pk := &p.tr.Packets[i]
		counts := func(g *RegionResult) {
			g.Packets++
			if pk.Bytes() == netrace.DataBytes {
				g.DataPackets++
			} else {
				g.ControlPackets++
			}
		}
		counts(&res.RegionResult)
		if pk.Region >= 0 && pk.Region < len(res.Regions) {
			counts(&res.Regions[pk.Region])
		}
	}
	res.finish(nodes)
	if len(res.Regions) == 0 || len(p.tr.Packets) == 0 {
		res.Regions = nil
		return
	}
	first, last := p.tr.Packets[0].Region, p.tr.Packets[len(p.tr.Packets)-1].Region
	if first < 0 {
		res.Regions = nil
		return
	}
	regions := res.Regions[first : last+1]
	prev := des.Time(0)
	for k := range regions {
		g := &regions[k]
		rg := p.tr.Regions[first+k]
		// A packet limit can cut the last region short: it ends with the
		// part read.
		stop := min(rg.Start+rg.Cycles, r.Base+r.Span)
		g.Recorded = r.at(stop) - r.at(max(rg.Start, r.Base))
		regionEnd := max(g.end, r.at(stop), prev)
		g.Runtime = regionEnd - prev
		prev = regionEnd
		g.finish(nodes)
	}
	res.Regions = regions
}

// finish computes the means, quantiles, rates and slowdown of g from its
// counts, Recorded and Runtime.
func (g *RegionResult) finish(nodes float64) {
	if g.Recorded > 0 {
		g.Slowdown = float64(g.Runtime) / float64(g.Recorded)
		// Every packet is delivered once a replay ends: its flits are
		// the ones offered.
		g.OfferedRate = float64(g.Flits) / (nodes * float64(g.Recorded))
	}
	if g.Runtime > 0 {
		g.AcceptedRate = float64(g.Flits) / (nodes * float64(g.Runtime))
	}
	if g.lat.n == 0 {
		return
	}
	n := float64(g.lat.n)
	g.AvgLatency = float64(g.lat.sum) / n
	x, w := g.lat.values()
	g.P50 = stat.Quantile(0.50, stat.Empirical, x, w)
	g.P95 = stat.Quantile(0.95, stat.Empirical, x, w)
	g.P99 = stat.Quantile(0.99, stat.Empirical, x, w)
	g.AvgNetworkLatency = g.netSum / n
	g.AvgHops = g.hopSum / n
	g.AvgDepWait = g.waitSum / n
}
