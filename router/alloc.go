package router

import (
	"math/bits"

	"nocsim/des"
	"nocsim/mesh"
)

// maxSwitchReqs bounds the switch requests one output gets in a cycle:
// each input puts at most its width of requests, so all of them at most
// the inputs' widths summed (4 links at 16 flits and a local port at 16;
// Spec.Validate keeps every spec within it).
const maxSwitchReqs = 4*16 + 16

// allocVCs grants free output VCs to waiting heads, round-robin per output
// port over the requesting input VCs. Which free VC a head gets is the
// vc_alloc policy: round_robin starts from a per-output-port pointer moved
// past each grant, so that successive packets spread over the VCs; lowest
// takes the lowest free one, which piles traffic onto VC0 and leaves the
// higher VCs as overflow. An ordered head (KindOrdered) keeps its VC index
// under either policy. A head may take only the output VCs of its class
// (inVC.mask, set by route): all of them on a mesh, one half on a ring,
// where the dateline's classes keep the channel dependencies acyclic.
//
// The requests for one output are the set bits of a mask over input-VC
// indices, taken in round-robin order: from the output's pointer (vaRR)
// up, then from 0 below it. The pointer moves past each grant, but the
// order of this cycle's requests is fixed at the start, as a hardware
// arbiter's would be. Free output VCs are the clear bits of the output's
// held mask, so each grant is a count of trailing zeros.
func (r *Router) allocVCs(now des.Time) {
	v := int(r.vcs)
	var req [mesh.MaxPorts]uint64
	var outs uint8
	for m := r.waitMask; m != 0; m &= m - 1 {
		k := bits.TrailingZeros64(m)
		o := r.ivc[k].out
		req[o] |= 1 << sh(k)
		outs |= 1 << sh(int(o))
	}
	all := uint16(1)<<sh16(v) - 1
	const total = inVCBits
	for ; outs != 0; outs &= outs - 1 {
		o := bits.TrailingZeros8(outs)
		op := &r.out[o]
		m := req[o]
		if op.held == all {
			// Every output VC is held: each request stalls.
			r.stalls.VCStalls += uint64(bits.OnesCount64(m))
			continue
		}
		below := m & (1<<sh(int(op.vaRR)) - 1)
		for _, part := range [2]uint64{m &^ below, below} {
			for ; part != 0; part &= part - 1 {
				q := bits.TrailingZeros64(part)
				vc := &r.ivc[q]
				free := ^op.held & all & vc.mask
				grant := -1
				switch {
				case vc.want >= 0:
					if free&(1<<sh16(int(vc.want))) != 0 {
						grant = int(vc.want)
					}
				case free == 0:
				case r.alloc&allocKindMask == allocGreedyRotate:
					// The first free VC at or after the pointer,
					// wrapping round.
					if up := free >> sh16(int(op.vcRR)) << sh16(int(op.vcRR)); up != 0 {
						grant = bits.TrailingZeros16(up)
					} else {
						grant = bits.TrailingZeros16(free)
					}
				default:
					grant = bits.TrailingZeros16(free)
				}
				if grant < 0 {
					r.stalls.VCStalls++
					continue
				}
				op.held |= 1 << sh16(grant)
				if op.vcRR = uint8(grant + 1); int(op.vcRR) == v {
					op.vcRR = 0
				}
				vc.outVC = int8(grant)
				vc.state = vcActive
				vc.ready = now + r.spec.VCAllocDelay
				r.stalls.VCAllocs++
				r.waitMask &^= 1 << sh(q)
				r.activeMask |= 1 << sh(q)
				if op.vaRR = uint8(q + 1); int(op.vaRR) == total {
					op.vaRR = 0
				}
			}
		}
	}
}

