package router

import (
	"math/bits"

	"nocsim/des"
	"nocsim/mesh"
)

// BookSim2's allocators (allocator = islip or separable_input_first): the
// matchings of match.go between input and output VCs for VC allocation and
// between input and output ports for the switch, numbered as BookSim
// numbers a mesh router's ports (bookSimRank), so that the round-robin
// pointers start and turn as BookSim's do.

// bookSimRank is a port's place in BookSim's k-ary n-mesh router: +x
// (East), -x (West), +y (South here, row numbers growing southward), -y
// (North), then injection and ejection.
var bookSimRank = [mesh.NumPorts]uint8{mesh.East: 0, mesh.West: 1, mesh.South: 2, mesh.North: 3, mesh.Local: 4}

// bookSimPort is bookSimRank's inverse.
var bookSimPort = [mesh.NumPorts]mesh.Port{mesh.East, mesh.West, mesh.South, mesh.North, mesh.Local}

// matchState is the allocators' round-robin pointers: per output VC and
// per input VC for VC allocation (indices rank*VCs+vc), per output and
// per input port for the switch (ranks).
type matchState struct {
	vaGrant, vaAccept [int(mesh.NumPorts) * MaxVCs]uint8
	swGrant, swAccept [mesh.NumPorts]uint8
}

// match runs the router's allocator on req (and its transpose).
func (r *Router) match(req, reqT *[64]uint64, n int, gptr, aptr []uint8, in []int8) {
	if r.alloc&allocKindMask == allocISLIP {
		islip(req, reqT, n, n, gptr, aptr, in)
	} else {
		separableInputFirst(req, n, n, gptr, aptr, in)
	}
}

// allocVCsMatched is VC allocation as BookSim's VC allocator does it: each
// waiting head requests every output VC of its output port that is free
// and that it may take (its class's; its own index if ordered), and one
// matching pass decides. A head that requests nothing (every VC it may
// take is held) or is not matched waits, a VC stall either way.
func (r *Router) allocVCsMatched(now des.Time) {
	v := int(r.vcs)
	all := uint16(1)<<sh16(v) - 1
	var req, reqT [64]uint64
	var reqK [64]int8 // BookSim input-VC index -> this router's
	n := int(mesh.NumPorts) * v
	for m := r.waitMask; m != 0; m &= m - 1 {
		k := bits.TrailingZeros64(m)
		vc := &r.ivc[k]
		free := ^r.out[vc.out].held & all & vc.mask
		if vc.want >= 0 {
			free &= 1 << sh16(int(vc.want))
		}
		if free == 0 {
			r.stalls.VCStalls++
			continue
		}
		i := int(bookSimRank[r.portOf(k)])*v + r.vcOf(k)
		reqK[i] = int8(k)
		base := int(bookSimRank[vc.out]) * v
		req[i] = uint64(free) << sh(base)
		for f := free; f != 0; f &= f - 1 {
			reqT[base+bits.TrailingZeros16(f)] |= 1 << sh(i)
		}
	}
	var in [64]int8
	ms := r.matched
	r.match(&req, &reqT, n, ms.vaGrant[:n], ms.vaAccept[:n], in[:n])
	for i := range n {
		if req[i] == 0 {
			continue
		}
		j := int(in[i])
		if j < 0 {
			r.stalls.VCStalls++
			continue
		}
		k := int(reqK[i])
		vc := &r.ivc[k]
		c := j % v
		r.out[vc.out].held |= 1 << sh16(c)
		vc.outVC = int8(c)
		vc.state = vcActive
		vc.ready = now + r.spec.VCAllocDelay
		r.waitMask &^= 1 << sh(k)
		r.activeMask |= 1 << sh(k)
	}
}

// allocSwitchMatched is switch allocation as BookSim's switch allocator
// does it with speedup 1: an input port puts at most one request per
// output port, from the first of its VCs, in round-robin order from the
// VC after the last one it sent (inPort.rr, which send moves), that is
// past its stage delay, has a credit and has a flit for that output; one
// matching pass between input and output ports decides, and each matched
// pair sends one flit. Every ready VC with a credit that sends nothing is
// a switch stall.
func (r *Router) allocSwitchMatched(now des.Time) {
	v := int(r.vcs)
	all := uint64(1)<<sh(v) - 1
	var req, reqT [64]uint64
	var pick [mesh.NumPorts][mesh.NumPorts]int8 // [input rank][output rank] -> input VC
	eligible := 0
	for rest := r.activeMask & r.fullMask; rest != 0; {
		p := r.portOf(bits.TrailingZeros64(rest))
		base := int(p) * v
		pm := (rest >> sh(base)) & all
		rest &^= all << sh(base)
		ri := int(bookSimRank[p])
		rr := int(r.in[p].rr)
		rot := (pm>>sh(rr) | pm<<sh(v-rr)) & all
		for ; rot != 0; rot &= rot - 1 {
			i := bits.TrailingZeros64(rot) + rr
			if i >= v {
				i -= v
			}
			vc := &r.ivc[base+i]
			if now < vc.ready {
				continue
			}
			if r.out[vc.out].credit[vc.outVC] == 0 {
				r.stalls.CreditStall++
				continue
			}
			eligible++
			ro := int(bookSimRank[vc.out])
			if req[ri]&(1<<sh(ro)) != 0 {
				continue // an earlier VC in round-robin order asks for it
			}
			req[ri] |= 1 << sh(ro)
			reqT[ro] |= 1 << sh(ri)
			pick[ri][ro] = int8(base + i)
		}
	}
	if eligible == 0 {
		return
	}
	const n = int(mesh.NumPorts)
	var in [n]int8
	ms := r.matched
	r.match(&req, &reqT, n, ms.swGrant[:], ms.swAccept[:], in[:])
	for ri, ro := range in {
		if ro < 0 {
			continue
		}
		r.send(now, int(pick[ri][ro]), &r.out[bookSimPort[ro]])
		eligible--
	}
	r.stalls.SwitchStall += uint64(eligible)
}
