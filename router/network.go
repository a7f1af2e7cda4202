package router

import (
	"fmt"
	"math/bits"
	"strings"

	"nocsim/des"
	"nocsim/mesh"
)

// LocalPort is the pair of channels between a router and its tile's NIU.
// The NIU sends flits with InjectSlot (straight into the router's input
// VCs, or on Inject) and receives their credits on InjectCredit; it
// receives flits on Eject and returns credits on EjectCredit.
type LocalPort struct {
	Inject       *Pipe[Flit]
	InjectCredit *Pipe[int8]
	Eject        *Pipe[Flit]
	EjectCredit  *Pipe[int8]
	// router is the router at the other end when its ejection credits
	// take one cycle (see ReturnEjectCredit); nil otherwise and on a bus.
	// Injected flits go straight into its input VCs when it allows it
	// (InjectSlot).
	router *Router
}

// maxDirectInject bounds inject_flits_per_cycle for direct injection
// (LocalPort.InjectSlot): the arrival ring keeps that many VCs a cycle.
const maxDirectInject = 4

// injSig is the signal bit of flits written straight into the local input
// VCs (Router.sig; bits 0-4 are the ports' flit channels, 8-12 their
// credits).
const injSig = 1 << mesh.NumPorts

// injRing is the arrivals of directly injected flits, by arrival cycle mod
// linkSlots: the VCs of n flits, in the order they were sent. Their flits
// are already in their VCs' rings in the flit store (inVC.tail), as a
// ring link's are.
type injRing struct {
	n  [linkSlots]uint8
	vc [linkSlots][maxDirectInject]int8
	// on is set when the NIU injects this way; lat is the injection
	// delay then. (Kept here, not in the LocalPort: the NIU holds one,
	// and the NIU is at the top of its allocation size class.)
	on  bool
	lat uint8
}

// InjectSlot sends a flit on local-input VC vc at cycle now and returns
// where its value goes, for the NIU to fill in place before it sends
// another (its VC field included). When the router allows it (a credit
// delay of one cycle, an injection delay below linkSlots and at most
// maxDirectInject flits a cycle: the presets' settings), that is the
// flit's slot in the VC's ring in the router's flit store, as on a ring
// link (Router.send): the flit is copied once, by the NIU, and the channel
// carries only its VC and arrival cycle. Otherwise it is a slot of Inject.
func (lp *LocalPort) InjectSlot(now des.Time, vc int8) *Flit {
	r := lp.router
	if r == nil || !r.inj.on {
		return lp.Inject.Slot(now)
	}
	at := now + des.Time(r.inj.lat)
	s := at & (linkSlots - 1)
	j := r.inj.n[s]
	r.inj.vc[s][j] = vc
	r.inj.n[s] = j + 1
	old := r.sig[at&(dueSlots-1)]
	r.sig[at&(dueSlots-1)] = old | injSig
	if old == 0 && !r.eng.Ticking(r.id) {
		r.eng.Wake(r.id, at)
	}
	// The slot after every flit buffered or on its way: the credit the
	// NIU holds says it is free. Only the NIU moves the local VCs' tails.
	dv := &r.ivc[int(mesh.Local)*int(r.vcs)+int(vc)]
	f := &r.store[dv.base+int32(dv.tail)]
	t := dv.tail + 1
	if t == r.depth {
		t = 0
	}
	dv.tail = t
	return f
}

// InjectInFlight is the number of flits sent on local-input VC vc that have
// yet to arrive at the router.
func (lp *LocalPort) InjectInFlight(vc int8) int {
	c := 0
	for i := range lp.Inject.Len() {
		if lp.Inject.At(i).VC == vc {
			c++
		}
	}
	if r := lp.router; r != nil {
		c += r.injFlits(int(vc))
	}
	return c
}

// ReturnEjectCredit returns a credit for ejection VC vc at cycle now: on
// EjectCredit, or, when the credit delay is one cycle and the router is
// asleep or has ticked in this cycle, straight into the router's count.
// The router reads its counts only in its ticks, and its next one is next
// cycle at the earliest, when the credit is due anyway; asleep, it holds
// no flits, so it needs no wake-up for it (as in Router.send). A router
// that takes its credits this way is spared the tick a credit arriving
// on EjectCredit would cost it.
func (lp *LocalPort) ReturnEjectCredit(now des.Time, vc int) {
	if r := lp.router; r != nil && !r.general && (!r.eng.Ticking(r.id) || r.tickedAt == now) {
		r.out[mesh.Local].credit[vc]++
		return
	}
	lp.EjectCredit.Send(now, int8(vc))
}

