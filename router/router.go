package router

import (
	"fmt"
	"math/bits"

	"nocsim/des"
	"nocsim/mesh"
)

// VC states, as in BookSim's input VC state machine.
const (
	vcIdle    uint8 = iota // no packet, or a head waiting to be routed
	vcRouting              // route computed, waiting out the routing stage
	vcWaitVC               // waiting for an output VC
	vcActive               // holds an output VC; flits compete for the switch
)

// MaxVCs bounds the VCs per port so that every input VC of a router has a
// bit in a 64-bit mask.
const MaxVCs = 12

// inVC is one input virtual channel: 32 bytes, two to a cache line. Its
// flits are a ring of vc_buf slots in the router's flit store.
// On a ring link the upstream router writes each flit into its slot when
// it sends it, and the VC counts it (n) only when it arrives, so that a
// flit is copied once per hop and the link carries just its VC. The cycle
// its front last moved (for stall reports) is here too, although only
// describe reads it, because it is written on every move and a line of
// its own would cost a cache miss each time.
type inVC struct {
	ready des.Time  // cycle from which the current stage may proceed
	since des.Time  // cycle the front last moved
	base  int32     // first slot of its ring in the router's flit store
	n     int16     // flits buffered (vc_buf <= 1024)
	head  int16     // front of the ring, 0 <= head < vc_buf
	state uint8     // vcIdle .. vcActive
	out   mesh.Port // output port of the packet at the front
	outVC int8      // output VC it holds (vcActive)
	want  int8      // the output VC an ordered head (KindOrdered) must get, else -1
	mask  uint16    // output VCs the head may take: its class's (all on a mesh)
	// tail is where the upstream router writes the next flit for this VC
	// on a ring link (see send), or the NIU the next flit it injects
	// directly (LocalPort.InjectSlot): the slot after every flit
	// buffered or on its way. Only the sender reads or writes it.
	tail int16
}

func (r *Router) front(vc *inVC) *Flit { return &r.store[vc.base+int32(vc.head)] }

// burstLen is how many flits from the front, at most limit (>= 1), belong to
// the packet at the front: those up to its tail, of the flits buffered.
// Flits past a tail belong to a packet not yet routed.
func (r *Router) burstLen(vc *inVC, limit int) int {
	n := min(limit, int(vc.n))
	i := vc.head
	for j := range n {
		if r.store[vc.base+int32(i)].Tail {
			return j + 1
		}
		if i++; i == r.depth {
			i = 0
		}
	}
	return n
}

// inPort is one line: a send reads or writes the line of the port its
// flit leaves from (its credit's way back) and of the port downstream
// that it arrives at (layout_test.go checks the size).
type inPort struct {
	flits   *Pipe[Flit] // from upstream; nil on a mesh edge
	credits *Pipe[int8] // to upstream, unless up or niu is set
	// up, if set, replaces credits on a link whose credit delay is below
	// creditSlots: the upstream router's output port, whose ring of
	// credits on their way back (outPort.back) they go through, with the
	// upstream router (upR), its signal bit (upBit) and id.
	up  *outPort
	upR *Router
	// niu, if set (on the local port only), is the NIU's count of
	// injection credits, which send updates in place when it may (see
	// LocalPort.Bind). Set only when the credit delay is one cycle, when
	// every link's credits go through rings (up), so that a credit not
	// sent that way is an injection credit.
	niu   *InjectCredits
	width int16 // flits it may send through the switch per cycle (<= 16)
	rr    int16 // VC first in line for the switch
	upBit uint16
	// lvc is the VC of the flit arriving in each slot of a ring link's
	// arrival ring, by arrival cycle mod linkSlots: its flit is already
	// in the VC's ring in the flit store (inVC.tail). lfull has bit s
	// set while a flit arrives in cycles s mod linkSlots.
	lvc   [linkSlots]int8
	lfull uint8
	upID  int32
	upLat int32
	// id is this router's ticker id, for the upstream router that writes
	// a flit straight into the port (send): the router's own id is on a
	// line a send would otherwise read for nothing else.
	id int32
}

// creditSlots bounds the credit delay a link's credits may have to go
// through a ring of per-VC counts (outPort.back) instead of a Pipe: a
// credit sent at cycle t lands in slot (t+delay) mod creditSlots, and the
// receiver empties that slot in the cycle it arrives (its signal bit
// makes it tick then), so the delay must be below creditSlots for the
// slots in use never to overlap. A power of two.
const creditSlots = 4

