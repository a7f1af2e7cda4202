package router

import (
	"math/bits"

	"nocsim/des"
	"nocsim/mesh"
)

// BookSim2's allocators (allocator = islip or separable_input_first): the
// matchings of match.go between input and output VCs for VC allocation and
// between input and output ports for the switch, numbered as BookSim
// numbers its router's ports (matchState.rank), so that the round-robin
// pointers start and turn as BookSim's do.

// matchState is the allocators' round-robin pointers: per output VC and
// per input VC for VC allocation (indices rank*VCs+vc), per output and
// per input port for the switch (ranks); and the ranks themselves.
type matchState struct {
	vaGrant, vaAccept [inVCBits]uint8
	swGrant, swAccept [mesh.MaxPorts]uint8
	// rank is a port's place in BookSim's router: in a k-ary n-mesh's,
	// +x (East), -x (West), +y (South here, row numbers growing
	// southward), -y (North), then injection and ejection; in a cmesh's,
	// the local ports first (mesh.LocalPort order), then +x, -x, +y, -y.
	// port is its inverse, np the ports.
	rank [mesh.MaxPorts]uint8
	port [mesh.MaxPorts]mesh.Port
	np   int
}

func newMatchState(np int) *matchState {
	ms := &matchState{np: np}
	links := []mesh.Port{mesh.East, mesh.West, mesh.South, mesh.North}
	var order []mesh.Port
	if np == int(mesh.NumPorts) {
		order = append(links, mesh.Local)
	} else {
		for i := range np - 4 {
			order = append(order, mesh.LocalPort(i))
		}
		order = append(order, links...)
	}
	for k, p := range order {
		ms.rank[p], ms.port[k] = uint8(k), p
	}
	return ms
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
	ms := r.matched
	n := ms.np * v
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
		i := int(ms.rank[r.portOf(k)])*v + r.vcOf(k)
		reqK[i] = int8(k)
		base := int(ms.rank[vc.out]) * v
		req[i] = uint64(free) << sh(base)
		for f := free; f != 0; f &= f - 1 {
			reqT[base+bits.TrailingZeros16(f)] |= 1 << sh(i)
		}
	}
	var in [64]int8
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
		r.stalls.VCAllocs++
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
	var pick [mesh.MaxPorts][mesh.MaxPorts]int8 // [input rank][output rank] -> input VC
	ms := r.matched
	eligible := 0
	for rest := r.activeMask & r.fullMask; rest != 0; {
		p := r.portOf(bits.TrailingZeros64(rest))
		base := int(p) * v
		pm := (rest >> sh(base)) & all
		rest &^= all << sh(base)
		ri := int(ms.rank[p])
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
			ro := int(ms.rank[vc.out])
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
	n := ms.np
	var in [mesh.MaxPorts]int8
	r.match(&req, &reqT, n, ms.swGrant[:n], ms.swAccept[:n], in[:n])
	for ri, ro := range in[:n] {
		if ro < 0 {
			continue
		}
		r.send(now, int(pick[ri][ro]), &r.out[ms.port[ro]])
		eligible--
	}
	r.stalls.SwitchStall += uint64(eligible)
}
