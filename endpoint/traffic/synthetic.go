package traffic

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"nocsim/config"
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/endpoint/energy"
	"nocsim/mesh"
	"nocsim/router"
)

// Synthetic configures one point of a synthetic-traffic experiment: packet
// creation at every tile (Bernoulli or bursty on/off, one packet length or
// a mix, optionally answered by replies), warm-up, a measurement window,
// and a drain during which only packets created in the window (and their
// replies) are waited for.
type Synthetic struct {
	Mesh        mesh.Mesh     // the tiles, W x H: the patterns' node numbering
	Topo        mesh.Topology // the network joining them; nil means Mesh itself
	Router      router.Spec
	Endpoint    endpoint.Spec
	Pattern     mesh.Pattern
	Rate        float64 // offered load, flits per node per cycle (requests only)
	PacketFlits int     // packet length in flits, unless PacketSizes is set
	// Injection is the sources' process: InjectBernoulli ("" too) or
	// InjectOnOff, whose bursts hold BurstPackets packets on average.
	Injection    string
	BurstPackets float64
	// PacketSizes, when set, are the lengths in flits each packet is drawn
	// from, with SizeWeights' relative frequencies (none: equal).
	PacketSizes []int
	SizeWeights []float64
	// ReplyFlits > 0 makes the traffic request-reply: every packet is a
	// request, and its tail's arrival makes the destination send a reply of
	// ReplyFlits flits back to the requester.
	ReplyFlits int
	Warmup     des.Time // cycles before measurement
	Measure    des.Time // measurement window, cycles
	DrainMax   des.Time // most cycles to wait for the window's packets afterwards
	Watchdog   des.Time // cycles without progress that count as deadlock
	Seed       uint64   // 0..MaxSeed
	// Sample, when above 0, is the sampling window: every Sample cycles
	// of the run the network's counts are kept (SynthResult.Samples).
	Sample  des.Time
	Shuffle bool // visit routers in random order each cycle (tests)
	// WatchPackets numbers the packets whose life the run writes to
	// SynthResult.Watch (see watcher), counting from 0 in creation order.
	WatchPackets []int64
	// Energy names the energy model the window's activity is priced with
	// (SynthResult.Energy); Model "" or energy.None prices nothing.
	Energy energy.Params

	onStart   func(eng *des.Engine)                               // for tests: called once the engine is built
	onDeliver func(p *endpoint.Packet, reply bool, born des.Time) // for tests: every delivery, measured or not
}

// SynthResult is what one point measured. Latencies are in cycles, rates in
// flits per node per cycle. OfferedRate is the configured injection rate;
// GeneratedRate is what the Bernoulli sources actually created. When no
// measured packet was delivered (Delivered == 0) there is no latency: the
// latency fields and LatencyTrend are then zero and must not be shown as
// measured (NaN would not survive JSON), so callers test Delivered.
type SynthResult struct {
	Traffic           string
	OfferedRate       float64 // offered load: the configured injection rate
	GeneratedRate     float64 // flits created in the window, per node per cycle
	AcceptedRate      float64 // flits ejected in the window
	AvgPacketLatency  float64 // creation to tail ejection, source queueing included
	P50, P95, P99     float64
	AvgNetworkLatency float64 // head leaving the NIU to tail ejection
	AvgHops           float64
	ZeroLoadLatency   float64 // analytic, averaged over the pattern
	LinkUtilMean      float64 // flits per cycle per router-to-router link
	LinkUtilMax       float64
	Links             []LinkVCFlits  // per router-to-router link, flits per VC in the window
	Routers           []RouterWindow // per router, its counts in the window (none on a bus)
	VCShare           []float64      // each VC's share of all router-to-router flits in the window
	VCStalls          uint64         // during the window
	SwitchStalls      uint64
	CreditStalls      uint64
	Measured          int // packets created in the window
	Delivered         int // of those, delivered
	// SizeCounts is the measured packets per length of PacketSizes (nil
	// without a mix).
	SizeCounts []int
	// Request-reply only (ReplyFlits > 0): the replies of the measured
	// requests delivered; the round trip, a request's creation to its
	// reply's tail ejection; a reply's own latency, from its creation when
	// the request's tail arrived; and the analytic zero-load round trip.
	RepliesDelivered  int
	AvgRoundTrip      float64
	RoundTripP50      float64
	RoundTripP95      float64
	RoundTripP99      float64
	AvgReplyLatency   float64
	ZeroLoadRoundTrip float64
	LatencyTrend      float64 // mean latency of the window's second half over its first
	Saturated         bool
	SaturationReason  string
	Cycles            des.Time
	Events            uint64 // scheduled events handled
	Ticks             uint64 // component cycles simulated
	FlitHops          uint64 // flit-router traversals
	WallSeconds       float64
	// Watch is the lines of the watched packets (Synthetic.WatchPackets).
	Watch []byte
	// Energy is the window's energy under Synthetic.Energy's model, and
	// Activity the events it priced; nil without a model.
	Energy   *energy.Breakdown
	Activity *energy.Activity
	// Samples is the run's time series, a window every Synthetic.Sample
	// cycles from cycle 0 to the run's end (the last window may be
	// shorter); nil without sampling.
	Samples []Sample
}

