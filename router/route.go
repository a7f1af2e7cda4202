package router

import (
	"fmt"
	"math/bits"

	"nocsim/des"
	"nocsim/mesh"
)

// route advances heads through route computation. The routing function
// sees only the offsets in the head flit.
func (r *Router) route(now des.Time) {
	for m := r.routeMask; m != 0; m &= m - 1 {
		k := bits.TrailingZeros64(m)
		vc := &r.ivc[k]
		if vc.state == vcIdle {
			f := r.front(vc)
			if !f.Head {
				panic(fmt.Sprintf("%s in %v vc%d: body flit of packet %d without a head", r.Name, r.portOf(k), r.vcOf(k), f.Packet))
			}
			var port mesh.Port
			dx, dy := f.Offsets()
			vc.mask = 1<<sh16(int(r.vcs)) - 1
			vc.want = -1
			if f.Kind&KindOrdered != 0 {
				vc.want = int8(r.vcOf(k))
			}
			switch {
			case r.alloc&allocAdaptive != 0:
				port, dx, dy = r.routeAdaptive(k, vc, dx, dy)
			case r.cls == nil:
				port, dx, dy = r.topo.Route(dx, dy)
			default:
				var c int
				port, dx, dy, c = r.cls.RouteClass(dx, dy)
				r.restrict(vc, c)
			}
			f.SetOffsets(dx, dy)
			vc.out = port
			vc.state = vcRouting
			vc.ready = now + r.spec.RouteDelay
			vc.since = now
		}
		if now >= vc.ready {
			vc.state = vcWaitVC
			r.routeMask &^= 1 << sh(k)
			r.waitMask |= 1 << sh(k)
		}
	}
}

// restrict limits a routed head to VC class c of its output port: the
// lower half of the VCs for class 0, the upper half for class 1, any for
// -1. An ordered head keeps its VC index within the class (mod the half,
// plus the class's base), so that packets on one path still take the same
// VC at every hop and cannot overtake one another.
func (r *Router) restrict(vc *inVC, c int) {
	if c < 0 {
		return
	}
	base := c * r.half
	vc.mask = (1<<sh16(r.half) - 1) << sh16(base)
	if vc.want >= 0 {
		vc.want = int8(base + int(vc.want)%r.half)
	}
}
