package router

import (
	"fmt"
	"strings"

	"nocsim/des"
	"nocsim/mesh"
)

// Bus is a shared medium joining every node's NIU: one transfer at a time,
// granted by a round-robin arbiter, as on a shared-bus multiprocessor where
// "processors have to wait until they become the bus master".
//
// Each node has a bus interface in place of a router: per VC a buffer of
// vc_buf flits fed by the NIU's injection channel, whose slots are credited
// back to the NIU exactly as a router's local input port does, so the NIU
// cannot tell the two apart. The arbiter grants the bus to one packet among
// the nodes with a head at the front of a VC whose destination ejection VC
// has a free slot (nodes in round-robin order from the one after the last
// winner, and a node's VCs in round-robin order), and the winner keeps the
// bus from its head to its tail: packets are never interleaved. A transfer
// moves up to link_flits_per_cycle flits per cycle into the destination's
// ejection channel, on the ejection VC of the same index as its bus
// interface VC (so ordered messages stay in order), and only while that VC
// has credit; a transfer stalled by a full ejection buffer keeps the bus,
// as a bus without split transactions would. Arbitration takes
// switch_alloc_delay, and each flit then crosses in link_latency, like
// one router hop; the next arbitration overlaps the cycle the tail
// crosses, so back-to-back transfers keep the bus busy.
//
// A lone packet of L flits therefore takes, from its creation at the
// source NIU to the ejection of its tail (BusZeroLoadLatency):
//
//	T0 = inject_latency + switch_alloc_delay + link_latency + eject_latency + ceil(L/w) - 1
//
// with w = StreamWidth(): the head waits out arbitration and crosses, and
// the body follows w flits per cycle.
type Bus struct {
	eng   *des.Engine
	spec  *Spec
	id    int32
	nodes int
	vcs   int
	depth int
	width int

	inj      []Pipe[Flit] // NIU -> bus interface, one per node
	ejCredit []Pipe[int8] // NIU -> bus: ejection slots freed
	injCred  []*Pipe[int8]
	eject    []*Pipe[Flit]

	store  []Flit  // every bus interface VC's ring of vc_buf slots, in node*VCs+vc order
	n      []int16 // flits buffered per interface VC
	head   []int16 // front of each ring
	credit []int16 // free ejection slots per node*VCs+vc
	vcRR   []int   // per node, its VC first in line
	flits  int     // flits buffered in the interfaces
	heads  int     // interface VCs with a head at the front (requests)

	owner int      // node holding the bus, -1 when free
	ownVC int      // its interface VC (and the ejection VC used)
	dst   int      // destination of the packet on the bus
	start des.Time // first cycle the owner may send (arbitration done)
	rr    int      // node first in line for the next grant

	sent   uint64   // flits carried
	sentVC []uint64 // flits carried per VC
	grants uint64   // packets granted the bus (arbitrations won)
	since  des.Time // cycle the bus last moved a flit or changed hands
	Stats  Stats
	trace  func(node int, in, out mesh.Port, f Flit)
}

// BusZeroLoadLatency is the latency of a lone packet of length flits
// across a bus (see Bus).
func (s Spec) BusZeroLoadLatency(length int) des.Time {
	w := s.StreamWidth()
	return s.InjectLatency + s.SwitchAllocDelay + s.LinkLatency + s.EjectLatency + des.Time((length+w-1)/w-1)
}

// ZeroLoad is a lone packet's latency over hops links of topo: the bus's
// formula on a bus, the routers' (ZeroLoadLatency) otherwise.
func (s Spec) ZeroLoad(topo mesh.Topology, hops, length int) des.Time {
	if _, ok := topo.(mesh.Bus); ok {
		return s.BusZeroLoadLatency(length)
	}
	return s.ZeroLoadLatency(hops, length)
}

// busDest is the destination a bus head addresses: mesh.Bus puts the node
// id in the offsets, 8 bits in x and the rest in y.
func busDest(f *Flit) int {
	dx, dy := f.Offsets()
	return dx + dy<<8
}

