package router

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
)

// diffPacket is one packet of the differential test's traffic: released
// into its source NI's queue at cycle release.
type diffPacket struct {
	id       int32
	src, dst int
	length   int
	vc       int8
	kind     uint8
	release  des.Time
}

// flits are the packet's flits as its NI injects them.
func (p diffPacket) flits(topo mesh.Topology) []Flit {
	fs := make([]Flit, p.length)
	for i := range fs {
		fs[i] = Flit{Packet: p.id, Word: uint32(p.id)<<8 | uint32(i), Index: int32(i), VC: p.vc, Head: i == 0, Tail: i == p.length-1}
	}
	fs[0].Kind = p.kind
	fs[0].SetOffsets(topo.Offsets(p.src, p.dst))
	return fs
}

// diffNI drives a real router's local port as an NIU does: it sends with
// InjectSlot (into the router's input VCs directly when the spec allows),
// takes its injection credits from the count Bind gives it (counted in
// place when the spec allows, with Wait set while it sleeps for one) or
// from InjectCredit, and returns ejection credits with ReturnEjectCredit.
// It behaves as refNI does, but sleeps whenever it can.
type diffNI struct {
	node    int
	lp      LocalPort
	ic      *InjectCredits
	id      int32
	width   int
	slow    des.Time
	topo    mesh.Topology
	pending []diffPacket
	queue   []Flit
	owed    []int8
	got     []arrival
}

func (n *diffNI) Tick(now des.Time) des.Time {
	n.ic.TickedAt = now
	for n.lp.InjectCredit.Ready(now) {
		n.ic.Count[n.lp.InjectCredit.Recv()]++
	}
	ejectAndCredit(&n.lp, now, n.slow, &n.got, &n.owed)
	for len(n.pending) > 0 && n.pending[0].release <= now {
		n.queue = append(n.queue, n.pending[0].flits(n.topo)...)
		n.pending = n.pending[1:]
	}
	for sent := 0; sent < n.width && len(n.queue) > 0 && n.ic.Count[n.queue[0].VC] > 0; sent++ {
		f := n.queue[0]
		n.queue = n.queue[1:]
		n.ic.Count[f.VC]--
		*n.lp.InjectSlot(now, f.VC) = f
	}
	n.ic.Fold()
	blocked := len(n.queue) > 0 && n.ic.Count[n.queue[0].VC] == 0
	n.ic.Wait = blocked
	if len(n.owed) > 0 || len(n.queue) > 0 && !blocked {
		return now + 1
	}
	next := min(n.lp.Eject.Next(), n.lp.InjectCredit.Next())
	if len(n.pending) > 0 {
		next = min(next, n.pending[0].release)
	}
	return next
}

// diffRun is what one run of the real network shows: every switch
// traversal, every NI's deliveries, every router's counters and flits per
// output port and VC.
type diffRun struct {
	trace []switched
	got   [][]arrival
	stats []Stats
	sent  [][]uint64 // per router, port*VCs+vc
}

// order is how the real engine visits tickers within a cycle, or, for
// "general", the routers with every fast path off (Router.general, and
// injected flits on their channel).
var diffOrders = []string{"default", "by-id", "shuffled", "general"}

// runReal runs the traffic on routers Build made. A panic (a buffer
// overflow, two flits on a one-flit link in a cycle) is returned as an
// error.
func runReal(topo mesh.Topology, spec Spec, packets []diffPacket, slow []des.Time, order string) (res diffRun, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	eng := des.New()
	switch order {
	case "by-id":
		eng.TickByID()
	case "shuffled":
		eng.ShuffleTicks(uint64(len(packets)) + 1)
	}
	net := Build(eng, topo, spec)
	for _, r := range net.Routers {
		if order == "general" {
			r.general, r.inj.on = true, false
		}
	}
	nis := make([]*diffNI, len(net.Local))
	for i, lp := range net.Local {
		ni := &diffNI{node: i, lp: lp, width: spec.InjectWidth, slow: slow[i], topo: topo}
		ni.id = eng.Register(ni)
		ni.ic = lp.Bind(ni.id)
		for v := range spec.VCs {
			ni.ic.Count[v] = int16(spec.VCBuf)
		}
		lp.InjectCredit.SetWake(ni.id)
		lp.Eject.SetWake(ni.id)
		nis[i] = ni
	}
	for _, p := range packets {
		ni := nis[p.src]
		if len(ni.pending) == 0 {
			eng.Wake(ni.id, p.release)
		}
		ni.pending = append(ni.pending, p)
	}
	net.SetTrace(func(node int, in, out mesh.Port, f Flit) {
		res.trace = append(res.trace, switched{eng.Now(), node, in, out, f})
	})
	eng.SetWatchdog(2000, nil)
	if err := eng.Run(-1); err != nil {
		return res, err
	}
	if err := net.CheckQuiescent(); err != nil {
		return res, err
	}
	// Within a cycle the routers tick in an order that depends on the
	// engine; each router's traversals keep the order it made them.
	slices.SortStableFunc(res.trace, func(a, b switched) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.node, b.node))
	})
	for i, r := range net.Routers {
		res.got = append(res.got, nis[i].got)
		res.stats = append(res.stats, r.Stats())
		var sent []uint64
		for p := range mesh.NumPorts {
			for v := range spec.VCs {
				sent = append(sent, r.LinkVCFlits(p, v))
			}
		}
		res.sent = append(res.sent, sent)
	}
	return res, nil
}

