package traffic

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/endpoint/energy"
	"nocsim/router"
)

// window is what Synthetic.Run records of its measurement window: the
// latencies of the packets created in it, as they are delivered, and the
// fabric's counters at its start and end, from which summarize writes the
// result.
type window struct {
	// Latencies are whole cycles, so a count per latency gives the exact
	// mean and quantiles in memory bounded by the longest latency rather
	// than by the number of packets: a run ten times longer needs no more.
	lat            latHist
	netSum, hopSum float64
	// Request-reply: the round trips of the measured requests, and their
	// replies' own latencies.
	rtt      latHist
	replySum float64
	// Latency by half of the window: in a stable network both halves see
	// the same latency; when queues grow without bound the second is worse.
	halfSum [2]float64
	halfN   [2]int
	mid     des.Time // first cycle of the second half
	begin   snapshot
	end     snapshot
}

// snapshot is the fabric's cumulative counters at one cycle.
type snapshot struct {
	ejected uint64 // flits ejected
	stats   router.Stats
	backlog int      // packets waiting in the source queues
	links   []uint64 // flits per link (Network.LinkCounts)
	routers []router.RouterCount
	vcs     []uint64 // flits per link and VC (Network.LinkVCCounts)
	act     energy.Activity
}

// takeSnapshot reads the fabric's counters, and its energy activity when
// withEnergy is set (a model prices the run).
func takeSnapshot(f *endpoint.Fabric, withEnergy bool) snapshot {
	var s snapshot
	_, s.ejected = f.Flits()
	s.stats = f.Net.Totals()
	for _, u := range f.NIUs {
		s.backlog += u.Backlog()
	}
	s.links = f.Net.LinkCounts(nil)
	s.routers = f.Net.RouterCounts(nil)
	s.vcs = f.Net.LinkVCCounts(nil)
	if withEnergy {
		s.act, _ = energy.Snapshot(f)
	}
	return s
}

// deliver records a measured packet's latencies.
func (w *window) deliver(p *endpoint.Packet) {
	h := 0
	if p.Created >= w.mid {
		h = 1
	}
	w.halfSum[h] += float64(p.Done - p.Created)
	w.halfN[h]++
	w.lat.add(p.Done - p.Created)
	w.netSum += float64(p.Done - p.Sent)
	w.hopSum += float64(p.Hops)
}

// roundTrip records a measured reply, whose request was created at born.
func (w *window) roundTrip(p *endpoint.Packet, born des.Time) {
	w.rtt.add(p.Done - born)
	w.replySum += float64(p.Done - p.Created)
}

// summarize writes the window's rates, stalls, link use, latencies and
// saturation verdict into res, for n tiles and the run's generator g.
func (w *window) summarize(res *SynthResult, s *Synthetic, g *generator, net *router.Network, n int) {
	cyc := float64(s.Measure)
	res.Measured, res.Delivered = g.created, w.lat.n
	res.GeneratedRate = float64(g.flits) / (float64(n) * cyc)
	res.SizeCounts = g.sizeCounts
	res.AcceptedRate = float64(w.end.ejected-w.begin.ejected) / (float64(n) * cyc)
	res.VCStalls = w.end.stats.VCStalls - w.begin.stats.VCStalls
	res.SwitchStalls = w.end.stats.SwitchStall - w.begin.stats.SwitchStall
	res.CreditStalls = w.end.stats.CreditStall - w.begin.stats.CreditStall
	if len(w.end.links) > 0 {
		var sum, mx float64
		for i := range w.end.links {
			u := float64(w.end.links[i]-w.begin.links[i]) / cyc
			sum += u
			mx = math.Max(mx, u)
		}
		res.LinkUtilMean, res.LinkUtilMax = sum/float64(len(w.end.links)), mx
		res.Links, res.VCShare = vcBalance(net.Links(), s.Router.VCs, w.begin.vcs, w.end.vcs)
	}
	for i := range w.end.routers {
		a, b := w.end.routers[i], w.begin.routers[i]
		res.Routers = append(res.Routers, RouterWindow{Router: i, Traversals: a.Traversals - b.Traversals,
			BufferedFlitCycles: a.BufferedFlitCycles - b.BufferedFlitCycles, VCStalls: a.VCStalls - b.VCStalls,
			SwitchStalls: a.SwitchStall - b.SwitchStall, CreditStalls: a.CreditStall - b.CreditStall})
	}
	if w.lat.n > 0 {
		// The sum of whole cycles is exact in a float64 (below 2^53), as
		// was the sum over every packet's latency.
		res.AvgPacketLatency = float64(w.lat.sum) / float64(w.lat.n)
		x, wt := w.lat.values()
		res.P50 = stat.Quantile(0.50, stat.Empirical, x, wt)
		res.P95 = stat.Quantile(0.95, stat.Empirical, x, wt)
		res.P99 = stat.Quantile(0.99, stat.Empirical, x, wt)
		res.AvgNetworkLatency = w.netSum / float64(w.lat.n)
		res.AvgHops = w.hopSum / float64(w.lat.n)
	}
	if res.RepliesDelivered = w.rtt.n; w.rtt.n > 0 {
		res.AvgRoundTrip = float64(w.rtt.sum) / float64(w.rtt.n)
		x, wt := w.rtt.values()
		res.RoundTripP50 = stat.Quantile(0.50, stat.Empirical, x, wt)
		res.RoundTripP95 = stat.Quantile(0.95, stat.Empirical, x, wt)
		res.RoundTripP99 = stat.Quantile(0.99, stat.Empirical, x, wt)
		res.AvgReplyLatency = w.replySum / float64(w.rtt.n)
	}
	if w.halfN[0] > 0 && w.halfN[1] > 0 {
		res.LatencyTrend = (w.halfSum[1] / float64(w.halfN[1])) / (w.halfSum[0] / float64(w.halfN[0]))
	}
	w.judge(res, s, g, n)
}