// linkSlots is the arrival slots of a ring link (inPort.lfull): links
// one flit wide with a delay below it are ring links. A power of two.
const linkSlots = 4

// outPort keeps its per-VC state in small arrays inside the router, not
// in slices of their own, so that allocation reads no slice headers and
// touches no cache lines beyond the router's. It is two lines, and a
// router's ports start on a line: the first holds all that allocating and
// sending a flit reads or writes, the second the credits on their way
// back, which the downstream router writes (layout_test.go checks both).
type outPort struct {
	credit [MaxVCs]int16 // free downstream buffer slots per VC (vc_buf <= 1024)
	// down, if set, replaces flits on a ring link to the downstream
	// router (see send): downIn is its input port, downBit that port's
	// signal bit.
	down   *Router
	downIn *inPort
	// sent is the flits sent per output VC mod 256; send adds each 256
	// to Router.sentVC, a line it then need not touch for each flit.
	sent [MaxVCs]uint8
	// held has bit c set while output VC c has an owner: the input VC
	// that is active with it (owner, for reports).
	held    uint16
	downBit uint16
	downVC  uint8 // downstream input VC index (port*VCs) of output VC 0
	sentAt  uint8 // index in Router.sentVC of output VC 0 (port*VCs)
	width   uint8 // flits it may send per cycle (<= 16)
	vaRR    uint8 // input VC first in line for the next VC grant (< 64)
	vcRR    uint8 // output VC first in line (vc_alloc = round_robin)
	saRR    uint8 // input VC first in line for the switch
	// lat is the delay of a ring link (see down; Build), below linkSlots.
	lat uint8
	// traced is whether the router's trace is set, kept here so that a
	// send reads no cold line to find out.
	traced bool

	credits *Pipe[int8] // from downstream; nil if back carries them
	// back is the credits on their way back from downstream, per VC, by
	// arrival cycle mod creditSlots, on a link with a short credit delay
	// (see inPort.up): a credit then costs the sender two increments in
	// this router's memory and the receiver a few adds, with no channel
	// buffer to go through. At most a cycle's sends of one VC (the
	// link's width, <= 16) arrive in a cycle.
	back  [creditSlots][MaxVCs]uint8
	flits *Pipe[Flit] // to downstream; nil on a mesh edge and if down is set
}

// Stats are a router's cumulative counters.
type Stats struct {
	Traversals  uint64 // flits through the switch
	VCStalls    uint64 // head-cycles spent waiting for an output VC
	SwitchStall uint64 // flit-cycles ready with credit but losing switch allocation
	CreditStall uint64 // flit-cycles ready but without a downstream credit
	VCAllocs    uint64 // heads granted an output VC (one per packet per router)
}