// runReference runs the same traffic on the reference network.
func runReference(topo mesh.Topology, spec Spec, packets []diffPacket, slow []des.Time) (diffRun, error) {
	n := newRefNet(topo, spec, packets, slow)
	if err := n.run(100000); err != nil {
		return diffRun{}, err
	}
	res := diffRun{trace: n.trace}
	slices.SortStableFunc(res.trace, func(a, b switched) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.node, b.node))
	})
	for i, r := range n.routers {
		res.got = append(res.got, n.nis[i].got)
		s := r.stats
		var sent []uint64
		for p := range mesh.NumPorts {
			for _, c := range r.out[p].sent {
				s.Traversals += c
				sent = append(sent, c)
			}
		}
		res.stats = append(res.stats, s)
		res.sent = append(res.sent, sent)
	}
	return res, nil
}

// compare returns the first difference between the real run and the
// reference, or "".
func (real diffRun) compare(ref diffRun, vcs int) string {
	for i := range min(len(real.trace), len(ref.trace)) {
		if real.trace[i] != ref.trace[i] {
			return fmt.Sprintf("switch traversal %d: real %+v, reference %+v", i, real.trace[i], ref.trace[i])
		}
	}
	if len(real.trace) != len(ref.trace) {
		return fmt.Sprintf("%d switch traversals, reference %d", len(real.trace), len(ref.trace))
	}
	for node := range ref.got {
		a, b := real.got[node], ref.got[node]
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				return fmt.Sprintf("node %d delivery %d: real %+v, reference %+v", node, i, a[i], b[i])
			}
		}
		if len(a) != len(b) {
			return fmt.Sprintf("node %d: %d flits delivered, reference %d", node, len(a), len(b))
		}
		if real.stats[node] != ref.stats[node] {
			return fmt.Sprintf("node %d counters: real %+v, reference %+v", node, real.stats[node], ref.stats[node])
		}
		for j, c := range ref.sent[node] {
			if real.sent[node][j] != c {
				return fmt.Sprintf("node %d out %v vc%d: %d flits, reference %d", node, mesh.Port(j/vcs), j%vcs, real.sent[node][j], c)
			}
		}
	}
	return ""
}

// transports names the ways flits and credits travel under spec, as Build
// and LocalPort choose them, so that the test can show it covered each.
func transports(spec Spec) []string {
	hop := spec.SwitchAllocDelay + spec.SwitchDelay
	var ts []string
	if max(spec.LinkWidth, 1) == 1 && hop+spec.LinkLatency < linkSlots {
		ts = append(ts, "ring link")
	} else {
		ts = append(ts, "link Pipe")
	}
	if spec.CreditDelay < creditSlots {
		ts = append(ts, "credit ring")
	} else {
		ts = append(ts, "credit Pipe")
	}
	if spec.CreditDelay == 1 {
		ts = append(ts, "credits in place")
		if spec.InjectLatency < linkSlots && spec.InjectWidth <= maxDirectInject {
			ts = append(ts, "direct injection")
		} else {
			ts = append(ts, "injection Pipe")
		}
	} else {
		ts = append(ts, "injection Pipe", "credit Pipes to and from the NI")
	}
	if max(spec.LinkWidth, 1) > 1 {
		ts = append(ts, "wide links")
	}
	if hop+spec.LinkLatency >= dueSlots || spec.CreditDelay >= dueSlots {
		ts = append(ts, "long channels")
	}
	if slices.Contains(ts, "ring link") && slices.Contains(ts, "direct injection") {
		// The default spec's case: credit rings and credits in place too.
		ts = append(ts, "every fast path at once")
	}
	return ts
}