// judge says whether the point saturated, and why.
// The accepted rate counts flits ejected during the window, which
// trail their creation by the network latency: a window that starts
// before the network has filled (warm-up shorter than the latency, as
// on a large mesh) or is not much longer than the latency ejects fewer
// flits than it creates even when every packet gets through. So a
// shortfall alone is no saturation; packets still undelivered after
// the drain are, and the rate is quoted with them.
func (w *window) judge(res *SynthResult, s *Synthetic, g *generator, n int) {
	switch {
	case g.pending > 0 && s.ReplyFlits > 0:
		res.Saturated = true
		res.SaturationReason = fmt.Sprintf("%d of %d measured requests and their replies undelivered %d cycles after the window (accepted %.4f flits/node/cycle, requests and replies, of %.4f generated in requests)",
			g.pending, 2*g.created, s.DrainMax, res.AcceptedRate, res.GeneratedRate)
	case g.pending > 0:
		res.Saturated = true
		res.SaturationReason = fmt.Sprintf("%d of %d measured packets undelivered %d cycles after the window (accepted %.4f of %.4f flits/node/cycle generated)",
			g.pending, g.created, s.DrainMax, res.AcceptedRate, res.GeneratedRate)
	case float64(w.end.backlog-w.begin.backlog) > 0.05*float64(g.created)+float64(n):
		res.Saturated = true
		res.SaturationReason = fmt.Sprintf("source queues grew by %d packets during the window", w.end.backlog-w.begin.backlog)
	case res.LatencyTrend > divergence && min(w.halfN[0], w.halfN[1]) >= 100:
		res.Saturated = true
		res.SaturationReason = fmt.Sprintf("latency diverging: packets created in the window's second half waited %.2fx as long as those of the first", res.LatencyTrend)
	}
}

// vcBalance turns per-link, per-VC counters at the window's start and end
// into each link's flits per VC and each VC's share of all of them.
func vcBalance(links []router.Link, vcs int, start, end []uint64) ([]LinkVCFlits, []float64) {
	out := make([]LinkVCFlits, len(links))
	flat := make([]uint64, len(links)*vcs)
	perVC := make([]uint64, vcs)
	var total uint64
	for i, l := range links {
		fl := flat[i*vcs : (i+1)*vcs : (i+1)*vcs]
		for v := range fl {
			k := i*vcs + v
			fl[v] = end[k] - start[k]
			perVC[v] += fl[v]
			total += fl[v]
		}
		out[i] = LinkVCFlits{From: l.From, To: l.To, Dir: l.Dir.String(), VCFlits: fl}
	}
	share := make([]float64, vcs)
	for v, n := range perVC {
		if total > 0 {
			share[v] = float64(n) / float64(total)
		}
	}
	return out, share
}

// latHist counts packet latencies by whole cycles: a table up to
// denseLatency, a map beyond it (a saturated run's latencies grow with its
// length and spread out; each distinct value costs one entry, never more
// than the list of every latency did).
type latHist struct {
	count []uint64 // packets by latency, below denseLatency
	far   map[des.Time]uint64
	n     int
	sum   int64
}

const denseLatency = 1 << 16

// add counts one latency; the table grows only to a new longest latency.
func (h *latHist) add(l des.Time) {
	h.n++
	h.sum += l
	if l >= denseLatency {
		if h.far == nil {
			h.far = map[des.Time]uint64{}
		}
		h.far[l]++
		return
	}
	if l >= des.Time(len(h.count)) {
		h.count = slices.Grow(h.count, int(l)+1-len(h.count))[:l+1]
	}
	h.count[l]++
}

// values lists the latencies seen, ascending, with their counts as
// weights: gonum's empirical quantile of them is that of every packet's
// latency sorted, since it walks the same cumulative counts.
func (h *latHist) values() (x, w []float64) {
	for l, c := range h.count {
		if c > 0 {
			x = append(x, float64(l))
			w = append(w, float64(c))
		}
	}
	for _, l := range slices.Sorted(maps.Keys(h.far)) {
		x = append(x, float64(l))
		w = append(w, float64(h.far[l]))
	}
	return x, w
}

// NetworkLoad is everything net's links and routers have carried and
// held since it was built: each link's flits per VC and each router's
// counts (a fresh network's run, such as one MPI job's on its own chip).
func NetworkLoad(net *router.Network, vcs int) ([]LinkVCFlits, []RouterWindow) {
	end := net.LinkVCCounts(nil)
	links, _ := vcBalance(net.Links(), vcs, make([]uint64, len(end)), end)
	var routers []RouterWindow
	for i, c := range net.RouterCounts(nil) {
		routers = append(routers, RouterWindow{Router: i, Traversals: c.Traversals, BufferedFlitCycles: c.BufferedFlitCycles,
			VCStalls: c.VCStalls, SwitchStalls: c.SwitchStall, CreditStalls: c.CreditStall})
	}
	return links, routers
}
