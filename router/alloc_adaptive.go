package router

import (
	"math/bits"

	"nocsim/des"
	"nocsim/mesh"
)

// allocGeneral is allocation for the routers Tick's short path does not
// serve: BookSim's allocators, or a routing that leaves heads a choice of
// port. A head with a choice (adaptMask) has its port picked before VC
// allocation, afresh each cycle it waits, and its offsets moved on once a
// VC is granted.
func (r *Router) allocGeneral(now des.Time) {
	greedy := r.alloc&allocKindMask < allocISLIP
	if r.waitMask != 0 {
		adapt := r.waitMask & r.adaptMask
		if adapt != 0 {
			r.chooseRoutes(adapt)
		}
		if greedy {
			r.allocVCs(now)
		} else {
			r.allocVCsMatched(now)
		}
		if adapt != 0 {
			r.fixRoutes(adapt)
		}
	}
	if r.activeMask != 0 {
		if greedy {
			r.allocSwitch(now)
		} else {
			r.allocSwitchMatched(now)
		}
	}
}

// routeAdaptive is route under routing west_first or adaptive: the port
// and onward offsets of a head with one way to go, or, for a head with a
// choice, its X port as a placeholder, its offsets left as they are and
// its bit set in adaptMask (chooseRoutes picks the port each cycle until
// a VC is granted, fixRoutes then moves the offsets on). Ordered heads
// (want set) go XY, so that they keep their order.
func (r *Router) routeAdaptive(k int, vc *inVC, dx, dy int) (mesh.Port, int, int) {
	if r.duato && r.vcOf(k) == 0 && r.portOf(k) != mesh.Local {
		// On the escape network (VC 0 of a link) a packet stays on it,
		// XY to its destination: one that left it and came back would
		// make the escape channels depend on one another through the
		// adaptive ones (Duato's indirect dependencies), and the escape
		// network would no longer be acyclic.
		vc.mask = 1
		return r.topo.Route(dx, dy)
	}
	if vc.want >= 0 || !mesh.Choice(r.spec.Routing, dx, dy) {
		return r.topo.Route(dx, dy)
	}
	r.adaptMask |= 1 << sh(k)
	x, _ := mesh.Productive(dx, dy)
	return x, dx, dy
}

// chooseRoutes is the selection function of the heads in m, each with two
// productive ports: the port with a free VC the head may take, the one
// whose free VCs have the most credits downstream if both have, X's (the
// XY route, on which VC 0 is the escape network under Duato's rule) on a
// tie or when neither has. Under routing = adaptive a head may take any VC
// of its X port but not VC 0 of its Y port: VC 0 carries only XY routes.
func (r *Router) chooseRoutes(m uint64) {
	all := uint16(1)<<sh16(int(r.vcs)) - 1
	my := all
	if r.duato {
		my = all &^ 1
	}
	for ; m != 0; m &= m - 1 {
		vc := &r.ivc[bits.TrailingZeros64(m)]
		x, y := mesh.Productive(r.front(vc).Offsets())
		fx, fy := ^r.out[x].held&all, ^r.out[y].held&my
		vc.out, vc.mask = x, all
		if fy != 0 && (fx == 0 || r.out[y].creditsOn(fy) > r.out[x].creditsOn(fx)) {
			vc.out, vc.mask = y, my
		}
	}
}

// creditsOn sums the credits of the output VCs in m.
func (op *outPort) creditsOn(m uint16) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n += int(op.credit[bits.TrailingZeros16(m)])
	}
	return n
}

// fixRoutes moves on the offsets of the heads in m that were granted a VC
// (now active) by the port chosen for them; the others choose again next
// cycle.
func (r *Router) fixRoutes(m uint64) {
	for ; m != 0; m &= m - 1 {
		k := bits.TrailingZeros64(m)
		vc := &r.ivc[k]
		if vc.state != vcActive {
			continue
		}
		f := r.front(vc)
		dx, dy := f.Offsets()
		f.SetOffsets(mesh.Step(vc.out, dx, dy))
		r.adaptMask &^= 1 << sh(k)
	}
}