// InjectCredits is an NIU's count of the free slots in its router's
// local-input VCs, which the router updates in place when the credit delay
// is one cycle (see Bind).
type InjectCredits struct {
	// TickedAt is the NIU's last tick: the NIU sets it at the start of
	// each.
	TickedAt des.Time
	id       int32
	// InPlace is set when the router counts every credit here (Bind),
	// so that InjectCredit stays empty. (Not in the router's general
	// mode, which only its own tests set, with NIs that read both.)
	InPlace bool
	// Wait is set while the NIU sleeps until a credit arrives: a credit
	// counted for it then wakes it for the credit's arrival cycle, as
	// InjectCredit would.
	Wait bool
	// Due has bit i set while Next[i] holds credits.
	Due uint16
	// Next is the credits due next cycle that were counted in this one
	// before the NIU ticked: it folds them into Count at the end of its
	// tick (Fold).
	Next [MaxVCs]int16
	// Count is the credits per VC the NIU holds (vc_buf <= 1024).
	// Credits on their way back in InjectCredit or in Next are not in
	// it. With Next, the struct is one cache line, which the router and
	// the NIU both touch.
	Count [MaxVCs]int16
}

// Fold adds the credits in Next to Count; the NIU calls it at the end of
// each tick that finds Due set, after its last use of Count in the tick.
func (c *InjectCredits) Fold() {
	for m := c.Due; m != 0; m &= m - 1 {
		i := bits.TrailingZeros16(m)
		c.Count[i] += c.Next[i]
		c.Next[i] = 0
	}
	c.Due = 0
}

// Bind gives the NIU ticker id its count of injection credits. When the
// credit delay is one cycle, the router counts each credit into it instead
// of sending it on InjectCredit: into Count if the NIU is asleep or has
// ticked in this cycle, so that its next tick, in the next cycle at the
// earliest, is when the credit is due anyway (the rule of
// ReturnEjectCredit, the other way); into Next if the NIU is busy and has
// yet to tick in this cycle, which it does, folding Next into Count at the
// end. A credit so needs no channel, and no tick of the NIU's of its own.
// Otherwise, and on a bus, credits come on InjectCredit and the NIU adds
// them to Count itself. Bind is called once per port, before the run.
func (lp *LocalPort) Bind(id int32) *InjectCredits {
	c := &InjectCredits{TickedAt: -1, id: id}
	if r := lp.router; r != nil {
		r.in[mesh.Local].niu = c
		c.InPlace = true
	}
	return c
}

// Network is the set of routers and channels for one topology.
type Network struct {
	Eng     *des.Engine
	Topo    mesh.Topology
	Spec    Spec
	Routers []*Router // none on a bus
	Local   []LocalPort
	Bus     *Bus // the shared medium, on a mesh.Bus topology; nil otherwise
}

// Build wires one router per node (per router of a concentrated
// topology) and a link each way between neighbours, and one local port per
// node (Local, indexed by node). The NIU ends of the local channels wake
// ticker -1 until the NIU calls SetWake on them.
func Build(eng *des.Engine, topo mesh.Topology, spec Spec) *Network {
	n := &Network{Eng: eng, Topo: topo, Spec: spec}
	sp := &n.Spec
	if _, ok := topo.(mesh.Bus); ok {
		buildBus(n)
		return n
	}
	n.Routers = make([]*Router, mesh.Routers(topo))
	for i := range n.Routers {
		n.Routers[i] = newRouter(eng, sp, topo, i)
	}
	hop := sp.SwitchAllocDelay + sp.SwitchDelay
	for i, r := range n.Routers {
		for p := mesh.North; p < mesh.NumPorts; p++ {
			j, ok := topo.Neighbor(i, p)
			if !ok {
				continue
			}
			d := n.Routers[j]
			q := p.Opposite()
			if lat := hop + sp.LinkLatency; sp.linkWidth() == 1 && lat >= 1 && lat < linkSlots {
				// The default spec's links: through d's ring.
				op := &r.out[p]
				op.down, op.downIn, op.downBit = d, &d.in[q], 1<<q
				op.downVC = uint8(int(q) * sp.VCs)
				op.lat = uint8(lat)
			} else {
				link := NewPipe[Flit](eng, hop+sp.LinkLatency, d.id)
				r.out[p].flits = link
				d.in[q].flits = link
			}
			if sp.CreditDelay < creditSlots {
				// The short delay of nearly every spec: credits go
				// through a ring of counts in r (outPort.back).
				d.in[q].up, d.in[q].upR, d.in[q].upBit = &r.out[p], r, 1<<(8+p)
				d.in[q].upID, d.in[q].upLat = r.id, int32(sp.CreditDelay)
				r.quickCredits |= 1 << (8 + p)
				continue
			}
			credit := NewPipe[int8](eng, sp.CreditDelay, r.id)
			d.in[q].credits = credit
			r.out[p].credits = credit
		}
	}
	if c, ok := topo.(mesh.Concentrated); ok && c.Concentration() > 1 {
		buildConcentrated(n, c)
		return n
	}
	n.Local = make([]LocalPort, len(n.Routers))
	for i, r := range n.Routers {
		// The channels into the router live inside it, as the links'.
		r.localLink.init(eng, sp.InjectLatency, r.id)
		r.localCredits.init(eng, sp.CreditDelay, r.id)
		lp := LocalPort{
			Inject:       &r.localLink,
			InjectCredit: NewPipe[int8](eng, sp.CreditDelay, -1),
			Eject:        NewPipe[Flit](eng, hop+sp.EjectLatency, -1),
			EjectCredit:  &r.localCredits,
		}
		if sp.CreditDelay == 1 {
			lp.router = r
			// Direct injection needs that router pointer; the specs
			// without it (a longer credit delay) keep the channel.
			if sp.InjectLatency < linkSlots && sp.InjectWidth <= maxDirectInject {
				r.inj.on, r.inj.lat = true, uint8(sp.InjectLatency)
			}
		}
		r.in[mesh.Local].flits = lp.Inject
		r.in[mesh.Local].credits = lp.InjectCredit
		r.out[mesh.Local].flits = lp.Eject
		r.out[mesh.Local].credits = lp.EjectCredit
		n.Local[i] = lp
	}
	for _, r := range n.Routers {
		r.attach()
	}
	return n
}