// allocSwitch is a separable input-first allocator: each input port picks up
// to its width of flits from its ready VCs, round-robin over the VCs and at
// most link_flits_per_cycle from any one VC; then each output port grants up
// to its width of those requests round-robin. A VC asking for several flits
// puts one request per flit, adjacent, so an output that grants only some
// of them sends the VC's first flits.
//
// The input stage walks only the port's active VCs that hold flits (set
// bits of activeMask & fullMask; an empty VC could not send anyway), from
// the port's pointer up and then from 0, which is the order of a
// round-robin arbiter over all of them. The output stage visits
// only outputs with requests (a mask), in port order. An output's
// requests are kept in the order the inputs made them: ascending by input
// port, and within a port in that port's round-robin order, so not always
// ascending by input-VC index; the output's arbiter starts at the first
// request (in that order) at or after its pointer and wraps round.
func (r *Router) allocSwitch(now des.Time) {
	if act := r.activeMask & r.fullMask; act&(act-1) == 0 && !r.general {
		// One VC (or none) can ask for the switch: its input and its
		// output both grant it whatever their pointers, so the request
		// lists are skipped. This is a packet streaming through a
		// router no other packet contends for, the commonest tick under
		// light load and in long messages.
		if act == 0 {
			return
		}
		k := bits.TrailingZeros64(act)
		vc := &r.ivc[k]
		if now < vc.ready {
			return
		}
		op := &r.out[vc.out]
		c := op.credit[vc.outVC]
		if c == 0 {
			r.stalls.CreditStall++
			return
		}
		if r.burst == 1 {
			r.send(now, k, op)
		} else {
			r.sendBurst(now, k, op, int(c))
		}
		op.granted(k, inVCBits)
		return
	}
	if act := r.activeMask & r.fullMask; r.burst == 1 && !r.general && act&r.localVCs&(act&r.localVCs-1) == 0 {
		r.allocSwitchOne(now, act)
		return
	}
	v := int(r.vcs)
	all := uint64(1)<<sh(v) - 1
	burst := int(r.burst)
	var outs uint8
	// Visit only the ports with active VCs holding flits, in port order.
	for rest := r.activeMask & r.fullMask; rest != 0; {
		p := r.portOf(bits.TrailingZeros64(rest))
		base := int(p) * v
		pm := (rest >> sh(base)) & all
		rest &^= all << sh(base)
		ip := &r.in[p]
		picked := 0
		// The port's active VCs from its pointer up, then from 0: the
		// mask rotated right by the pointer, walked from its low bit.
		rr := int(ip.rr)
		rot := (pm>>sh(rr) | pm<<sh(v-rr)) & all
		for ; rot != 0 && picked < int(ip.width); rot &= rot - 1 {
			i := bits.TrailingZeros64(rot) + rr
			if i >= v {
				i -= v
			}
			vc := &r.ivc[base+i]
			if now < vc.ready {
				continue
			}
			o := vc.out
			c := r.out[o].credit[vc.outVC]
			if c == 0 {
				r.stalls.CreditStall++
				continue
			}
			n := 1
			if burst > 1 {
				n = r.burstLen(vc, min(burst, int(ip.width)-picked, int(c)))
			}
			k := int8(base + i)
			at := int(o)*r.saStride + int(r.saN[o])
			for j := range n {
				r.saQ[at+j] = k
			}
			r.saN[o] += uint8(n)
			picked += n
			outs |= 1 << sh(int(o))
		}
	}
	const total = inVCBits
	for ; outs != 0; outs &= outs - 1 {
		o := bits.TrailingZeros8(outs)
		op := &r.out[o]
		n := int(r.saN[o])
		r.saN[o] = 0
		q0 := int(o) * r.saStride
		if n == 1 {
			// A lone request: the arbiter grants it whatever its pointer.
			q := int(r.saQ[q0])
			r.send(now, q, op)
			op.granted(q, total)
			continue
		}
		reqs := r.saQ[q0 : q0+n]
		start := 0
		for start < n && int(reqs[start]) < int(op.saRR) {
			start++
		}
		if start == n {
			start = 0
		}
		for j, at := 0, start; j < n; j++ {
			if j == int(op.width) {
				r.stalls.SwitchStall += uint64(n - j)
				break
			}
			q := int(reqs[at])
			if at++; at == n {
				at = 0
			}
			r.send(now, q, op)
			op.granted(q, total)
		}
	}
}

