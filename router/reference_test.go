package router

import (
	"fmt"

	"nocsim/des"
	"nocsim/mesh"
)

// The reference router: the router's semantics written plainly, for the
// differential test (differential_test.go) to hold the real one against.
// Every flit and every credit goes through a plain channel (refChan), one
// allocator serves every spec, and a network steps every NI and router in
// every cycle. None of the real router's fast paths is here: no state
// masks, no slot rings, no credits counted in place, no direct injection,
// no lone-VC or one-request switch paths, no sleeping. It shares with the
// real router only the types it exchanges (Flit, Spec, Stats, the VC
// states' names) and the topology's routing function.
//
// The timing it states is the real router's contract:
//   - a flit a router sends at cycle t reaches the next router at
//     t + switch_alloc_delay + switch_delay + link_latency, the NI at
//     t + switch_alloc_delay + switch_delay + eject_latency; a flit the NI
//     sends at t reaches its router at t + inject_latency;
//   - every credit (router to router, router to NI, NI to router) sent at t
//     is usable from t + credit_delay;
//   - a router's cycle receives what has arrived, routes (a head becomes
//     ready for VC allocation route_delay cycles after it is routed), then
//     allocates VCs (ready for the switch vc_alloc_delay cycles after the
//     grant), then allocates the switch and sends.
//
// Every channel's delay is at least one cycle (Spec.Validate: link, eject,
// inject and credit delays are at least 1), so a cycle of one component
// reads nothing another writes in the same cycle: the network steps them
// in any order.

// refChan is a channel: items with their arrival cycles, in the order sent.
// Every sender of one channel uses one delay, so arrivals are in order.
type refChan[T any] struct{ q []refItem[T] }

type refItem[T any] struct {
	at des.Time
	v  T
}

func (c *refChan[T]) send(at des.Time, v T) { c.q = append(c.q, refItem[T]{at, v}) }

// recv takes the oldest item if it has arrived by cycle now.
func (c *refChan[T]) recv(now des.Time) (T, bool) {
	if len(c.q) == 0 || c.q[0].at > now {
		var zero T
		return zero, false
	}
	v := c.q[0].v
	c.q = c.q[1:]
	return v, true
}

// refVC is one input virtual channel.
type refVC struct {
	buf    []Flit // buffered flits, front first
	state  uint8  // vcIdle, vcRouting, vcWaitVC, vcActive
	out    mesh.Port
	outVC  int
	ready  des.Time // cycle from which the current stage may proceed
	lo, hi int      // output VCs the head may take: lo <= c < hi (its class)
	want   int      // the output VC an ordered head must get, else -1
	adapt  bool     // a routed head with a choice of port (refChoose)
}

// refIn is one input port.
type refIn struct {
	vcs      []refVC
	rr       int // VC first in line for the switch
	width    int // flits it may put through the switch per cycle
	flits    refChan[Flit]
	creditTo *refChan[int] // the sender's credit channel; nil on an edge
}

// refOut is one output port.
type refOut struct {
	credit           []int  // free slots downstream per VC
	held             []bool // output VC has an owner
	vaRR, vcRR, saRR int    // VC allocation (input VC, output VC) and switch pointers
	width            int
	credits          refChan[int]
	flitsTo          *refChan[Flit] // downstream input or NI; nil on an edge
	lat              des.Time       // from the switch to the arrival downstream
	sent             []uint64       // flits sent per output VC
}

type refRouter struct {
	net   *refNet
	node  int
	in    [mesh.NumPorts]refIn
	out   [mesh.NumPorts]refOut
	stats Stats // stall counters; traversals are summed from out[].sent
	m     refMatch
}

// refNI injects released packets' flits in order while it has credits, up
// to its width per cycle, and takes every flit that arrives, returning its
// credit at once or, with slow set, one credit in every slow-th cycle.
type refNI struct {
	node       int
	width      int
	slow       des.Time
	credit     []int
	injCredits refChan[int]
	eject      refChan[Flit]
	pending    []diffPacket // not yet released, by release cycle
	queue      []Flit
	owed       []int
	got        []arrival
}

type refNet struct {
	spec    Spec
	topo    mesh.Topology
	routers []*refRouter
	nis     []*refNI
	trace   []switched
	err     error
}