// Router is one tile's wormhole router. It does not know its position: it
// routes from the offsets in head flits, as SCMP's routers do.
type Router struct {
	// Hot state, read or written every cycle, together. The first 56
	// bytes fill the line that the allocator's 8-byte object header
	// starts (a Router has pointers and is over 512 bytes), and the next
	// 64 the line after it, so that the channels after them start on a
	// line (layout_test.go checks it): a tick's bookkeeping costs those
	// two lines, which on a large mesh, whose routers do not fit the
	// caches, is what a visit to a router costs before any flit moves.

	// One bit per input VC (port*VCs+vc) for each stage with work, so a
	// cycle touches only the VCs that can move.
	routeMask  uint64 // idle with a head at the front, or routing
	waitMask   uint64 // waiting for an output VC
	activeMask uint64 // holding an output VC
	fullMask   uint64 // holding flits, so that switch allocation skips empty VCs unread
	// sig is the channels with items arriving (bit p flits on input p,
	// bit 8+p credits on output p): by arrival cycle mod dueSlots for
	// channels shorter than dueSlots, and in sig[dueSlots] while items
	// are in flight for longer ones (see Pipe.sig).
	sig   [dueSlots + 1]uint16
	depth int16 // spec.VCBuf: slots in each input VC's ring
	// quickCredits has the signal bits (8+p) of the outputs whose credits
	// come back through a ring (outPort.back; see creditEarly).
	quickCredits uint16
	// vdiv is 2^15/VCs rounded up, so that the port of input VC k is
	// k*vdiv>>15 (portOf): exact for every k below 64, and a multiply
	// on a line every tick reads, where a table would cost a line of
	// its own on each send.
	vdiv  uint16
	flits int32 // flits buffered in this router
	vcs   uint8 // spec.VCs
	// burst is link_flits_per_cycle: the most flits one input VC sends
	// through the switch per cycle.
	burst uint8
	// alloc is the allocators (allocGreedyLowest .. allocSeparable),
	// decided once so that allocation compares no strings.
	alloc uint8
	// general makes switch allocation always take its general path, for
	// the test that checks its fast paths change nothing.
	general bool

	eng *des.Engine
	// tickedAt is the cycle of the router's last tick: a downstream
	// router sending in the same cycle, after it, may hand it a credit
	// due next cycle at once (see send).
	tickedAt des.Time
	store    []Flit // every input VC's ring, vc_buf slots each, in input-VC order
	ivc      []inVC // input VCs by index port*VCs+vc

	// The channels from the NIU, kept inside the router so that a tick
	// reads them from its own block of memory: flits injected
	// (in[Local].flits), when the NIU does not write them straight into
	// their slots (inj, LocalPort.InjectSlot), and ejection credits
	// (out[Local].credits). A Pipe is 64 bytes, so each is one cache
	// line.
	localLink    Pipe[Flit]
	localCredits Pipe[int8]
	// Links one flit wide whose delay is below linkSlots (the default
	// spec's) are ring links: the sender writes each flit straight into
	// its slot in this router's flit store (see send), and the link
	// carries only its VC and arrival cycle (inPort.lfull, lvc), with no
	// channel state or buffer to go through. Links of other specs are
	// Pipes of their own (in[p].flits); on a mesh edge, nothing.
	// The ports, each starting on a line (see outPort).
	out [mesh.MaxPorts]outPort
	in  [mesh.MaxPorts]inPort

	// stalls is the router's stall counters; its traversals are counted
	// per output VC only (outPort.sent and sentVC), and added up when
	// read (Stats).
	stalls Stats
	// ticks is the cycles the router's pipeline ran (Tick calls), for
	// energy's busy and idle router-cycles (BusyCycles). It is cold, on
	// the stall counters' line, which switch allocation under contention
	// touches anyway: a field on the two hot lines would push the
	// channels off their line.
	ticks uint64
	// buffered is the flits held at the end of each cycle the router
	// ran, summed (flit-cycles): its mean buffer occupancy over a window
	// is the window's difference over its cycles. A router that did not
	// run held none (see Tick). Cold, beside ticks.
	buffered uint64
	trace    func(node int, in, out mesh.Port, f Flit)

	// Scratch for switch allocation: one request list per output, of
	// saN[o] input-VC indices from saQ[o*saStride]. The lists are packed
	// by the most requests one output can get in a cycle (saStride, the
	// inputs' widths summed), so that a cycle's requests share a line.
	// saQ is saBuf unless the widths need more (up to NumPorts *
	// maxSwitchReqs): a buffer for the widest spec would take a sixth
	// of the router, and on a large mesh the routers' size is what
	// decides how many fit the caches.
	saN      [mesh.MaxPorts]uint8
	saStride int
	saQ      []int8
	saBuf    [64]int8

	// localVCs has the bits of the local ports' input VCs.
	localVCs uint64
	// inj is the flits the NIU has written straight into the local
	// input VCs (LocalPort.InjectSlot), by arrival cycle; signalled by
	// injSig. Unused when the NIU sends on localLink instead.
	inj injRing

	// Cold state.
	spec *Spec
	// matched is the pointers of BookSim's allocators (alloc >=
	// allocISLIP); nil with the greedy ones.
	matched *matchState
	// adaptMask has the bits of the input VCs whose waiting head has a
	// choice of output port (routing west_first or adaptive; see
	// chooseRoutes); duato is routing = adaptive, whose Y ports keep VC 0
	// for the XY escape network.
	adaptMask uint64
	duato     bool
	// cls is the topology's class routing, if it has one (the datelines
	// of a ring or a torus); nil on a mesh, so that route pays one
	// predictable branch.
	cls  mesh.ClassRouter
	half int // VCs per class (spec.VCs/2) when cls is set
	// sentVC is the flits sent per output VC (port*VCs+vc), for VC
	// balance, but for the last 256 or fewer, which outPort.sent holds
	// (see LinkVCFlits).
	sentVC []uint64
	Name   string
	node   int
	topo   mesh.Topology
	id     int32
	// np is the router's ports: mesh.NumPorts, or more on a concentrated
	// mesh (its local ports after the links; mesh.LocalPort).
	np uint8
}

