package endpoint

import (
	"fmt"
	"strings"

	"nocsim/des"
	"nocsim/router"
)

// NIU is a tile's network interface unit. It injects the messages queued at
// it, in order, up to inject_flits_per_cycle flits per cycle, each message
// holding one of the router's local virtual channels from head to tail; it
// consumes arriving flits up to eject_flits_per_cycle per cycle and returns
// their credits. A message (a DMA block included) streams at the narrowest
// of these and the network's link_flits_per_cycle (router.Spec.StreamWidth):
// at the defaults the router passes one flit of a VC per cycle, however
// many the NIU offers; at link_flits_per_cycle = 2, SCMP's two flits per
// processor cycle, the whole path moves two.
type NIU struct {
	// The fields every tick uses come first, in about the order it uses
	// them, so that a tick touches few cache lines: a large mesh's
	// components do not fit the caches together, and a tick's cost is
	// mostly the lines it brings in.
	lp     router.LocalPort
	credit []int16 // ic.Count, per local-input VC
	ic     *router.InjectCredits
	fab    *Fabric
	cur    int32 // message being injected, -1 if none
	curVC  int8
	// injWait is set when injection stopped for want of a credit: the
	// NIU then sleeps until one arrives instead of looking every cycle.
	injWait  bool
	curSynth bool
	curIdx   int32
	// What the message's flits need, copied from its record at its head
	// so that they need not look it up.
	curLen    int32
	curDst    uint32 // destination address (the second flit)
	curSrc    uint32 // next source word (DMA)
	curStride uint32 // source stride (DMA)
	inW       int
	curWords  []uint32 // the words of a processor-built message
	rd        cursor   // the DMA engine's hold on the source block
	ejN       int
	ej        []ejVC
	wr        []cursor // per ejection VC: the destination block of its message
	ejRR      int
	ejW       int
	paused    bool
	ejBlocked bool // arriving THREAD messages wait for a thread context
	id        int32
	pend      ring  // messages admitted to the NIU, in order
	node      *Node // the tile's processor, if any

	Injected uint64 // flits sent
	Ejected  uint64 // flits consumed

	Mem  Memory
	Name string
	Node int

	cap    int
	back   ring // processor-side source queue, unbounded
	queued int  // flits of processor-built messages in pend
	vcRR   int

	ejHandler []uint32   // per ejection VC: the THREAD message being received
	ejArgs    [][]uint32 // and its arguments so far
}

type ejVC struct {
	buf  []router.Flit
	head int
	n    int
}

// ring is a growable FIFO of packet ids.
type ring struct {
	buf  []int32
	head int
	n    int
}

func (r *ring) push(v int32) {
	if r.n == len(r.buf) {
		nb := make([]int32, max(8, 2*len(r.buf)))
		k := copy(nb, r.buf[r.head:])
		copy(nb[k:], r.buf[:r.head])
		r.buf, r.head = nb, 0
	}
	r.buf[wrap(r.head+r.n, len(r.buf))] = v
	r.n++
}

func (r *ring) front() int32 { return r.buf[r.head] }

func (r *ring) pop() int32 {
	v := r.buf[r.head]
	r.head = wrap(r.head+1, len(r.buf))
	r.n--
	return v
}

// wrap is i mod n for 0 <= i < 2n: the rings' indices advance by at most
// their length, and a compare costs less than a division by a variable.
func wrap(i, n int) int {
	if i >= n {
		i -= n
	}
	return i
}