func (n *refNet) fail(format string, args ...any) {
	if n.err == nil {
		n.err = fmt.Errorf(format, args...)
	}
}

// newRefNet wires a router and an NI per node, and a link each way between
// neighbours: output p of node i feeds input p.Opposite() of its neighbour.
func newRefNet(topo mesh.Topology, spec Spec, packets []diffPacket, slow []des.Time) *refNet {
	n := &refNet{spec: spec, topo: topo}
	v := spec.VCs
	hop := spec.SwitchAllocDelay + spec.SwitchDelay
	for i := range topo.Nodes() {
		r := &refRouter{net: n, node: i}
		for p := range mesh.NumPorts {
			r.in[p].vcs = make([]refVC, v)
			r.in[p].width = max(spec.LinkWidth, 1)
			op := &r.out[p]
			op.width = max(spec.LinkWidth, 1)
			op.credit = make([]int, v)
			for c := range op.credit {
				op.credit[c] = spec.VCBuf
			}
			op.held = make([]bool, v)
			op.sent = make([]uint64, v)
		}
		r.in[mesh.Local].width = spec.InjectWidth
		r.out[mesh.Local].width = spec.EjectWidth
		n.routers = append(n.routers, r)
		ni := &refNI{node: i, width: spec.InjectWidth, slow: slow[i], credit: make([]int, v)}
		for c := range ni.credit {
			ni.credit[c] = spec.VCBuf
		}
		n.nis = append(n.nis, ni)
	}
	for i, r := range n.routers {
		for p := mesh.North; p < mesh.NumPorts; p++ {
			j, ok := topo.Neighbor(i, p)
			if !ok {
				continue
			}
			d := n.routers[j]
			q := p.Opposite()
			r.out[p].flitsTo, r.out[p].lat = &d.in[q].flits, hop+spec.LinkLatency
			d.in[q].creditTo = &r.out[p].credits
		}
		ni := n.nis[i]
		r.out[mesh.Local].flitsTo, r.out[mesh.Local].lat = &ni.eject, hop+spec.EjectLatency
		r.in[mesh.Local].creditTo = &ni.injCredits
	}
	for _, p := range packets {
		n.nis[p.src].pending = append(n.nis[p.src].pending, p)
	}
	return n
}

// run steps the network until every packet is delivered and nothing is in
// flight, or limit cycles pass.
func (n *refNet) run(limit des.Time) error {
	for t := des.Time(0); t < limit; t++ {
		for _, ni := range n.nis {
			ni.step(n, t)
		}
		for _, r := range n.routers {
			r.step(t)
		}
		if n.err != nil {
			return fmt.Errorf("cycle %d: %w", t, n.err)
		}
		if n.empty() {
			return nil
		}
	}
	return fmt.Errorf("the reference network still holds flits after %d cycles", limit)
}

func (n *refNet) empty() bool {
	for i, ni := range n.nis {
		if len(ni.pending)+len(ni.queue)+len(ni.owed)+len(ni.injCredits.q)+len(ni.eject.q) > 0 {
			return false
		}
		r := n.routers[i]
		for p := range mesh.NumPorts {
			if len(r.in[p].flits.q)+len(r.out[p].credits.q) > 0 {
				return false
			}
			for _, vc := range r.in[p].vcs {
				if len(vc.buf) > 0 {
					return false
				}
			}
		}
	}
	return true
}

func (ni *refNI) step(n *refNet, t des.Time) {
	r := n.routers[ni.node]
	for c, ok := ni.injCredits.recv(t); ok; c, ok = ni.injCredits.recv(t) {
		ni.credit[c]++
	}
	for f, ok := ni.eject.recv(t); ok; f, ok = ni.eject.recv(t) {
		ni.got = append(ni.got, arrival{t, f})
		if ni.slow > 0 {
			ni.owed = append(ni.owed, int(f.VC))
		} else {
			r.out[mesh.Local].credits.send(t+n.spec.CreditDelay, int(f.VC))
		}
	}
	if len(ni.owed) > 0 && t%ni.slow == 0 {
		r.out[mesh.Local].credits.send(t+n.spec.CreditDelay, ni.owed[0])
		ni.owed = ni.owed[1:]
	}
	for len(ni.pending) > 0 && ni.pending[0].release <= t {
		ni.queue = append(ni.queue, ni.pending[0].flits(n.topo)...)
		ni.pending = ni.pending[1:]
	}
	for sent := 0; sent < ni.width && len(ni.queue) > 0 && ni.credit[ni.queue[0].VC] > 0; sent++ {
		f := ni.queue[0]
		ni.queue = ni.queue[1:]
		ni.credit[f.VC]--
		r.in[mesh.Local].flits.send(t+n.spec.InjectLatency, f)
	}
}