// RouterWindow is one router's counts during the measurement window:
// the flits through its switch, the flits it held summed over the cycles
// (over the window's cycles, its mean buffer occupancy in flits), and
// its stalls as router.Stats counts them.
type RouterWindow struct {
	Router             int    `json:"router"`
	Traversals         uint64 `json:"traversed_flits"`
	BufferedFlitCycles uint64 `json:"buffered_flit_cycles"`
	VCStalls           uint64 `json:"vc_stall_cycles"`
	SwitchStalls       uint64 `json:"switch_stall_flit_cycles"`
	CreditStalls       uint64 `json:"credit_stall_flit_cycles"`
}

// LinkVCFlits is one router-to-router link's traffic during the
// measurement window, per output VC.
type LinkVCFlits struct {
	From    int      `json:"from"` // node the link leaves
	To      int      `json:"to"`   // node it enters
	Dir     string   `json:"dir"`  // output port it leaves by: N, E, S or W
	VCFlits []uint64 `json:"vc_flits"`
}

// topo is the network the point runs on.
func (s *Synthetic) topo() mesh.Topology {
	if s.Topo == nil {
		return s.Mesh
	}
	return s.Topo
}

// SimCyclesPerSecond is simulated cycles per wall-clock second.
func (r SynthResult) SimCyclesPerSecond() float64 { return perSecond(float64(r.Cycles), r.WallSeconds) }

// FlitHopsPerSecond is flit-router traversals per wall-clock second.
func (r SynthResult) FlitHopsPerSecond() float64 {
	return perSecond(float64(r.FlitHops), r.WallSeconds)
}

func perSecond(v, s float64) float64 {
	if s <= 0 {
		return 0
	}
	return v / s
}