func newRouter(eng *des.Engine, spec *Spec, topo mesh.Topology, node int) *Router {
	r := &Router{Name: "R" + mesh.RouterLabel(topo, node), node: node, spec: spec, topo: topo, eng: eng, tickedAt: -1,
		alloc: spec.allocKind(), burst: uint8(spec.linkWidth()), vcs: uint8(spec.VCs), depth: int16(spec.VCBuf), np: uint8(mesh.NumPorts)}
	r.id = eng.Register(r)
	v := spec.VCs
	if c, ok := topo.(mesh.Concentrated); ok && c.Concentration() > 1 {
		r.np = uint8(int(mesh.NumPorts) - 1 + c.Concentration())
		r.alloc |= allocWide
		if int(r.np)*v > inVCBits {
			// scenarios refuses this with a KeyError on vcs first.
			panic(fmt.Sprintf("router: %s has %d ports, so at most %d VCs; got %d", topo.Name(), r.np, inVCBits/int(r.np), v))
		}
	}
	if r.alloc&allocKindMask >= allocISLIP {
		r.matched = newMatchState(int(r.np))
	}
	r.duato = spec.Routing == mesh.RoutingAdaptive
	if c, ok := topo.(mesh.ClassRouter); ok {
		if v < 2 || v%2 != 0 {
			// scenarios refuses this with a KeyError on vcs first.
			panic(fmt.Sprintf("router: %s needs an even number of VCs, at least 2, for its VC classes; got %d", topo.Name(), v))
		}
		r.cls, r.half = c, v/2
	}
	np := mesh.Port(r.np)
	r.store = make([]Flit, int(np)*v*spec.VCBuf)
	r.ivc = make([]inVC, int(np)*v)
	r.sentVC = make([]uint64, int(np)*v)
	for k := range r.ivc {
		r.ivc[k].base = int32(k * spec.VCBuf)
	}
	for p := range np {
		r.in[p].width = int16(spec.linkWidth())
		r.in[p].id = r.id
		op := &r.out[p]
		op.width = uint8(spec.linkWidth())
		op.sentAt = uint8(int(p) * v)
		for i := range v {
			op.credit[i] = int16(spec.VCBuf)
		}
	}
	r.vdiv = uint16((1<<15 + v - 1) / v)
	for p := range np {
		if p.IsLocal() {
			r.in[p].width = int16(spec.InjectWidth)
			r.localVCs |= (1<<v - 1) << (int(p) * v)
			r.out[p].width = uint8(spec.EjectWidth)
		}
	}
	for p := range np {
		r.saStride += int(r.in[p].width)
	}
	r.saQ = r.saBuf[:]
	if n := int(np) * r.saStride; n > len(r.saBuf) {
		r.saQ = make([]int8, n)
	}
	return r
}

// Buffered is the number of flits held in the router's input buffers.
func (r *Router) Buffered() int { return int(r.flits) }

// LinkFlits is the number of flits sent through output port p so far.
func (r *Router) LinkFlits(p mesh.Port) uint64 {
	var n uint64
	for vc := range int(r.vcs) {
		n += r.LinkVCFlits(p, vc)
	}
	return n
}

// Stats are the router's counters so far. Traversals are counted per
// output VC only, one increment per flit instead of three, and added up
// here.
func (r *Router) Stats() Stats {
	s := r.stalls
	for p := range mesh.Port(r.np) {
		s.Traversals += r.LinkFlits(p)
	}
	return s
}

// BusyCycles is the cycles the router's pipeline has run so far: the
// cycles it was ticked, which are those it had a flit buffered or
// arriving, or a credit due back (see Tick). In the others it does
// nothing, and the engine does not visit it.
func (r *Router) BusyCycles() uint64 { return r.ticks }

// BufferedFlitCycles is the flits the router has held so far, summed
// over the cycles it ran (each cycle's count after its sends): a window's
// difference over its cycles is the router's mean buffer occupancy in
// flits. A router holding a flit runs every cycle, so no cycle it held
// one is missed.
func (r *Router) BufferedFlitCycles() uint64 { return r.buffered }