func buildBus(n *Network) {
	eng, sp := n.Eng, &n.Spec
	nodes := n.Topo.Nodes()
	v := sp.VCs
	b := &Bus{eng: eng, spec: sp, nodes: nodes, vcs: v, depth: sp.VCBuf, width: sp.linkWidth(), owner: -1}
	b.id = eng.Register(b)
	b.inj = make([]Pipe[Flit], nodes)
	b.ejCredit = make([]Pipe[int8], nodes)
	b.injCred = make([]*Pipe[int8], nodes)
	b.eject = make([]*Pipe[Flit], nodes)
	b.store = make([]Flit, nodes*v*sp.VCBuf)
	b.n = make([]int16, nodes*v)
	b.head = make([]int16, nodes*v)
	b.credit = make([]int16, nodes*v)
	b.vcRR = make([]int, nodes)
	b.sentVC = make([]uint64, v)
	for i := range b.credit {
		b.credit[i] = int16(sp.VCBuf)
	}
	n.Local = make([]LocalPort, nodes)
	credits := v * sp.VCBuf
	for i := range nodes {
		b.inj[i].init(eng, sp.InjectLatency, b.id)
		b.inj[i].Reserve(min(credits, int(sp.InjectLatency+1)*sp.InjectWidth))
		b.ejCredit[i].init(eng, sp.CreditDelay, b.id)
		b.ejCredit[i].Reserve(credits)
		b.injCred[i] = NewPipe[int8](eng, sp.CreditDelay, -1)
		b.injCred[i].Reserve(min(credits, int(sp.CreditDelay+1)*b.width))
		b.eject[i] = NewPipe[Flit](eng, sp.LinkLatency+sp.EjectLatency, -1)
		b.eject[i].Reserve(credits)
		n.Local[i] = LocalPort{Inject: &b.inj[i], InjectCredit: b.injCred[i], Eject: b.eject[i], EjectCredit: &b.ejCredit[i]}
	}
	n.Bus = b
}

// Tick runs one bus cycle: take arriving flits and credits, move the
// owner's flits, and grant the bus when it is free. It returns the next
// cycle it has work in.
func (b *Bus) Tick(now des.Time) des.Time {
	b.receive(now)
	if b.owner < 0 && b.heads > 0 {
		b.arbitrate(now)
	}
	if b.owner >= 0 && now >= b.start && b.transfer(now) && b.heads > 0 {
		// The tail crossed: the next grant overlaps this cycle.
		b.arbitrate(now)
	}
	if b.flits > 0 {
		return now + 1
	}
	next := des.Never
	for i := range b.nodes {
		next = min(next, b.inj[i].Next(), b.ejCredit[i].Next())
	}
	return next
}

// receive moves arrived flits into the interface VCs and counts returned
// ejection credits. It visits every node: a bus joins few enough of them
// that a scan costs less than keeping lists.
func (b *Bus) receive(now des.Time) {
	v := b.vcs
	for i := range b.nodes {
		in := &b.inj[i]
		for in.Ready(now) {
			f := in.front()
			k := i*v + int(f.VC)
			if int(b.n[k]) == b.depth {
				panic(fmt.Sprintf("bus interface %d vc%d: buffer overflow (credit protocol violated)", i, f.VC))
			}
			if b.n[k] == 0 && f.Head {
				b.heads++
			}
			j := int(b.head[k]) + int(b.n[k])
			if j >= b.depth {
				j -= b.depth
			}
			b.store[k*b.depth+j] = *f
			b.n[k]++
			b.flits++
			in.drop()
		}
		c := &b.ejCredit[i]
		for c.Ready(now) {
			b.credit[i*v+int(c.Recv())]++
		}
	}
}

func (b *Bus) front(k int) *Flit { return &b.store[k*b.depth+int(b.head[k])] }

// arbitrate grants the bus to the first requesting node at or after rr,
// and within it to its first requesting VC at or after its pointer. A
// request is a head at the front of an interface VC whose ejection VC at
// the destination has a free slot.
func (b *Bus) arbitrate(now des.Time) {
	v := b.vcs
	for j := range b.nodes {
		i := b.rr + j
		if i >= b.nodes {
			i -= b.nodes
		}
		for c := range v {
			vc := b.vcRR[i] + c
			if vc >= v {
				vc -= v
			}
			k := i*v + vc
			if b.n[k] == 0 {
				continue
			}
			f := b.front(k)
			if !f.Head {
				continue
			}
			d := busDest(f)
			if b.credit[d*v+vc] == 0 {
				continue
			}
			b.owner, b.ownVC, b.dst = i, vc, d
			b.grants++
			b.start = now + b.spec.SwitchAllocDelay
			b.since = now
			b.heads--
			if b.rr = i + 1; b.rr == b.nodes {
				b.rr = 0
			}
			if b.vcRR[i] = vc + 1; b.vcRR[i] == v {
				b.vcRR[i] = 0
			}
			return
		}
	}
}