// Validate checks the parts of a point that the specs do not. Errors are
// *config.KeyError naming the [noc] key.
func (s *Synthetic) Validate() error {
	if err := s.Router.Validate(); err != nil {
		return err
	}
	if err := s.Endpoint.Validate(); err != nil {
		return err
	}
	bad := func(key string, v any, allowed string) error {
		return &config.KeyError{Key: key, Value: fmt.Sprint(v), Allowed: allowed}
	}
	if s.Pattern == nil {
		return bad("traffic", "", strings.Join(mesh.PatternNames, ", "))
	}
	if s.energyOn() {
		if err := energy.Check(s.Energy, s.topo(), s.Router.VCs, s.Router.VCBuf, s.Router.Routing); err != nil {
			return err
		}
	}
	if err := s.validateTraffic(); err != nil {
		return err
	}
	if err := s.validateRate(); err != nil {
		return err
	}
	switch {
	case s.Warmup < 0 || s.Warmup > MaxPhase:
		return bad("warmup_cycles", s.Warmup, fmt.Sprintf("0..%d", MaxPhase))
	case s.Measure < 1 || s.Measure > MaxPhase:
		return bad("measure_cycles", s.Measure, fmt.Sprintf("1..%d", MaxPhase))
	case s.DrainMax < 0 || s.DrainMax > MaxPhase:
		return bad("drain_cycles", s.DrainMax, fmt.Sprintf("0..%d", MaxPhase))
	case s.Watchdog < 1 || s.Watchdog > MaxPhase:
		return bad("watchdog_cycles", s.Watchdog, fmt.Sprintf("1..%d", MaxPhase))
	case s.Seed > MaxSeed:
		return bad("seed", s.Seed, fmt.Sprintf("0..%d", uint64(MaxSeed)))
	case s.Sample < 0 || s.Sample > 0 && (s.Warmup+s.Measure+s.DrainMax)/s.Sample >= MaxSampleWindows:
		span := s.Warmup + s.Measure + s.DrainMax
		return bad("sample_cycles", s.Sample, fmt.Sprintf("0 (off) or at least %d: the run's up to %d cycles in at most %d windows", span/MaxSampleWindows+1, span, MaxSampleWindows))
	case slices.ContainsFunc(s.WatchPackets, func(id int64) bool { return id < 0 }):
		return bad("watch-packets", s.WatchPackets, "packet numbers 0 or more")
	}
	return nil
}

// divergence is the ratio of second-half to first-half latency taken as
// queues growing without bound. Stable points stay within a few percent
// (within 6% over all patterns at 4x4 and 8x8 in our sweeps); points past
// the knee exceed 1.3 within a 5000-cycle window.
const divergence = 1.25

// MaxPhase bounds each phase of a point (a billion cycles, hours of
// simulation), so that no sum of phases can overflow the clock.
const MaxPhase = 1_000_000_000

// MaxSeed keeps seeds within TOML's signed 64-bit integers, so every seed
// can be written to a scenario file and read back.
const MaxSeed = 1<<63 - 1

// ZeroLoad is the analytic zero-load latency on topology t averaged over
// the pattern's source-destination distribution, every source equally
// likely. T0 is affine in the hop count (constant on a bus), so this is T0
// at the mean hop count; the mean costs O(nodes), not O(nodes^2), so that
// a 256x256 mesh is as cheap as a small one.
func ZeroLoad(t mesh.Topology, rs router.Spec, p mesh.Pattern, packetFlits int) float64 {
	t0 := float64(rs.ZeroLoad(t, 0, packetFlits))
	perHop := float64(rs.ZeroLoad(t, 1, packetFlits)) - t0
	return t0 + perHop*meanHops(t, p)
}

// sourceFree names the patterns whose destination distribution is the
// same for every source (mesh documents them so).
var sourceFree = map[string]bool{"uniform": true, "hotspot": true}

// meanHops is the pattern's mean hop count over all sources. For a
// distribution that ignores the source, the hops from every source to d
// sum in closed form per dimension; otherwise (permutations) each source
// has few destinations.
func meanHops(t mesh.Topology, p mesh.Pattern) float64 {
	n := t.Nodes()
	if m, ok := t.(mesh.Mesh); ok && sourceFree[p.Name()] {
		sum := 0.0
		p.Dist(0, func(d int, w float64) {
			x, y := m.XY(d)
			sum += w * float64(m.H*distSum(m.W, x)+m.W*distSum(m.H, y))
		})
		return sum / float64(n)
	}
	if c, ok := t.(mesh.CMesh); ok && sourceFree[p.Name()] {
		// The same per dimension over the router grid, whose every
		// router holds four of the sources.
		g := c.RouterGrid()
		sum := 0.0
		p.Dist(0, func(d int, w float64) {
			r, _ := c.RouterOf(d)
			x, y := g.XY(r)
			sum += w * float64(4*(g.H*distSum(g.W, x)+g.W*distSum(g.H, y)))
		})
		return sum / float64(n)
	}
	if sourceFree[p.Name()] {
		// A ring, a torus and a bus look the same from every node, so
		// the mean distance from all sources to d is the one to node 0,
		// for every d.
		sum := 0.0
		for s := range n {
			sum += float64(t.Hops(s, 0))
		}
		return sum / float64(n)
	}
	sum := 0.0
	for s := 0; s < n; s++ {
		p.Dist(s, func(d int, w float64) { sum += w * float64(t.Hops(s, d)) })
	}
	return sum / float64(n)
}