// step is one router cycle: receive, route, allocate VCs, allocate the
// switch and send.
func (r *refRouter) step(t des.Time) {
	r.receive(t)
	r.route(t)
	r.refChoose()
	if a := r.net.spec.Allocator; a == AllocISLIP || a == AllocSeparable {
		r.allocVCsMatched(t)
		r.refFix()
		r.allocSwitchMatched(t)
		return
	}
	r.allocVCs(t)
	r.refFix()
	r.allocSwitch(t)
}

func (r *refRouter) vc(k int) *refVC {
	v := r.net.spec.VCs
	return &r.in[k/v].vcs[k%v]
}

func (r *refRouter) receive(t des.Time) {
	for p := range mesh.NumPorts {
		ip := &r.in[p]
		for f, ok := ip.flits.recv(t); ok; f, ok = ip.flits.recv(t) {
			vc := &ip.vcs[f.VC]
			if len(vc.buf) == r.net.spec.VCBuf {
				r.net.fail("reference node %d in %v vc%d: buffer overflow", r.node, p, f.VC)
			}
			vc.buf = append(vc.buf, f)
		}
		op := &r.out[p]
		for c, ok := op.credits.recv(t); ok; c, ok = op.credits.recv(t) {
			if op.credit[c]++; op.credit[c] > r.net.spec.VCBuf {
				r.net.fail("reference node %d out %v vc%d: more credits than slots", r.node, p, c)
			}
		}
	}
}

// route computes the output port of every idle VC with a head at its
// front, and moves routed heads whose route stage is over to VC
// allocation. An ordered head must keep its VC index; on a topology with
// VC classes (a ring's or torus's datelines) a head may take only its
// class's half.
func (r *refRouter) route(t des.Time) {
	v := r.net.spec.VCs
	for k := range int(mesh.NumPorts) * v {
		vc := r.vc(k)
		if vc.state == vcIdle && len(vc.buf) > 0 {
			f := &vc.buf[0]
			if !f.Head {
				r.net.fail("reference node %d: body flit of packet %d without a head", r.node, f.Packet)
				return
			}
			vc.lo, vc.hi, vc.want = 0, v, -1
			if f.Kind&KindOrdered != 0 {
				vc.want = k % v
			}
			dx, dy := f.Offsets()
			var port mesh.Port
			if cr, ok := r.net.topo.(mesh.ClassRouter); ok {
				var class int
				port, dx, dy, class = cr.RouteClass(dx, dy)
				if class >= 0 {
					half := v / 2
					vc.lo, vc.hi = class*half, class*half+half
					if vc.want >= 0 {
						vc.want = vc.lo + vc.want%half
					}
				}
			} else if r.adaptive() {
				port, dx, dy = r.refRouteAdaptive(k, vc, dx, dy)
			} else {
				port, dx, dy = r.net.topo.Route(dx, dy)
			}
			f.SetOffsets(dx, dy)
			vc.out, vc.state, vc.ready = port, vcRouting, t+r.net.spec.RouteDelay
		}
		if vc.state == vcRouting && t >= vc.ready {
			vc.state = vcWaitVC
		}
	}
}

