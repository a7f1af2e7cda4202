package traffic

import (
	"fmt"
	"math"
	"slices"
	"time"

	"nocsim/config"
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/endpoint/energy"
	"nocsim/endpoint/traffic/netrace"
	"nocsim/mesh"
	"nocsim/router"
)

// Replay configures the replay of a Netrace trace on a network: trace
// node i is tile i, a packet of b bytes is ceil(8b/FlitBits) flits, and a
// packet is injected at its trace cycle (times Scale, counted from Base)
// or, with Deps, when the last packet it depends on has been delivered,
// whichever is later.
type Replay struct {
	Topo     mesh.Topology // the network; its nodes at least the trace's
	Router   router.Spec
	Endpoint endpoint.Spec
	Trace    *netrace.Trace
	// Base is the trace cycle that becomes cycle 0 (a region's start when
	// one region is replayed); Span is the recorded runtime from Base: the
	// header's cycles, the region's, or up to the last packet read.
	Base, Span uint64
	FlitBits   int     // flit width; packets of 8 and 72 bytes become ceil(8*bytes/FlitBits) flits
	Deps       bool    // honour the trace's dependencies
	Scale      float64 // trace cycles are multiplied by it (above 0)
	Watchdog   des.Time
	Energy     energy.Params // Model "" or energy.None prices nothing
	// Ideal replaces the network by one of zero latency and unbounded
	// bandwidth: every packet is delivered the cycle it is injected. It
	// checks the replay's own logic (and gives the trace's runtime with a
	// perfect network, the bound a real one is measured against).
	Ideal bool

	onRecord func(i int, inject, done des.Time) // for tests: every delivery, by trace index
}

// MaxScale bounds Replay.Scale: a trace of billions of cycles stretched
// further would leave the clock's range.
const MaxScale = 1000

// ReplayResult is what a replay measured, over the whole replay and per
// region of the trace. Cycles are the simulated network's.
type ReplayResult struct {
	RegionResult
	// LastInjection and LastDelivery are the cycles the last packet was
	// injected and delivered.
	LastInjection, LastDelivery des.Time
	Regions                     []RegionResult // per region of the trace replayed (none without regions)
	Cycles                      des.Time
	Events, Ticks, FlitHops     uint64
	WallSeconds                 float64
	Energy                      *energy.Breakdown
	Activity                    *energy.Activity
}

// RegionResult is one region's (or the whole replay's) figures. Runtime is
// the cycles from the end of the previous region (0 for the first) to the
// later of its last delivery and its recorded end, scaled: the regions'
// runtimes add up to the whole replay's. Slowdown is Runtime over
// Recorded (0 for a region that records no cycles).
type RegionResult struct {
	Region                      int // counted from 1; 0 for the whole replay
	Packets, Delivered          int
	ControlPackets, DataPackets int
	Flits                       int64
	Recorded, Runtime           des.Time
	Slowdown                    float64
	AvgLatency, P50, P95, P99   float64 // injection (handed to the NIU) to tail ejection
	AvgNetworkLatency           float64 // head leaving the NIU to tail ejection
	AvgHops                     float64
	// AvgDepWait is the mean cycles a packet was injected after its trace
	// cycle: the wait for its dependencies.
	AvgDepWait float64
	// OfferedRate is the flits over the recorded cycles, AcceptedRate over
	// the runtime, per node of the network.
	OfferedRate, AcceptedRate float64

	lat            latHist
	netSum, hopSum float64
	waitSum        float64
	end            des.Time // the region's end on the simulated clock
}

// PacketFlits is the flits a packet of b bytes takes at flitBits per flit.
func PacketFlits(b, flitBits int) int { return (8*b + flitBits - 1) / flitBits }

// Validate checks what the specs do not. Errors are *config.KeyError.
func (r *Replay) Validate() error {
	if err := r.Router.Validate(); err != nil {
		return err
	}
	if err := r.Endpoint.Validate(); err != nil {
		return err
	}
	bad := func(key string, v any, allowed string) error {
		return &config.KeyError{Key: key, Value: fmt.Sprint(v), Allowed: allowed}
	}
	switch {
	case r.Trace == nil:
		return bad("trace", "", "a Netrace trace")
	case r.Topo.Nodes() < r.Trace.Nodes:
		return bad("mesh", fmt.Sprintf("%d nodes", r.Topo.Nodes()), fmt.Sprintf("at least the trace's %d nodes", r.Trace.Nodes))
	case !(r.Scale > 0 && r.Scale <= MaxScale):
		return bad("trace-scale", r.Scale, fmt.Sprintf("above 0, up to %d", MaxScale))
	case r.FlitBits < 1:
		return bad("flit_bits", r.FlitBits, "1 or more")
	case PacketFlits(netrace.DataBytes, r.FlitBits) > r.Endpoint.QueueFlits:
		return bad("flit_bits", r.FlitBits, fmt.Sprintf("a width at which a %d-byte data packet (%d flits) fits niu_queue_flits = %d",
			netrace.DataBytes, PacketFlits(netrace.DataBytes, r.FlitBits), r.Endpoint.QueueFlits))
	case r.Watchdog < 1 || r.Watchdog > MaxPhase:
		return bad("watchdog_cycles", r.Watchdog, fmt.Sprintf("1..%d", MaxPhase))
	}
	if float64(r.Span)*r.Scale > MaxPhase*1000 {
		return bad("trace-scale", r.Scale, fmt.Sprintf("a scale at which the trace's %d cycles stay below %d", r.Span, MaxPhase*1000))
	}
	if r.energyOn() {
		return energy.Check(r.Energy, r.Topo, r.Router.VCs, r.Router.VCBuf, r.Router.Routing)
	}
	return nil
}