func newNIU(f *Fabric, node int) *NIU {
	s := &f.Net.Spec
	n := &NIU{
		Name: "NIU" + f.Topo.Label(node),
		Node: node,
		Mem:  newMemory(f.Spec.MemoryWords),
		fab:  f,
		lp:   f.Net.Local[node],
		inW:  s.InjectWidth,
		ejW:  s.EjectWidth,
		cap:  f.Spec.QueueFlits,
		cur:  -1,
		ej:   make([]ejVC, s.VCs),
		wr:   make([]cursor, s.VCs),
	}
	n.ejHandler = make([]uint32, s.VCs)
	n.ejArgs = make([][]uint32, s.VCs)
	n.id = f.Eng.Register(n)
	n.ic = n.lp.Bind(n.id)
	n.credit = n.ic.Count[:s.VCs]
	for i := range n.credit {
		n.credit[i] = int16(s.VCBuf)
		n.ej[i].buf = make([]router.Flit, s.VCBuf)
	}
	// Credits returning on the channel (when the router does not count
	// them in place, InjectCredits.InPlace) wake the NIU only while it
	// has something to send (see next): one with nothing to send collects
	// them at its next tick, before it uses any, so collecting them late
	// changes nothing.
	n.lp.InjectCredit.SetWake(-1)
	n.lp.Eject.SetWake(n.id)
	return n
}

// Pause stops (true) or resumes (false) the consumption of arriving flits,
// as a processor with no free thread context would. Flits then back up into
// the network through credit flow control.
func (n *NIU) Pause(p bool) {
	n.paused = p
	if !p {
		n.fab.Eng.Activate(n.id)
	}
}

// enqueue hands a message to the NIU side. Processor-built messages
// (synthetic ones) wait in the source queue until the NIU has room for all
// of their flits; DMA messages stream from memory and need no room, but one
// issued after a built message that is still waiting queues behind it, so a
// tile's messages leave in the order the program issued them.
func (n *NIU) enqueue(p *Packet) {
	if p.built || n.back.n > 0 {
		n.back.push(p.ID)
		n.admit()
	} else {
		n.pend.push(p.ID)
	}
	n.fab.Eng.Activate(n.id)
}

// admit moves messages from the source queue into the NIU queue in order:
// a built message once the queue has room for it, a DMA message as soon as
// everything ahead of it has moved.
func (n *NIU) admit() {
	for n.back.n > 0 {
		p := n.fab.pkts.get(n.back.front())
		if p.built {
			l := int(p.Len)
			if n.queued+l > n.cap {
				return
			}
			n.queued += l
		}
		n.pend.push(n.back.pop())
	}
}

// Backlog is the number of messages waiting at this tile (source queue and
// NIU queue, the one being injected included).
func (n *NIU) Backlog() int {
	b := n.back.n + n.pend.n
	if n.cur >= 0 {
		b++
	}
	return b
}

// Tick injects and ejects; it returns the next cycle it has work in.
func (n *NIU) Tick(now des.Time) des.Time {
	n.ic.TickedAt = now
	if !n.ic.InPlace {
		// Credits come on the channel: a bus, or a longer credit
		// delay. (A field for the channel would take the NIU to the
		// next size class of the allocator.)
		c := n.lp.InjectCredit
		for c.Ready(now) {
			n.credit[c.Recv()]++
		}
	}
	// Arrived flits are taken after injecting: inject does not look at
	// the ejection buffers, so taking them before would change nothing.
	n.inject(now)
	ej := n.lp.Eject
	if n.ejN == 0 && ej.Ready(now) {
		// Dropped first, the flit stays in its slot: routers send only
		// in their ticks, so nothing writes over it during this one.
		f := ej.Front()
		ej.Drop()
		if !ej.Ready(now) && n.ejectOne(f, now) {
			return n.next(now)
		}
		n.buffer(f)
	}
	for ; ej.Ready(now); ej.Drop() {
		n.buffer(ej.Front())
	}
	if !n.paused {
		n.eject(now)
	}
	return n.next(now)
}