// distSum is the sum of |i-c| over i = 0..k-1.
func distSum(k, c int) int { return c*(c+1)/2 + (k-1-c)*(k-c)/2 }

// meanHopsBack is meanHops of the way back, from each destination to its
// source: replies travel it. A mesh, a bus and a bidirectional ring are
// symmetric; a unidirectional ring is not (there and back is the ring).
func meanHopsBack(t mesh.Topology, p mesh.Pattern) float64 {
	switch t.(type) {
	case mesh.Mesh, mesh.CMesh:
		return meanHops(t, p)
	}
	n := t.Nodes()
	sum := 0.0
	if sourceFree[p.Name()] {
		// Every node of a ring or bus looks the same: the mean distance
		// back from d to all sources is the one from node 0.
		for s := range n {
			sum += float64(t.Hops(0, s))
		}
		return sum / float64(n)
	}
	for s := 0; s < n; s++ {
		p.Dist(s, func(d int, w float64) { sum += w * float64(t.Hops(d, s)) })
	}
	return sum / float64(n)
}

// ZeroLoadBack is ZeroLoad for packets of packetFlits going from each
// destination back to its source: the replies of request-reply traffic.
func ZeroLoadBack(t mesh.Topology, rs router.Spec, p mesh.Pattern, packetFlits int) float64 {
	t0 := float64(rs.ZeroLoad(t, 0, packetFlits))
	perHop := float64(rs.ZeroLoad(t, 1, packetFlits)) - t0
	return t0 + perHop*meanHopsBack(t, p)
}

// ReplyTurnaround is the cycles between a request's tail arriving and its
// reply being able to leave: the destination's NIU takes the tail after
// its injection slot of that cycle, so the reply is injected the next.
const ReplyTurnaround = 1

// zeroLoad is the point's analytic zero-load latency of its packets (the
// requests), averaged per packet over the size mix: T0 is not affine in
// the length (flits are serialized per link width), so each size counts.
func (s *Synthetic) zeroLoad(t mesh.Topology) float64 {
	if len(s.PacketSizes) == 0 {
		return ZeroLoad(t, s.Router, s.Pattern, s.PacketFlits)
	}
	z := 0.0
	for i, w := range s.SizeShares() {
		z += w * ZeroLoad(t, s.Router, s.Pattern, s.PacketSizes[i])
	}
	return z
}

// ZeroLoadRoundTrip is the analytic round trip of request-reply traffic at
// zero load: a request's zero-load latency, the turnaround, and its
// reply's way back.
func (s *Synthetic) ZeroLoadRoundTrip() float64 {
	t := s.topo()
	return s.zeroLoad(t) + ReplyTurnaround + ZeroLoadBack(t, s.Router, s.Pattern, s.ReplyFlits)
}

type phase struct {
	name string
	fn   func(now des.Time)
}

func (p *phase) Handle(now des.Time, _ int64) { p.fn(now) }