// randomSpec draws a spec within Spec.Validate's ranges, kept small so
// that runs are short, and weighted so that every transport is drawn.
func randomSpec(rng *rand.Rand, classes bool) Spec {
	pick := func(xs ...int) int { return xs[rng.IntN(len(xs))] }
	s := Spec{
		VCs:              pick(1, 2, 3, 4),
		VCBuf:            1 + rng.IntN(6),
		RouteDelay:       des.Time(pick(0, 1, 1, 2)),
		VCAllocDelay:     des.Time(pick(0, 1, 1, 2)),
		SwitchAllocDelay: des.Time(pick(0, 0, 1, 2)),
		SwitchDelay:      des.Time(pick(0, 1, 1, 2)),
		LinkLatency:      des.Time(pick(1, 1, 1, 2, 4)),
		CreditDelay:      des.Time(pick(1, 1, 1, 2, 3, 4, 5)),
		LinkWidth:        pick(1, 1, 1, 2, 3, 4),
		InjectWidth:      pick(1, 2, 2, 3, 4, 5),
		EjectWidth:       pick(1, 2, 2, 4),
		InjectLatency:    des.Time(pick(1, 1, 2, 3, 4)),
		EjectLatency:     des.Time(pick(1, 1, 2, 3)),
		VCAlloc:          []string{VCAllocRoundRobin, VCAllocLowest}[rng.IntN(2)],
	}
	if classes {
		s.VCs = pick(2, 4)
	}
	// BookSim's allocators in a third of the specs, with the widths of one
	// flit they need.
	s.Allocator = []string{AllocGreedy, AllocGreedy, AllocISLIP, AllocSeparable}[rng.IntN(4)]
	// On a mesh, adaptive routing in half the specs (fully adaptive needs
	// a VC beside the escape VC).
	if !classes {
		s.Routing = []string{mesh.RoutingXY, mesh.RoutingXY, mesh.RoutingWestFirst, mesh.RoutingAdaptive}[rng.IntN(4)]
		if s.Routing == mesh.RoutingAdaptive && s.VCs < 2 {
			s.Routing = mesh.RoutingWestFirst
		}
	}
	if s.Allocator != AllocGreedy {
		s.LinkWidth, s.InjectWidth, s.EjectWidth = 1, 1, 1
	}
	return s
}

// randomTopology is a mesh up to 4x4, a ring, bidirectional or not, of
// 2 to 6 nodes, or a torus from 2x1 to 4x4 (the topologies with VC
// classes share a third of the draws).
func randomTopology(rng *rand.Rand) mesh.Topology {
	if rng.IntN(3) == 0 {
		if rng.IntN(3) == 0 {
			tr, _ := mesh.NewTorus(2+rng.IntN(3), 1+rng.IntN(4))
			return tr
		}
		r, _ := mesh.NewRing(2+rng.IntN(5), rng.IntN(2) == 0)
		return r
	}
	m, _ := mesh.New(1+rng.IntN(4), 1+rng.IntN(4))
	return m
}

// randomPackets draws each node's packets: random destinations (itself
// included), lengths, VCs and release cycles, some ordered
// (KindOrdered), in each source's release order; and which NIs return
// their ejection credits slowly.
func randomPackets(rng *rand.Rand, topo mesh.Topology, spec Spec) ([]diffPacket, []des.Time) {
	n := topo.Nodes()
	var ps []diffPacket
	slow := make([]des.Time, n)
	for src := range n {
		slow[src] = []des.Time{0, 0, 0, 2, 3}[rng.IntN(5)]
		var own []diffPacket
		for range rng.IntN(9) {
			kind := KindSynth
			if rng.IntN(4) == 0 {
				kind |= KindOrdered
			}
			own = append(own, diffPacket{
				src: src, dst: rng.IntN(n), length: 1 + rng.IntN(10),
				vc: int8(rng.IntN(spec.VCs)), kind: kind, release: des.Time(rng.IntN(60)),
			})
		}
		slices.SortStableFunc(own, func(a, b diffPacket) int { return cmp.Compare(a.release, b.release) })
		ps = append(ps, own...)
	}
	for i := range ps {
		ps[i].id = int32(i)
	}
	return ps, slow
}