// transfer moves up to the bus width of the owner's flits, as its buffer
// and the destination's credits allow; it reports whether the tail went.
func (b *Bus) transfer(now des.Time) bool {
	v := b.vcs
	k := b.owner*v + b.ownVC
	e := b.dst*v + b.ownVC
	for range b.width {
		if b.n[k] == 0 {
			return false
		}
		if b.credit[e] == 0 {
			b.Stats.CreditStall++
			return false
		}
		f := b.front(k)
		if b.trace != nil {
			b.trace(b.owner, mesh.Local, mesh.Local, *f)
		}
		b.injCred[b.owner].Send(now, int8(b.ownVC))
		out := b.eject[b.dst].slot(now)
		*out = *f
		out.VC = int8(b.ownVC)
		if out.Head {
			out.SetOffsets(0, 0)
		}
		tail := f.Tail
		if b.head[k]++; int(b.head[k]) == b.depth {
			b.head[k] = 0
		}
		b.n[k]--
		b.flits--
		b.credit[e]--
		b.sent++
		b.sentVC[b.ownVC]++
		b.Stats.Traversals++
		b.eng.Progress()
		b.since = now
		if tail {
			b.owner = -1
			if b.n[k] > 0 && b.front(k).Head {
				b.heads++
			}
			return true
		}
	}
	return false
}

// Grants is the packets granted the bus so far: one arbitration each,
// whatever the number of flits the packet then carries.
func (b *Bus) Grants() uint64 { return b.grants }

// InFlight is the flits node's NIU has sent that have not yet reached its
// bus interface (on the injection channel).
func (b *Bus) InFlight(node int) int { return b.inj[node].Len() }

// BufferedAt is the flits held in node's bus interface buffers.
func (b *Bus) BufferedAt(node int) int {
	n := 0
	for _, c := range b.n[node*b.vcs : (node+1)*b.vcs] {
		n += int(c)
	}
	return n
}

func (b *Bus) buffered() int {
	t := b.flits
	for i := range b.nodes {
		t += b.inj[i].Len() + b.eject[i].Len()
	}
	return t
}

func (b *Bus) describe(now des.Time, sb *strings.Builder, pktName func(int32) string) {
	if b.owner >= 0 {
		fmt.Fprintf(sb, "  bus: held by node %d vc%d for a packet to node %d", b.owner, b.ownVC, b.dst)
		if b.credit[b.dst*b.vcs+b.ownVC] == 0 {
			sb.WriteString("; no credit (ejection buffer full)")
		}
		fmt.Fprintf(sb, "; idle %d cycles\n", now-b.since)
	}
	for k, c := range b.n {
		if c == 0 {
			continue
		}
		f := b.front(k)
		fmt.Fprintf(sb, "  bus interface %d vc%d: %d flit(s), front is flit %d of %s\n", k/b.vcs, k%b.vcs, c, f.Pos(), pktName(f.Packet))
	}
}

func (b *Bus) checkQuiescent() error {
	if b.flits != 0 || b.heads != 0 || b.owner >= 0 {
		return fmt.Errorf("bus: %d flits buffered, %d heads waiting, owner %d", b.flits, b.heads, b.owner)
	}
	for i := range b.nodes {
		if b.inj[i].Len() != 0 || b.ejCredit[i].Len() != 0 {
			return fmt.Errorf("bus interface %d: %d flits, %d credits in flight", i, b.inj[i].Len(), b.ejCredit[i].Len())
		}
		for v := range b.vcs {
			if c := b.credit[i*b.vcs+v]; int(c) != b.spec.VCBuf {
				return fmt.Errorf("bus to node %d vc%d: %d of %d ejection credits", i, v, c, b.spec.VCBuf)
			}
		}
	}
	return nil
}