// Run simulates one point on a fresh machine.
func (s *Synthetic) Run() (SynthResult, error) {
	if err := s.Validate(); err != nil {
		return SynthResult{}, err
	}
	start := time.Now()
	eng := s.engine()
	topo := s.topo()
	f := endpoint.NewFabric(eng, topo, s.Router, s.Endpoint)
	eng.SetWatchdog(s.Watchdog, f.Describe)
	if s.onStart != nil {
		s.onStart(eng)
	}
	var model energy.Model
	if s.energyOn() {
		// Checked by Validate: loading twice costs a file parse.
		model, _ = energy.Load(s.Energy)
	}
	g := s.startSources(f, eng, topo.Nodes())
	res := SynthResult{Traffic: s.Pattern.Name(), OfferedRate: s.Rate, ZeroLoadLatency: s.zeroLoad(topo)}
	if s.ReplyFlits > 0 {
		res.ZeroLoadRoundTrip = s.ZeroLoadRoundTrip()
	}
	w := &window{mid: g.mStart + s.Measure/2}
	if len(s.WatchPackets) > 0 {
		g.watch = newWatcher(s.WatchPackets, topo, eng)
		f.Net.SetTrace(g.watch.switched)
	}
	var sp *sampler
	if s.Sample > 0 {
		sp = newSampler(f, s.Sample)
		eng.Schedule(s.Sample, sp, 0)
	}
	f.OnDeliver = func(p *endpoint.Packet, now des.Time) {
		if sp != nil {
			sp.deliver(p)
		}
		if g.watch != nil {
			// Before the reply is sent, which may move the packet table.
			g.watch.delivered(p, now)
		}
		reply, born := false, des.Time(0)
		if g.replyFlits > 0 {
			// Before anything else: sending the reply may move the packet
			// table, so p is read only through the copy answer keeps.
			p, reply, born = g.answer(p, now)
			if reply && p.Measured {
				w.roundTrip(p, born)
			}
		}
		if s.onDeliver != nil {
			s.onDeliver(p, reply, born)
		}
		if !p.Measured {
			return
		}
		if !reply {
			w.deliver(p)
		}
		g.pending--
		if g.pending == 0 && now >= g.mEnd {
			eng.Stop()
		}
	}
	// The window's counters are read at its first cycle and at the
	// drain's, whose phase also ends a run with nothing left to wait for.
	eng.Schedule(g.mStart, &phase{"measure", func(des.Time) { w.begin = takeSnapshot(f, model != nil) }}, 0)
	eng.Schedule(g.mEnd, &phase{"drain", func(des.Time) {
		w.end = takeSnapshot(f, model != nil)
		if g.pending == 0 {
			eng.Stop()
		}
	}}, 0)
	if err := eng.Run(g.mEnd + s.DrainMax); err != nil {
		return res, err
	}
	if f.Err() != nil {
		return res, f.Err()
	}
	w.summarize(&res, s, g, f.Net, topo.Nodes())
	if sp != nil {
		sp.take(eng.Now())
		res.Samples = sp.out
	}
	if model != nil {
		act, err := w.end.act.Sub(w.begin.act)
		if err != nil {
			return res, err
		}
		b, err := model.Energy(act)
		if err != nil {
			return res, err
		}
		res.Energy, res.Activity = &b, &act
	}
	res.Cycles = eng.Now()
	res.Events, res.Ticks = eng.Events(), eng.Ticks()
	res.FlitHops = f.Net.Totals().Traversals
	res.WallSeconds = time.Since(start).Seconds()
	if g.watch != nil {
		res.Watch = g.watch.out.Bytes()
	}
	return res, nil
}

// engine is a fresh engine visiting tickers in the order the run asks for.
func (s *Synthetic) engine() *des.Engine {
	eng := des.New()
	if s.Shuffle {
		eng.ShuffleTicks(s.Seed ^ 0x5eed)
	} else {
		// Routers and NIUs keep the Ticker contract (the shuffled runs
		// of the determinism tests check it), and synthetic traffic reacts
		// to deliveries only by counting them and by queueing a reply at
		// the NIU that took the request, within that NIU's own tick, so
		// visiting in id order, which is memory order, changes no result
		// and saves cache misses on large meshes.
		eng.TickByID()
	}
	return eng
}

// energyOn is whether the point prices its window's energy: a model is
// named.
func (s *Synthetic) energyOn() bool {
	return s.Energy.Model != "" && s.Energy.Model != energy.None
}