// granted moves output op's switch arbiter past its grant to input VC q,
// of total input VCs.
func (op *outPort) granted(q, total int) {
	if op.saRR = uint8(q + 1); int(op.saRR) == total {
		op.saRR = 0
	}
}

// sendBurst is allocSwitch's lone VC k when links are wider than a flit:
// it sends its input's width of flits at most (and c, its credits), as in
// the input stage; the output sends its width of them and the rest lose
// the switch this cycle.
func (r *Router) sendBurst(now des.Time, k int, op *outPort, c int) {
	vc := &r.ivc[k]
	n := r.burstLen(vc, min(int(r.burst), int(r.in[r.portOf(k)].width), c))
	sent := min(n, int(op.width))
	for range sent {
		r.send(now, k, op)
	}
	r.stalls.SwitchStall += uint64(n - sent)
}

// allocSwitchOne is allocSwitch when every input port puts at most one
// request: links one flit wide (so every link port is one flit wide) and
// at most one local VC asking. Each output's requests are then in
// ascending order of input-VC index, as the list of the general path
// would hold them, so a mask per output replaces the list: the arbiter's
// order from its pointer is the mask's bits at or above the pointer, then
// those below. The grants, their order and the stall counts are the
// general path's (TestSwitchFastPathsChangeNothing).
func (r *Router) allocSwitchOne(now des.Time, act uint64) {
	v := int(r.vcs)
	all := uint64(1)<<sh(v) - 1
	var req [mesh.MaxPorts]uint64
	var outs uint8
	for rest := act; rest != 0; {
		p := r.portOf(bits.TrailingZeros64(rest))
		base := int(p) * v
		pm := (rest >> sh(base)) & all
		rest &^= all << sh(base)
		// The port's first VC, from its pointer round, that is past its
		// stage delay and has a credit. (Every port is at least one
		// flit wide: Spec.Validate.)
		rr, rot := 0, pm
		if pm&(pm-1) != 0 {
			rr = int(r.in[p].rr)
			rot = (pm>>sh(rr) | pm<<sh(v-rr)) & all
		}
		for ; rot != 0; rot &= rot - 1 {
			i := bits.TrailingZeros64(rot) + rr
			if i >= v {
				i -= v
			}
			vc := &r.ivc[base+i]
			if now < vc.ready {
				continue
			}
			o := vc.out
			if r.out[o].credit[vc.outVC] == 0 {
				r.stalls.CreditStall++
				continue
			}
			req[o] |= 1 << sh(base+i)
			outs |= 1 << sh(int(o))
			break
		}
	}
	const total = inVCBits
	for ; outs != 0; outs &= outs - 1 {
		o := bits.TrailingZeros8(outs)
		op := &r.out[o]
		m := req[o]
		if m&(m-1) == 0 {
			// A lone request: the arbiter grants it whatever its pointer.
			q := bits.TrailingZeros64(m)
			r.send(now, q, op)
			rr := uint8(q + 1)
			if rr == total {
				rr = 0
			}
			op.saRR = rr
			continue
		}
		hi := m >> sh(int(op.saRR)) << sh(int(op.saRR))
		left := int(op.width)
		for _, part := range [2]uint64{hi, m &^ hi} {
			for ; part != 0; part &= part - 1 {
				if left == 0 {
					r.stalls.SwitchStall += uint64(bits.OnesCount64(part))
					break
				}
				left--
				q := bits.TrailingZeros64(part)
				r.send(now, q, op)
				rr := uint8(q + 1)
				if rr == total {
					rr = 0
				}
				op.saRR = rr
			}
		}
	}
}