// allocVCs grants free output VCs, output by output. An output's requests
// are taken round-robin: from the input VC at its pointer up, then from
// the lowest, in an order fixed at the start of the cycle; the pointer
// moves past each grant. A head gets its ordered VC if free, else the
// first free VC of its class from the output's VC pointer round
// (round_robin) or the lowest free one (lowest).
func (r *refRouter) allocVCs(t des.Time) {
	v := r.net.spec.VCs
	total := int(mesh.NumPorts) * v
	for o := range mesh.NumPorts {
		op := &r.out[o]
		var reqs []int
		for k := range total {
			if vc := r.vc(k); vc.state == vcWaitVC && vc.out == o {
				reqs = append(reqs, k)
			}
		}
		if len(reqs) == 0 {
			continue
		}
		var order []int
		for _, k := range reqs {
			if k >= op.vaRR {
				order = append(order, k)
			}
		}
		for _, k := range reqs {
			if k < op.vaRR {
				order = append(order, k)
			}
		}
		for _, k := range order {
			vc := r.vc(k)
			free := func(c int) bool { return !op.held[c] && c >= vc.lo && c < vc.hi }
			grant := -1
			switch {
			case vc.want >= 0:
				if free(vc.want) {
					grant = vc.want
				}
			case r.net.spec.VCAlloc == VCAllocLowest:
				for c := range v {
					if free(c) {
						grant = c
						break
					}
				}
			default:
				for j := range v {
					if c := (op.vcRR + j) % v; free(c) {
						grant = c
						break
					}
				}
			}
			if grant < 0 {
				r.stats.VCStalls++
				continue
			}
			op.held[grant] = true
			op.vcRR = (grant + 1) % v
			vc.outVC, vc.state, vc.ready = grant, vcActive, t+r.net.spec.VCAllocDelay
			r.stats.VCAllocs++
			op.vaRR = (k + 1) % total
		}
	}
}

// allocSwitch is the separable input-first allocator. Each input port, from
// its VC pointer round, lets each VC that holds an output VC, holds flits
// and is past its VC allocation stage ask for up to link_flits_per_cycle
// flits of its packet, as many as the port's width (less what it has
// given) and the output VC's credits allow, one request per flit (a VC
// without a credit counts a credit stall). Each output then grants up to
// its width of its requests, kept in the order they were made, from the
// first at or after its pointer round; the rest count switch stalls.
func (r *refRouter) allocSwitch(t des.Time) {
	v := r.net.spec.VCs
	burst := max(r.net.spec.LinkWidth, 1)
	var reqs [mesh.NumPorts][]int
	for p := range mesh.NumPorts {
		ip := &r.in[p]
		picked := 0
		for j := 0; j < v && picked < ip.width; j++ {
			i := (ip.rr + j) % v
			vc := &ip.vcs[i]
			if vc.state != vcActive || len(vc.buf) == 0 || t < vc.ready {
				continue
			}
			c := r.out[vc.out].credit[vc.outVC]
			if c == 0 {
				r.stats.CreditStall++
				continue
			}
			limit := min(burst, ip.width-picked, c, len(vc.buf))
			n := 0
			for n < limit {
				n++
				if vc.buf[n-1].Tail {
					break
				}
			}
			for range n {
				reqs[vc.out] = append(reqs[vc.out], int(p)*v+i)
			}
			picked += n
		}
	}
	total := int(mesh.NumPorts) * v
	for o := range mesh.NumPorts {
		q := reqs[o]
		op := &r.out[o]
		start := 0
		for start < len(q) && q[start] < op.saRR {
			start++
		}
		if start == len(q) {
			start = 0
		}
		for j := range len(q) {
			if j == op.width {
				r.stats.SwitchStall += uint64(len(q) - j)
				break
			}
			k := q[(start+j)%len(q)]
			r.send(t, k, o)
			op.saRR = (k + 1) % total
		}
	}
}

// send moves the front flit of input VC k through the switch to output o:
// its credit goes back upstream, the flit on with its output VC.
func (r *refRouter) send(t des.Time, k int, o mesh.Port) {
	v := r.net.spec.VCs
	p, i := mesh.Port(k/v), k%v
	ip, vc, op := &r.in[p], r.vc(k), &r.out[o]
	f := vc.buf[0]
	vc.buf = vc.buf[1:]
	r.net.trace = append(r.net.trace, switched{t, r.node, p, o, f})
	ip.rr = (i + 1) % v
	ip.creditTo.send(t+r.net.spec.CreditDelay, i)
	f.VC = int8(vc.outVC)
	op.flitsTo.send(t+op.lat, f)
	op.credit[vc.outVC]--
	op.sent[vc.outVC]++
	if f.Tail {
		op.held[vc.outVC] = false
		vc.state = vcIdle
	}
}
