package router

import (
	"math/bits"

	"nocsim/des"
	"nocsim/mesh"
)

// send moves the flit at the front of input VC k through the switch to
// output op (the output of its VC): its credit goes back upstream and the
// flit forward, through rings when the links have them (inPort.up,
// outPort.down) and Pipes otherwise, waking each receiver that is asleep
// for the arrival cycle, as Pipe.slot would.
func (r *Router) send(now des.Time, k int, op *outPort) {
	ip := &r.in[r.portOf(k)]
	i := r.vcOf(k)
	vc := &r.ivc[k]
	// The flit is copied once, from its slot straight into the output
	// channel (see Pipe.slot), and its slot is then released.
	f := &r.store[vc.base+int32(vc.head)]
	if op.traced {
		r.trace(r.node, r.portOf(k), vc.out, *f)
	}
	// The wrap-arounds below are computed in locals before the store,
	// so that they compile to conditional moves: with two VCs each wraps
	// every other flit, which no branch predictor guesses well.
	rr := i + 1
	if rr == int(r.vcs) {
		rr = 0
	}
	ip.rr = int16(rr)
	// The credit goes back, and the flit forward, through rings when
	// the links have them (inPort.up, outPort.down), each waking its
	// receiver for the arrival cycle as Pipe.slot would. Written out
	// here, not in calls of their own: nearly every flit takes these
	// paths, and such calls are not inlined.
	if up := ip.up; up != nil {
		if ip.upLat == 1 && !r.general && (!r.eng.Ticking(ip.upID) || ip.upR.tickedAt == now) {
			// The upstream router is asleep or has ticked in this
			// cycle, so the earliest it can tick is the next, the
			// credit's arrival: counting the credit now is counting
			// it on time, and it needs no tick of its own. (Asleep,
			// it holds no flits, so it needs no wake-up for it.)
			// Whichever order the engine visits tickers in: busy, it
			// ticks in every cycle, so it has ticked in this one if
			// and only if its last tick is now.
			up.credit[i]++
		} else {
			at := now + des.Time(ip.upLat)
			up.back[at&(creditSlots-1)][i]++
			s := &ip.upR.sig
			old := s[at&(dueSlots-1)]
			s[at&(dueSlots-1)] = old | ip.upBit
			if old == 0 && !r.eng.Ticking(ip.upID) {
				r.eng.Wake(ip.upID, at)
			}
		}
	} else if c := ip.niu; c != nil && !r.general {
		// An injection credit (see LocalPort.Bind): counted now if
		// the NIU is asleep or has ticked in this cycle, as above, and
		// otherwise left for it to fold in at the end of its tick.
		if !r.eng.Ticking(c.id) {
			c.Count[i]++
			if c.Wait {
				r.eng.Wake(c.id, now+1)
			}
		} else if c.TickedAt == now {
			c.Count[i]++
		} else {
			c.Next[i]++
			c.Due |= 1 << sh(i)
		}
	} else {
		ip.credits.Send(now, int8(i))
	}
	// The output VC, read once: the stores below could alias it, so each
	// use would reload it, with a bounds check each time.
	oc := vc.outVC
	var out *Flit
	if d := op.down; d != nil {
		at := now + des.Time(op.lat)
		s, di := at&(linkSlots-1), op.downIn
		if di.lfull&(1<<s) != 0 {
			d.collide(mesh.Port(int(op.downVC)/int(r.vcs)), at)
		}
		di.lfull |= 1 << s
		di.lvc[s] = oc
		old := d.sig[at&(dueSlots-1)]
		d.sig[at&(dueSlots-1)] = old | op.downBit
		// The routers of a network share one engine, so r's is d's,
		// and d's id is in the port the flit arrives at (inPort.id).
		if old == 0 && !r.eng.Ticking(di.id) {
			r.eng.Wake(di.id, at)
		}
		// The flit goes straight into its slot downstream, past every
		// flit buffered or on its way there: the credit it was sent
		// with says that slot is free. The downstream router counts
		// it only when it arrives.
		dv := &d.ivc[int(op.downVC)+int(oc)]
		out = &d.store[dv.base+int32(dv.tail)]
		t := dv.tail + 1
		if t == d.depth {
			t = 0
		}
		dv.tail = t
	} else {
		out = op.flits.slot(now)
	}
	*out = *f
	out.VC = oc
	tail := f.Tail
	h := vc.head + 1
	if h == r.depth {
		h = 0
	}
	vc.head = h
	if vc.n--; vc.n == 0 {
		r.fullMask &^= 1 << sh(k)
	}
	r.flits--
	op.credit[oc]--
	r.countSent(op, oc)
	r.eng.Progress()
	vc.since = now
	if tail {
		r.release(k, vc, op, oc)
	}
}

// countSent counts a flit sent on output VC oc of op: in the output
// port's line, and every 256th in sentVC (see LinkVCFlits). Small enough
// to be inlined into send, as release is.
func (r *Router) countSent(op *outPort, oc int8) {
	if n := op.sent[oc] + 1; n != 0 {
		op.sent[oc] = n
	} else {
		op.sent[oc] = 0
		r.sentVC[int(op.sentAt)+int(oc)] += 256
	}
}

// release ends input VC k's packet when its tail has left: the output VC
// oc it held is free, and the VC routes its next packet if it holds one.
func (r *Router) release(k int, vc *inVC, op *outPort, oc int8) {
	op.held &^= 1 << sh16(int(oc))
	vc.state = vcIdle
	r.activeMask &^= 1 << sh(k)
	if vc.n > 0 {
		r.routeMask |= 1 << sh(k)
	}
}

// creditEarly counts, at the end of a tick that leaves no flit buffered,
// the credits arriving in the next cycle over the outputs in q (signal
// bits 8+p of quickCredits). Only switch allocation reads the counts, in
// a tick, and the router's next tick is the next cycle at the earliest,
// when these credits are due anyway. Such credits (those of the last
// flits of a packet, coming home after its tail left) would otherwise
// cost the router a tick of its own, unless none arrives later. The
// next cycle's slot holds only credits due then: the delay is below
// creditSlots. The general flag turns this off for the test that
// compares.
func (r *Router) creditEarly(now des.Time, q uint16) {
	if r.general {
		return
	}
	v := int(r.vcs)
	at := now + 1
	for cm := q >> 8; cm != 0; cm &= cm - 1 {
		r.out[bits.TrailingZeros16(cm)].collect(at, v)
	}
	r.sig[at&(dueSlots-1)] &^= q
}

// collect adds the credits in the slot of the back ring for cycle at to
// the port's counts, for its first v VCs, and empties the slot.
func (op *outPort) collect(at des.Time, v int) {
	b := &op.back[at&(creditSlots-1)]
	for i, n := range b[:v] {
		op.credit[i] += int16(n)
	}
	*b = [MaxVCs]uint8{}
}