// SetTrace calls fn for every flit a router switches, with the router's
// node, the input and output ports, and the flit (whose VC is still the
// input VC). It is for tests and debugging; nil turns it off.
// On a bus, the node is the sender and both ports are Local.
func (n *Network) SetTrace(fn func(node int, in, out mesh.Port, f Flit)) {
	if n.Bus != nil {
		n.Bus.trace = fn
	}
	for _, r := range n.Routers {
		r.trace = fn
		for p := range r.out {
			r.out[p].traced = fn != nil
		}
	}
}

// Buffered is the number of flits held in router buffers and on links.
func (n *Network) Buffered() int {
	t := 0
	if n.Bus != nil {
		t = n.Bus.buffered()
	}
	for _, r := range n.Routers {
		t += int(r.flits)
		for p := range mesh.Port(r.np) {
			switch {
			case p.IsLocal():
				t += r.in[p].flits.Len() + r.out[p].flits.Len()
			case r.in[p].flits != nil:
				t += r.in[p].flits.Len()
			default:
				t += bits.OnesCount8(r.in[p].lfull)
			}
		}
		t += r.injFlits(-1)
	}
	return t
}

// RouterCount is one router's cumulative counters: its stalls and
// traversals (Router.Stats) and its buffered flit-cycles
// (Router.BufferedFlitCycles).
type RouterCount struct {
	Stats
	BufferedFlitCycles uint64
}

// RouterCounts returns every router's counters so far, in router order
// (none on a bus), appended to dst[:0].
func (n *Network) RouterCounts(dst []RouterCount) []RouterCount {
	dst = dst[:0]
	for _, r := range n.Routers {
		dst = append(dst, RouterCount{Stats: r.Stats(), BufferedFlitCycles: r.buffered})
	}
	return dst
}

// Totals sums the routers' counters.
// On a bus, Traversals are flits carried and CreditStall the cycles the
// bus was held by a transfer waiting for ejection credit.
func (n *Network) Totals() Stats {
	var s Stats
	if n.Bus != nil {
		s = n.Bus.Stats
	}
	for _, r := range n.Routers {
		rs := r.Stats()
		s.Traversals += rs.Traversals
		s.VCStalls += rs.VCStalls
		s.SwitchStall += rs.SwitchStall
		s.CreditStall += rs.CreditStall
		s.VCAllocs += rs.VCAllocs
	}
	return s
}

// LinkCounts returns the flits sent so far on every router-to-router link,
// in a fixed order (router, then port N, E, S, W). A bus is one link.
func (n *Network) LinkCounts(dst []uint64) []uint64 {
	dst = dst[:0]
	if n.Bus != nil {
		dst = append(dst, n.Bus.sent)
	}
	for _, r := range n.Routers {
		for p := mesh.North; p < mesh.NumPorts; p++ {
			if r.linked(p) {
				dst = append(dst, r.LinkFlits(p))
			}
		}
	}
	return dst
}

// LinkVCCounts returns the flits sent so far on every router-to-router link
// per VC: link i of LinkCounts' order holds entries i*VCs .. i*VCs+VCs-1.
func (n *Network) LinkVCCounts(dst []uint64) []uint64 {
	dst = dst[:0]
	if n.Bus != nil {
		dst = append(dst, n.Bus.sentVC...)
	}
	for _, r := range n.Routers {
		for p := mesh.North; p < mesh.NumPorts; p++ {
			if r.linked(p) {
				for vc := range n.Spec.VCs {
					dst = append(dst, r.LinkVCFlits(p, vc))
				}
			}
		}
	}
	return dst
}