// LinkVCFlits is the number of flits sent through output port p on its
// output VC vc so far.
// The count is kept in two parts (see send): the multiples of 256 in
// sentVC, the rest in the output port's line.
func (r *Router) LinkVCFlits(p mesh.Port, vc int) uint64 {
	return r.sentVC[int(p)*int(r.vcs)+vc] + uint64(r.out[p].sent[vc])
}

// sh is a shift count known to be below 64, as every count of the
// router's masks is: masked, it compiles to one shift instruction. Go
// defines counts of 64 and more (the result is 0), which x86 would wrap,
// so an unmasked variable shift costs a compare and two more
// instructions, and these shifts are on every flit's path.
func sh(n int) uint { return uint(n) & 63 }

// sh16 is a shift count of a mask over one port's VCs (a uint16; VCs <=
// MaxVCs < 16), masked for the same reason: such a mask is shifted in a
// 32-bit register, which wraps counts of 32 and more.
func sh16(n int) uint { return uint(n) & 15 }

// portOf is the port of input VC k (port*VCs+vc), k < 64.
func (r *Router) portOf(k int) mesh.Port { return mesh.Port(uint(k) * uint(r.vdiv) >> 15) }

// vcOf is the VC index within its port of input VC k.
func (r *Router) vcOf(k int) int { return k - int(r.portOf(k))*int(r.vcs) }

// inVC is input VC i of port p.
func (r *Router) inVC(p mesh.Port, i int) *inVC { return &r.ivc[int(p)*int(r.vcs)+i] }

// Tick runs one router cycle: receive, route, allocate VCs, allocate the
// switch and send. It returns the next cycle it has work in.
func (r *Router) Tick(now des.Time) des.Time {
	r.tickedAt = now
	r.ticks++
	r.receive(now)
	if r.routeMask != 0 {
		r.route(now)
	}
	if r.alloc < allocISLIP {
		if r.waitMask != 0 {
			r.allocVCs(now)
		}
		if r.activeMask != 0 {
			r.allocSwitch(now)
		}
	} else {
		r.allocGeneral(now)
	}
	r.buffered += uint64(r.flits)
	if r.flits > 0 {
		return now + 1
	}
	if q := r.sig[(now+1)&(dueSlots-1)] & r.quickCredits; q != 0 {
		r.creditEarly(now, q)
	}
	next := des.Never
	for d := des.Time(1); d < dueSlots; d++ {
		if r.sig[(now+d)&(dueSlots-1)] != 0 {
			next = now + d
			break
		}
	}
	for m := r.sig[dueSlots]; m != 0; m &= m - 1 {
		if k := bits.TrailingZeros16(m); k >= 8 {
			next = min(next, r.out[k-8].credits.Next())
		} else {
			next = min(next, r.in[k].flits.Next())
		}
	}
	return next
}

// attach makes the router the consumer of its input channels, and sizes
// the buffers of all the channels at its ports for the most they can hold:
// at most a cycle's sends (the sender's width) in each of the latency+1
// cycles between a send and the consumer's tick that takes it, and never
// more than the credits allow (VCs*vc_buf of flits, or of credits). The
// NIU may free ejection slots in bulk, so its credits get the credit bound.
func (r *Router) attach() {
	s := r.spec
	credits := s.VCs * s.VCBuf
	for p := range mesh.Port(r.np) {
		in, out := &r.in[p], &r.out[p]
		if c := in.flits; c != nil {
			c.wake, c.sig, c.bit = r.id, &r.sig, 1<<p
			c.Reserve(min(credits, (int(c.lat)+1)*int(in.width)))
		}
		if c := out.credits; c != nil {
			c.wake, c.sig, c.bit = r.id, &r.sig, 1<<(8+p)
			w := s.linkWidth()
			if p.IsLocal() {
				w = credits
			}
			c.Reserve(min(credits, (int(c.lat)+1)*w))
		}
		if c := out.flits; c != nil && p.IsLocal() {
			c.Reserve(min(credits, (int(c.lat)+1)*int(out.width)))
		}
		if c := in.credits; c != nil && p.IsLocal() {
			// The NIU leaves credits in the channel while it has
			// nothing to send, so it may hold all of them.
			c.Reserve(credits)
		}
	}
}
