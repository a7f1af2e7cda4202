package traffic

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"nocsim/config"
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/router"
)

// Synthetic configures one point of a synthetic-traffic experiment: Bernoulli
// packet creation at every tile, warm-up, a measurement window, and a drain
// during which only packets created in the window are waited for.
type Synthetic struct {
	Mesh        mesh.Mesh     // the tiles, W x H: the patterns' node numbering
	Topo        mesh.Topology // the network joining them; nil means Mesh itself
	Router      router.Spec
	Endpoint    endpoint.Spec
	Pattern     mesh.Pattern
	Rate        float64  // offered load, flits per node per cycle
	PacketFlits int      // packet length in flits
	Warmup      des.Time // cycles before measurement
	Measure     des.Time // measurement window, cycles
	DrainMax    des.Time // most cycles to wait for the window's packets afterwards
	Watchdog    des.Time // cycles without progress that count as deadlock
	Seed        uint64   // 0..MaxSeed
	Shuffle     bool     // visit routers in random order each cycle (tests)

	onStart func(eng *des.Engine) // for tests: called once the engine is built
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
	Links             []LinkVCFlits // per router-to-router link, flits per VC in the window
	VCShare           []float64     // each VC's share of all router-to-router flits in the window
	VCStalls          uint64        // during the window
	SwitchStalls      uint64
	CreditStalls      uint64
	Measured          int     // packets created in the window
	Delivered         int     // of those, delivered
	LatencyTrend      float64 // mean latency of the window's second half over its first
	Saturated         bool
	SaturationReason  string
	Cycles            des.Time
	Events            uint64 // scheduled events handled
	Ticks             uint64 // component cycles simulated
	FlitHops          uint64 // flit-router traversals
	WallSeconds       float64
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
	switch {
	case s.Pattern == nil:
		return bad("traffic", "", strings.Join(mesh.PatternNames, ", "))
	case s.PacketFlits < 1 || s.PacketFlits > s.Endpoint.QueueFlits:
		return bad("packet_flits", s.PacketFlits, fmt.Sprintf("1..%d (a packet must fit the NIU queue, niu_queue_flits)", s.Endpoint.QueueFlits))
	case !(s.Rate >= 0) || s.Rate > MaxRate(s.Router, s.PacketFlits):
		return bad("rates", s.Rate, fmt.Sprintf("0..%v flits/node/cycle (the injection bandwidth, and at most one packet per cycle)", MaxRate(s.Router, s.PacketFlits)))
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

// MaxRate is the highest offered load a Bernoulli source can produce: the
// NIU's injection bandwidth, and one packet per cycle.
func MaxRate(rs router.Spec, packetFlits int) float64 {
	return math.Min(float64(rs.InjectWidth), float64(packetFlits))
}

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

// generator creates packets at every tile as independent Bernoulli
// processes, drawing geometric gaps so that an idle cycle costs nothing.
type generator struct {
	s       *Synthetic
	f       *endpoint.Fabric
	eng     *des.Engine
	rng     *rand.Rand
	logq    float64 // ln(1-p), p the per-cycle packet probability
	p       float64
	on      bool
	mStart  des.Time
	mEnd    des.Time
	end     des.Time // last cycle the run can reach
	created int      // packets created in the window
	pending int      // of those, not yet delivered
}

// gap draws the cycles to a tile's next packet; false means none before
// the run ends (tiny rates make gaps too long for any clock).
func (g *generator) gap() (des.Time, bool) {
	if g.p >= 1 {
		return 1, true
	}
	u := 1 - g.rng.Float64() // (0,1]
	d := 1 + math.Floor(math.Log(u)/g.logq)
	if !(d <= float64(g.end)) {
		return 0, false
	}
	return des.Time(d), true
}

// Handle creates one packet at tile arg and schedules the tile's next one.
func (g *generator) Handle(now des.Time, arg int64) {
	if !g.on {
		return
	}
	src := int(arg)
	pk := g.f.SendSynthetic(src, g.s.Pattern.Dest(src, g.rng), g.s.PacketFlits, now)
	if now >= g.mStart && now < g.mEnd {
		pk.Measured = true
		g.created++
		g.pending++
	}
	if d, ok := g.gap(); ok {
		g.eng.Schedule(now+d, g, arg)
	}
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
	g := s.startSources(f, eng, topo.Nodes())
	res := SynthResult{Traffic: s.Pattern.Name(), OfferedRate: s.Rate,
		ZeroLoadLatency: ZeroLoad(topo, s.Router, s.Pattern, s.PacketFlits)}
	w := &window{mid: g.mStart + s.Measure/2}
	f.OnDeliver = func(p *endpoint.Packet, now des.Time) {
		if !p.Measured {
			return
		}
		w.deliver(p)
		g.pending--
		if g.pending == 0 && now >= g.mEnd {
			eng.Stop()
		}
	}
	// The window's counters are read at its first cycle and at the
	// drain's, whose phase also ends a run with nothing left to wait for.
	eng.Schedule(g.mStart, &phase{"measure", func(des.Time) { w.begin = takeSnapshot(f) }}, 0)
	eng.Schedule(g.mEnd, &phase{"drain", func(des.Time) {
		w.end = takeSnapshot(f)
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
	res.Cycles = eng.Now()
	res.Events, res.Ticks = eng.Events(), eng.Ticks()
	res.FlitHops = f.Net.Totals().Traversals
	res.WallSeconds = time.Since(start).Seconds()
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
		// to deliveries only by counting them, so visiting in id order,
		// which is memory order, changes no result and saves cache misses
		// on large meshes.
		eng.TickByID()
	}
	return eng
}

// startSources makes the packet generator of the run and schedules each of
// the n tiles' first packet, in tile order (the order draws the seed's
// random numbers in).
func (s *Synthetic) startSources(f *endpoint.Fabric, eng *des.Engine, n int) *generator {
	g := &generator{s: s, f: f, eng: eng, rng: rand.New(rand.NewPCG(s.Seed, 0xda7a)),
		p: s.Rate / float64(s.PacketFlits), on: s.Rate > 0,
		mStart: s.Warmup, mEnd: s.Warmup + s.Measure, end: s.Warmup + s.Measure + s.DrainMax}
	g.logq = math.Log1p(-g.p)
	if g.on {
		for i := 0; i < n; i++ {
			if d, ok := g.gap(); ok {
				eng.Schedule(d-1, g, int64(i))
			}
		}
	}
	return g
}
