package router

import (
	"fmt"
	"strings"

	"nocsim/des"
	"nocsim/mesh"
)

// What a router reports about itself, off the hot path: the panics for a
// broken credit protocol, the flits and credits in flight that the
// conservation checks count, and the description of stuck VCs that a
// deadlock report prints.

// stateNames are the VC states (vcIdle .. vcActive) as reports name them.
var stateNames = [...]string{"idle", "routing", "waiting for an output VC", "active"}

// overflow reports a flit arriving at a full input VC, which the credits
// should have made impossible.
func (r *Router) overflow(p mesh.Port, vc int8) {
	panic(fmt.Sprintf("%s in %v vc%d: buffer overflow (credit protocol violated)", r.Name, p, vc))
}

// collide reports two flits arriving on ring link p in one cycle, which a
// link one flit wide cannot carry.
func (r *Router) collide(p mesh.Port, at des.Time) {
	panic(fmt.Sprintf("%s in %v: two flits arrive in cycle %d", r.Name, p, at))
}

// Ports is the number of the router's ports: mesh.NumPorts, or more on a
// concentrated mesh (its further local ports, mesh.LocalPort).
func (r *Router) Ports() int { return int(r.np) }

// InFlight is the number of flits on their way to input port p: sent by
// the upstream router or the NIU, not yet arrived.
func (r *Router) InFlight(p mesh.Port) int {
	n := 0
	for vc := range int(r.vcs) {
		n += r.linkFlits(p, vc)
	}
	return n
}

// BufferedAt is the number of flits held in input port p's buffers.
func (r *Router) BufferedAt(p mesh.Port) int {
	n := 0
	for i := range int(r.vcs) {
		n += int(r.inVC(p, i).n)
	}
	return n
}

// linkFlits is the number of flits on VC vc on their way to input port p.
func (r *Router) linkFlits(p mesh.Port, vc int) int {
	c := 0
	if l := r.in[p].flits; l != nil {
		for i := range l.Len() {
			if int(l.At(i).VC) == vc {
				c++
			}
		}
		if p == mesh.Local {
			c += r.injFlits(vc)
		}
		return c
	}
	for s, lvc := range r.in[p].lvc {
		if r.in[p].lfull&(1<<s) != 0 && int(lvc) == vc {
			c++
		}
	}
	return c
}

// injFlits is the number of flits on local-input VC vc (all of them if vc
// is negative) that the NIU has written straight into their slots
// (LocalPort.InjectSlot) and that have yet to arrive.
func (r *Router) injFlits(vc int) int {
	c := 0
	for s, n := range r.inj.n {
		for _, v := range r.inj.vc[s][:n] {
			if vc < 0 || int(v) == vc {
				c++
			}
		}
	}
	return c
}

// linked reports whether output port p has a link (it is not on an edge).
func (r *Router) linked(p mesh.Port) bool { return r.out[p].flits != nil || r.out[p].down != nil }

// creditsBack is the number of credits for VC vc on their way back to
// output port p.
func (r *Router) creditsBack(p mesh.Port, vc int) int {
	op := &r.out[p]
	if op.credits != nil {
		c := 0
		for i := range op.credits.Len() {
			if int(op.credits.At(i)) == vc {
				c++
			}
		}
		return c
	}
	c := 0
	for _, b := range op.back {
		c += int(b[vc])
	}
	return c
}

// describe reports every input VC that holds flits, and why it is stuck.
func (r *Router) describe(now des.Time, b *strings.Builder, pktName func(int32) string) {
	v := r.spec.VCs
	for p := range mesh.Port(r.np) {
		for i := range v {
			vc := r.inVC(p, i)
			if vc.n == 0 {
				continue
			}
			f := r.front(vc)
			fmt.Fprintf(b, "  %s in %v vc%d: %d flit(s), front is flit %d of %s, %s", r.Name, p, i, vc.n, f.Pos(), pktName(f.Packet), stateNames[vc.state])
			if vc.state == vcActive || vc.state == vcWaitVC {
				fmt.Fprintf(b, " -> out %v", vc.out)
			}
			switch {
			case vc.state == vcWaitVC:
				b.WriteString("; all output VCs held by:")
				for k := range v {
					if r.out[vc.out].held&(1<<k) != 0 {
						fmt.Fprintf(b, " vc%d<-%s", k, r.ownerName(vc.out, k))
					}
				}
			case vc.state == vcActive && r.out[vc.out].credit[vc.outVC] == 0:
				fmt.Fprintf(b, " vc%d; no credit (downstream buffer full)", vc.outVC)
			case vc.state == vcActive:
				fmt.Fprintf(b, " vc%d", vc.outVC)
			}
			fmt.Fprintf(b, "; age %d cycles\n", now-vc.since)
		}
	}
}

// ownerName names the input VC holding output VC c of port p ("W vc1"),
// the one active with it: the router keeps no owner per output VC, as
// only reports ask.
func (r *Router) ownerName(p mesh.Port, c int) string {
	for k := range r.ivc {
		if vc := &r.ivc[k]; vc.state == vcActive && vc.out == p && int(vc.outVC) == c {
			return fmt.Sprintf("%v vc%d", r.portOf(k), r.vcOf(k))
		}
	}
	return "none"
}