// next is the cycle the NIU next has work in, after a tick.
func (n *NIU) next(now des.Time) des.Time {
	sending := n.cur >= 0 || n.pend.n > 0
	if n.ic.Due != 0 {
		// Credits due next cycle, counted before this tick: the tick
		// is over, so they may join the count.
		n.ic.Fold()
		n.injWait = false
	}
	if sending && !n.injWait || n.ejN > 0 && !n.paused && !n.ejBlocked {
		return now + 1
	}
	next := n.lp.Eject.Next()
	n.ic.Wait = sending
	if sending {
		// Waiting for a credit: the next one wakes the NIU, whether it
		// is on its way now or sent later, or counted in place
		// (router.LocalPort.Bind).
		if !n.ic.InPlace {
			c := n.lp.InjectCredit
			c.SetWake(n.id)
			next = min(next, c.Next())
		}
		return next
	}
	if !n.ic.InPlace {
		n.lp.InjectCredit.SetWake(-1)
	}
	return next
}

// creditsHome is, per local-input VC, the NIU's credits counting those due
// next cycle (ic.Next) and those in its credit channel, on their way back
// or arrived: it collects them only when it has something to send.
func (n *NIU) creditsHome() []int {
	c := make([]int, len(n.credit))
	for i := range c {
		c[i] = int(n.credit[i]) + int(n.ic.Next[i])
	}
	for i := range n.lp.InjectCredit.Len() {
		c[n.lp.InjectCredit.At(i)]++
	}
	return c
}

func (n *NIU) inject(now des.Time) {
	n.injWait = false
	for sent := 0; sent < n.inW; {
		if n.cur < 0 {
			if n.pend.n == 0 {
				return
			}
			if !n.pickVC(n.fab.pkts.get(n.pend.front())) {
				n.injWait = true
				return
			}
			n.cur = n.pend.pop()
			n.curIdx = 0
		}
		if n.credit[n.curVC] == 0 {
			n.injWait = true
			return
		}
		// Built in the channel's buffer, not on the stack and copied.
		f := n.lp.InjectSlot(now, n.curVC)
		*f = router.Flit{Packet: n.cur, Index: n.curIdx, VC: n.curVC}
		switch {
		case n.curIdx == 0:
			p := n.fab.pkts.get(n.cur)
			f.Head = true
			f.Kind = p.Kind
			if p.Ordered {
				f.Kind |= KindOrdered
			}
			// From the topology, not a per-destination table: tables
			// would cost O(nodes^2) memory over the chip.
			dx, dy := n.fab.Topo.Offsets(n.Node, int(p.Dst))
			f.SetOffsets(dx, dy)
			f.Word = p.DstStride
			p.Sent = now
			n.curLen, n.curSynth = p.Len, p.Kind == KindSynth
			n.curDst, n.curSrc, n.curStride, n.curWords = p.DstAddr, p.SrcAddr, p.SrcStride, p.words
			if n.curSynth {
				f.Word = synthWord(n.cur, 0)
			}
		case n.curSynth:
			f.Word = synthWord(n.cur, n.curIdx)
		case n.curIdx == 1:
			f.Word = n.curDst
		case n.curWords != nil:
			f.Word = n.curWords[n.curIdx-2]
		default:
			// Read as the flit leaves, word by word: a program may
			// still be writing the block behind the DMA engine.
			f.Word = n.Mem.readAt(&n.rd, n.curSrc)
			n.curSrc += n.curStride
		}
		n.curIdx++
		tail := n.curIdx == n.curLen
		f.Tail = tail // f is not used past here: callbacks may send on the channel and move its buffer
		n.credit[n.curVC]--
		n.Injected++
		n.fab.Eng.Progress()
		sent++
		if tail {
			p := n.fab.pkts.get(n.cur)
			n.curWords = nil
			if p.built {
				n.queued -= int(p.Len)
				n.admit()
			}
			n.cur = -1
			if p.Xfer != nil {
				p.Xfer.Sent, p.Xfer.SentAt = true, now
			}
			if n.node != nil {
				n.node.poke()
			}
			if n.fab.OnSent != nil {
				n.fab.OnSent(p, now)
			}
		}
	}
}