func (r *Replay) energyOn() bool { return r.Energy.Model != "" && r.Energy.Model != energy.None }

// at is trace cycle c on the simulated clock.
func (r *Replay) at(c uint64) des.Time {
	if c < r.Base {
		return 0
	}
	return des.Time(math.Round(float64(c-r.Base) * r.Scale))
}

// player is a replay in progress: the packets' state and the cursor over
// the trace's cycles.
type player struct {
	r      *Replay
	tr     *netrace.Trace
	eng    *des.Engine
	f      *endpoint.Fabric // nil with an ideal network
	flits  [2]int           // control, data packet lengths
	ready  []des.Time       // each packet's trace cycle, on the simulated clock
	waits  []int32          // dependencies not yet delivered
	reach  []bool           // the cursor has passed the packet's cycle
	inject []des.Time       // injection cycle, once injected
	// deps[depAt[i]:depAt[i+1]] are the indexes of the packets waiting
	// for packet i.
	deps     []int32
	depAt    []int32
	byFabric []int32 // trace index of each live fabric packet id
	next     int     // cursor: the next packet whose cycle has not come
	res      *ReplayResult
	queue    []int32 // ideal network: packets delivered, their dependents to release
	left     int     // packets not yet delivered
}

// Run replays the trace.
func (r *Replay) Run() (ReplayResult, error) {
	if err := r.Validate(); err != nil {
		return ReplayResult{}, err
	}
	start := time.Now()
	p := r.newPlayer()
	var model energy.Model
	var before energy.Activity
	if !r.Ideal {
		p.f = endpoint.NewFabric(p.eng, r.Topo, r.Router, r.Endpoint)
		p.eng.SetWatchdog(r.Watchdog, p.f.Describe)
		p.f.OnDeliver = p.delivered
		if r.energyOn() {
			model, _ = energy.Load(r.Energy) // checked by Validate
			before, _ = energy.Snapshot(p.f)
		}
	}
	if len(p.ready) > 0 {
		p.eng.Schedule(p.ready[0], p, 0)
	}
	if err := p.eng.Run(-1); err != nil {
		return *p.res, err
	}
	if p.f != nil && p.f.Err() != nil {
		return *p.res, p.f.Err()
	}
	if p.left > 0 {
		return *p.res, fmt.Errorf("replay ended at cycle %d with %d of %d packets undelivered", p.eng.Now(), p.left, len(p.ready))
	}
	res := p.res
	p.summarize()
	if model != nil {
		after, _ := energy.Snapshot(p.f)
		act, err := after.Sub(before)
		if err != nil {
			return *res, err
		}
		b, err := model.Energy(act)
		if err != nil {
			return *res, err
		}
		res.Energy, res.Activity = &b, &act
	}
	res.Cycles = p.eng.Now()
	res.Events, res.Ticks = p.eng.Events(), p.eng.Ticks()
	if p.f != nil {
		res.FlitHops = p.f.Net.Totals().Traversals
	}
	res.WallSeconds = time.Since(start).Seconds()
	return *res, nil
}