// Link is one router-to-router link: the node it leaves, the node it
// enters and the output port it leaves by. A bus is the one link from -1
// to -1 by Local: it joins every node.
type Link struct {
	From, To int
	Dir      mesh.Port
}

// Links lists the router-to-router links in LinkCounts' order.
func (n *Network) Links() []Link {
	var ls []Link
	if n.Bus != nil {
		ls = append(ls, Link{From: -1, To: -1, Dir: mesh.Local})
	}
	for i, r := range n.Routers {
		for p := mesh.North; p < mesh.NumPorts; p++ {
			if r.linked(p) {
				j, _ := n.Topo.Neighbor(i, p)
				ls = append(ls, Link{From: i, To: j, Dir: p})
			}
		}
	}
	return ls
}

// Describe lists every router VC holding flits and why it is stuck; pktName
// names a packet id for the report.
func (n *Network) Describe(pktName func(int32) string) string {
	var b strings.Builder
	now := n.Eng.Now()
	if n.Bus != nil {
		n.Bus.describe(now, &b, pktName)
	}
	for _, r := range n.Routers {
		r.describe(now, &b, pktName)
	}
	return b.String()
}

// CheckQuiescent verifies the conservation laws of an empty network: no
// flit buffered or in flight, every VC idle and unowned, and every credit
// back with its sender. It returns the first violation found.
func (n *Network) CheckQuiescent() error {
	if n.Bus != nil {
		return n.Bus.checkQuiescent()
	}
	for _, r := range n.Routers {
		if r.flits != 0 || r.routeMask|r.waitMask|r.activeMask|r.fullMask != 0 {
			return fmt.Errorf("%s: %d flits buffered, VC masks %x/%x/%x/%x", r.Name, r.flits, r.routeMask, r.waitMask, r.activeMask, r.fullMask)
		}
		for p := range mesh.Port(r.np) {
			if c := r.in[p].flits; c != nil && c.Len() != 0 {
				return fmt.Errorf("%s in %v: %d flits in flight", r.Name, p, c.Len())
			}
			if r.in[p].lfull != 0 {
				return fmt.Errorf("%s in %v: %d flits in flight", r.Name, p, bits.OnesCount8(r.in[p].lfull))
			}
			if p == mesh.Local {
				if n := r.injFlits(-1); n != 0 {
					return fmt.Errorf("%s in %v: %d flits in flight", r.Name, p, n)
				}
			}
			op := &r.out[p]
			if !r.linked(p) {
				continue
			}
			for v := range n.Spec.VCs {
				if c := r.creditsBack(p, v); c != 0 {
					return fmt.Errorf("%s out %v vc%d: %d credits in flight", r.Name, p, v, c)
				}
				if int(op.credit[v]) != n.Spec.VCBuf || op.held&(1<<v) != 0 {
					return fmt.Errorf("%s out %v vc%d: %d of %d credits, held by %s", r.Name, p, v, op.credit[v], n.Spec.VCBuf, r.ownerName(p, v))
				}
			}
		}
	}
	return nil
}

// buildConcentrated gives each node of a concentrated topology its local
// port on its router (mesh.Concentrated.RouterOf). The NIUs send and
// receive everything on the channels: the direct paths of a router's one
// local port (LocalPort.InjectSlot, Bind, ReturnEjectCredit's shortcut)
// are off, as a concentrated router's further local ports signal on the
// bits those use (see receive).
func buildConcentrated(n *Network, c mesh.Concentrated) {
	sp := &n.Spec
	eng := n.Eng
	hop := sp.SwitchAllocDelay + sp.SwitchDelay
	n.Local = make([]LocalPort, c.Nodes())
	for t := range n.Local {
		ri, p := c.RouterOf(t)
		r := n.Routers[ri]
		lp := LocalPort{
			InjectCredit: NewPipe[int8](eng, sp.CreditDelay, -1),
			Eject:        NewPipe[Flit](eng, hop+sp.EjectLatency, -1),
		}
		if p == mesh.Local {
			r.localLink.init(eng, sp.InjectLatency, r.id)
			r.localCredits.init(eng, sp.CreditDelay, r.id)
			lp.Inject, lp.EjectCredit = &r.localLink, &r.localCredits
		} else {
			lp.Inject = NewPipe[Flit](eng, sp.InjectLatency, r.id)
			lp.EjectCredit = NewPipe[int8](eng, sp.CreditDelay, r.id)
		}
		r.in[p].flits = lp.Inject
		r.in[p].credits = lp.InjectCredit
		r.out[p].flits = lp.Eject
		r.out[p].credits = lp.EjectCredit
		n.Local[t] = lp
	}
	for _, r := range n.Routers {
		r.attach()
	}
}