// pickVC chooses, round-robin, a local-input VC with a free buffer slot for
// the next message's head. An ordered message always takes the VC its
// destination maps to, so that ordered messages to one tile queue behind
// each other all the way.
func (n *NIU) pickVC(p *Packet) bool {
	v := len(n.credit)
	if p.Ordered {
		i := int(p.Dst) % v
		if n.credit[i] == 0 {
			return false
		}
		n.curVC = int8(i)
		return true
	}
	for k, i := 0, n.vcRR; k < v; k++ {
		if n.credit[i] > 0 {
			n.curVC = int8(i)
			n.vcRR = wrap(i+1, v)
			return true
		}
		i = wrap(i+1, v)
	}
	return false
}

func (n *NIU) eject(now des.Time) {
	v := len(n.ej)
	n.ejBlocked = false
	for got := 0; got < n.ejW && n.ejN > 0; got++ {
		took := false
		for k, i := 0, n.ejRR; k < v; k, i = k+1, wrap(i+1, v) {
			vc := &n.ej[i]
			if vc.n == 0 {
				continue
			}
			f := &vc.buf[vc.head]
			if f.Head && f.Kind&^KindOrdered == KindThread && n.node != nil && !n.node.reserveContext() {
				// No thread context: the message waits here, and
				// behind it its VC backs up into the network.
				continue
			}
			took = true
			// The slot is not refilled before consume returns: its
			// credit goes back now but arrives a cycle later at the
			// earliest, and new flits are taken only at a Tick.
			vc.head = wrap(vc.head+1, len(vc.buf))
			vc.n--
			n.ejN--
			n.ejRR = wrap(i+1, v)
			n.lp.ReturnEjectCredit(now, i)
			n.Ejected++
			n.fab.Eng.Progress()
			n.fab.consume(n, f, now)
			break
		}
		if !took {
			n.ejBlocked = true
			return
		}
	}
}

// buffer copies an arrived flit from the channel's buffer straight into
// its VC's.
func (n *NIU) buffer(f *router.Flit) {
	vc := &n.ej[f.VC]
	if vc.n == len(vc.buf) {
		panic(fmt.Sprintf("%s vc%d: ejection buffer overflow (credit protocol violated)", n.Name, f.VC))
	}
	vc.buf[wrap(vc.head+vc.n, len(vc.buf))] = *f
	vc.n++
	n.ejN++
}

// ejectOne consumes f, the only flit to have arrived, when the ejection
// buffers are empty, as eject would: where it is, in the channel's
// buffer, instead of copying it into its VC's buffer and out again. It
// reports false, having changed nothing, when eject would not take it:
// the NIU is paused, or f is the head of a THREAD message and no thread
// context is free.
func (n *NIU) ejectOne(f *router.Flit, now des.Time) bool {
	if n.paused || f.Head && f.Kind&^KindOrdered == KindThread && n.node != nil && !n.node.reserveContext() {
		return false
	}
	i := int(f.VC)
	n.ejBlocked = false
	n.ejRR = wrap(i+1, len(n.ej))
	n.lp.ReturnEjectCredit(now, i)
	n.Ejected++
	n.fab.Eng.Progress()
	n.fab.consume(n, f, now)
	return true
}

// contextFreed lets THREAD messages waiting for a context try again.
func (n *NIU) contextFreed() {
	if n.ejBlocked {
		n.ejBlocked = false
		n.fab.Eng.Activate(n.id)
	}
}

func (n *NIU) describe(b *strings.Builder) {
	if n.cur >= 0 {
		fmt.Fprintf(b, "  %s injecting %s at flit %d on vc%d (credits %v)\n", n.Name, n.fab.pkts.name(n.cur), n.curIdx, n.curVC, n.credit)
	}
	if q := n.pend.n + n.back.n; q > 0 {
		fmt.Fprintf(b, "  %s: %d message(s) queued\n", n.Name, q)
	}
	if n.ejN > 0 {
		state := "draining"
		if n.paused {
			state = "paused: the processor is not accepting messages"
		}
		fmt.Fprintf(b, "  %s: %d flit(s) waiting to be ejected, %s\n", n.Name, n.ejN, state)
	}
}
