package router

import "nocsim/mesh"

// The reference router's adaptive routing (routing = west_first or
// adaptive), written from the docs' description with VC ranges where the
// router uses masks (alloc_adaptive.go).

func (r *refRouter) adaptive() bool {
	a := r.net.spec.Routing
	return a == mesh.RoutingWestFirst || a == mesh.RoutingAdaptive
}

// refRouteAdaptive: a head on VC 0 of a link under Duato's rule stays on
// the escape network (XY, VC 0 only); an unordered head with two
// productive ports waits for refChoose with its offsets as they are;
// every other head goes XY.
func (r *refRouter) refRouteAdaptive(k int, vc *refVC, dx, dy int) (mesh.Port, int, int) {
	v := r.net.spec.VCs
	vc.adapt = false
	if r.net.spec.Routing == mesh.RoutingAdaptive && k%v == 0 && mesh.Port(k/v) != mesh.Local {
		vc.lo, vc.hi = 0, 1
		return r.net.topo.Route(dx, dy)
	}
	if vc.want < 0 && mesh.Choice(r.net.spec.Routing, dx, dy) {
		vc.adapt = true
		x, _ := mesh.Productive(dx, dy)
		return x, dx, dy
	}
	return r.net.topo.Route(dx, dy)
}

// refChoose picks, for every waiting head with a choice, the productive
// port with a free VC it may take (any VC of its X port; under adaptive,
// VCs 1 and up of its Y port), the one whose free VCs hold more credits
// if both have one, X on a tie or when neither has.
func (r *refRouter) refChoose() {
	if !r.adaptive() {
		return
	}
	v := r.net.spec.VCs
	ylo := 0
	if r.net.spec.Routing == mesh.RoutingAdaptive {
		ylo = 1
	}
	free := func(p mesh.Port, lo int) (n, credits int) {
		for c := lo; c < v; c++ {
			if !r.out[p].held[c] {
				n++
				credits += r.out[p].credit[c]
			}
		}
		return n, credits
	}
	for k := range int(mesh.NumPorts) * v {
		vc := r.vc(k)
		if vc.state != vcWaitVC || !vc.adapt {
			continue
		}
		x, y := mesh.Productive(vc.buf[0].Offsets())
		nx, cx := free(x, 0)
		ny, cy := free(y, ylo)
		vc.out, vc.lo, vc.hi = x, 0, v
		if ny > 0 && (nx == 0 || cy > cx) {
			vc.out, vc.lo = y, ylo
		}
	}
}

// refFix moves on the offsets of the heads with a choice that were granted
// a VC this cycle, by the port chosen.
func (r *refRouter) refFix() {
	for k := range int(mesh.NumPorts) * r.net.spec.VCs {
		vc := r.vc(k)
		if vc.adapt && vc.state == vcActive {
			f := &vc.buf[0]
			dx, dy := f.Offsets()
			f.SetOffsets(mesh.Step(vc.out, dx, dy))
			vc.adapt = false
		}
	}
}