// The real router, fast paths and all, does what the reference router
// (reference_test.go) does, over random specs within Spec.Validate's
// ranges, random meshes and rings and random traffic: every flit crosses
// every switch in the same cycle, every NI receives the same flits in the
// same cycles, and every router's stall counters and flits per output
// port and VC agree. Each case runs under every order the engine can visit
// tickers in a cycle, and with the fast paths off (Router.general). The
// specs drawn cover every transport (ring links and link Pipes, credit
// rings and Pipes, credits in place, direct injection and its Pipe, wide
// links, channels at or beyond dueSlots); the test fails if one is missed.
func TestRouterMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 5))
	cases := 200
	if testing.Short() {
		cases = 50
	}
	covered := map[string]int{}
	var total Stats
	for c := range cases {
		topo := randomTopology(rng)
		_, classes := topo.(mesh.ClassRouter)
		spec := randomSpec(rng, classes)
		if err := spec.Validate(); err != nil {
			t.Fatal(err)
		}
		packets, slow := randomPackets(rng, topo, spec)
		ts := transports(spec)
		covered[strings.Fields(topo.Name())[0]]++
		for _, tr := range ts {
			covered[tr]++
		}
		t.Run(fmt.Sprintf("case=%d", c), func(t *testing.T) {
			ref := checkAgainstReference(t, topo, spec, packets, slow)
			for _, s := range ref.stats {
				total.Traversals += s.Traversals
				total.VCStalls += s.VCStalls
				total.SwitchStall += s.SwitchStall
				total.CreditStall += s.CreditStall
			}
		})
	}
	// The counters compared must have counted something.
	if total.VCStalls == 0 || total.SwitchStall == 0 || total.CreditStall == 0 {
		t.Errorf("the traffic drawn never stalls a router: %+v", total)
	}
	for _, tr := range []string{"mesh", "ring", "ring_uni", "torus", "every fast path at once", "ring link", "link Pipe", "credit ring", "credit Pipe", "credits in place", "direct injection", "injection Pipe", "credit Pipes to and from the NI", "wide links", "long channels"} {
		if covered[tr] == 0 {
			t.Errorf("no spec drawn uses %s", tr)
		}
	}
	t.Logf("specs per topology and transport: %v; reference counters summed: %+v", covered, total)
}

// checkAgainstReference runs the traffic on the reference network and on the
// real one in every order of diffOrders, and reports each difference with
// the spec and the transports it selects. It returns the reference's run.
func checkAgainstReference(t *testing.T, topo mesh.Topology, spec Spec, packets []diffPacket, slow []des.Time) diffRun {
	t.Helper()
	flits := 0
	for _, p := range packets {
		flits += p.length
	}
	ref, err := runReference(topo, spec, packets, slow)
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	if len(ref.trace) < flits {
		t.Fatalf("the reference switched %d flits of %d", len(ref.trace), flits)
	}
	for _, order := range diffOrders {
		real, err := runReal(topo, spec, packets, slow, order)
		if err == nil {
			if d := real.compare(ref, spec.VCs); d != "" {
				err = fmt.Errorf("%s", d)
			}
		}
		if err != nil {
			t.Errorf("%s, %d packets (%d flits), %s order: %v\nspec %+v (%s)", topo.Name(), len(packets), flits, order, err, spec, strings.Join(transports(spec), ", "))
		}
	}
	return ref
}

// The presets (every fast path at once: ring links, credit rings, credits
// in place, direct injection) under heavier traffic on a 4x4 mesh, a ring
// of 6 and a 3x4 torus, with two and four VCs and short and deep buffers.
func TestPresetsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 6))
	m, _ := mesh.New(4, 4)
	ring, _ := mesh.NewRing(6, false)
	tr, _ := mesh.NewTorus(3, 4)
	for _, name := range PresetNames {
		for _, topo := range []mesh.Topology{m, ring, tr} {
			for _, vcs := range []int{2, 4} {
				for _, buf := range []int{2, 8} {
					spec, err := Preset(name)
					if err != nil {
						t.Fatal(err)
					}
					spec.VCs, spec.VCBuf = vcs, buf
					packets, slow := randomPackets(rng, topo, spec)
					t.Run(fmt.Sprintf("%s/%s/vcs=%d/buf=%d", name, strings.Fields(topo.Name())[0], vcs, buf), func(t *testing.T) {
						checkAgainstReference(t, topo, spec, packets, slow)
					})
				}
			}
		}
	}
}