// newPlayer lays out the packets' state and their dependents by index.
func (r *Replay) newPlayer() *player {
	tr := r.Trace
	n := len(tr.Packets)
	p := &player{r: r, tr: tr, eng: des.New(), ready: make([]des.Time, n), waits: make([]int32, n),
		reach: make([]bool, n), inject: make([]des.Time, n), depAt: make([]int32, n+1), left: n,
		flits: [2]int{PacketFlits(netrace.ControlBytes, r.FlitBits), PacketFlits(netrace.DataBytes, r.FlitBits)}}
	// Deliveries react only by injecting at the delivering NIU's tick, as
	// request-reply traffic does: visiting in id order changes nothing.
	p.eng.TickByID()
	for i := range tr.Packets {
		p.ready[i] = r.at(tr.Packets[i].Cycle)
		p.depAt[i] = int32(len(p.deps))
		if !r.Deps {
			continue
		}
		// Dependents are later packets (the reader checks it); one
		// outside the part read (a packet limit, a region's end) is not
		// waited for.
		for _, id := range tr.Deps(i) {
			j, ok := slices.BinarySearchFunc(tr.Packets[i+1:], id, func(q netrace.Packet, id uint32) int { return cmpU32(q.ID, id) })
			if ok {
				p.deps = append(p.deps, int32(i+1+j))
				p.waits[i+1+j]++
			}
		}
	}
	p.depAt[n] = int32(len(p.deps))
	p.res = &ReplayResult{Regions: make([]RegionResult, len(tr.Regions))}
	for k := range p.res.Regions {
		p.res.Regions[k].Region = k + 1
	}
	return p
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Handle is the cursor: the packets whose trace cycle is now are injected,
// or left to wait for their dependencies; it then waits for the next cycle
// that has packets.
func (p *player) Handle(now des.Time, _ int64) {
	for p.next < len(p.ready) && p.ready[p.next] <= now {
		i := p.next
		p.next++
		p.reach[i] = true
		if p.waits[i] == 0 {
			p.send(i, now)
		}
	}
	if p.next < len(p.ready) {
		p.eng.Schedule(p.ready[p.next], p, 0)
	}
}

// send injects packet i at now.
func (p *player) send(i int, now des.Time) {
	p.inject[i] = now
	pk := &p.tr.Packets[i]
	flits := p.flits[0]
	if pk.Bytes() == netrace.DataBytes {
		flits = p.flits[1]
	}
	if p.f == nil {
		// An ideal network delivers at once; the dependents released are
		// injected by the loop below, not recursively, so that long
		// chains cannot exhaust the stack.
		p.queue = append(p.queue, int32(i))
		if len(p.queue) > 1 {
			return
		}
		for len(p.queue) > 0 {
			j := int(p.queue[0])
			p.queue = p.queue[1:]
			p.record(j, now, now, 0)
			p.release(j, now)
		}
		p.queue = p.queue[:0]
		return
	}
	fp := p.f.SendSynthetic(int(pk.Src), int(pk.Dst), flits, now)
	if int(fp.ID) >= len(p.byFabric) {
		p.byFabric = slices.Grow(p.byFabric, int(fp.ID)+1-len(p.byFabric))[:fp.ID+1]
	}
	p.byFabric[fp.ID] = int32(i)
}

// delivered is the fabric's OnDeliver: it records the packet and releases
// the packets waiting for it.
func (p *player) delivered(fp *endpoint.Packet, now des.Time) {
	// Read before sending anything: a send may move the packet table.
	i, sent, hops := int(p.byFabric[fp.ID]), fp.Sent, fp.Hops
	p.record(i, now, sent, int(hops))
	p.release(i, now)
}

// release counts packet i's delivery against the packets waiting for it,
// injecting those whose cycle has come and that wait for nothing more.
func (p *player) release(i int, now des.Time) {
	for _, j := range p.deps[p.depAt[i]:p.depAt[i+1]] {
		p.waits[j]--
		if p.waits[j] == 0 && p.reach[j] {
			p.send(int(j), now)
		}
	}
}

// record counts packet i, injected at p.inject[i] and delivered at done
// (its head left the NIU at sent), in the whole replay and its region.
func (p *player) record(i int, done, sent des.Time, hops int) {
	p.left--
	if p.r.onRecord != nil {
		p.r.onRecord(i, p.inject[i], done)
	}
	pk := &p.tr.Packets[i]
	res := p.res
	res.LastDelivery = max(res.LastDelivery, done)
	res.LastInjection = max(res.LastInjection, p.inject[i])
	flits := p.flits[0]
	if pk.Bytes() == netrace.DataBytes {
		flits = p.flits[1]
	}
	res.add(flits, done, sent, p.inject[i], p.ready[i], hops)
	if pk.Region >= 0 && pk.Region < len(res.Regions) {
		res.Regions[pk.Region].add(flits, done, sent, p.inject[i], p.ready[i], hops)
	}
}

// add counts a delivered packet of flits, injected at inject (its trace
// cycle on the simulated clock ready), its head out at sent, its tail in
// at done after hops.
func (g *RegionResult) add(flits int, done, sent, inject, ready des.Time, hops int) {
	g.Delivered++
	g.Flits += int64(flits)
	g.lat.add(done - inject)
	g.netSum += float64(done - sent)
	g.hopSum += float64(hops)
	g.waitSum += float64(inject - ready)
	g.end = max(g.end, done)
}
