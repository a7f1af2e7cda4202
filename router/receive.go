package router

import (
	"math/bits"

	"nocsim/des"
	"nocsim/mesh"
)

// receive takes the cycle's arrivals on the router's input and credit
// channels (the bits of sig due now, and those in flight on long ones):
// flits into their input VCs, credits into the outputs' counts.
func (r *Router) receive(now des.Time) {
	v := int(r.vcs)
	slot := &r.sig[now&(dueSlots-1)]
	m := r.sig[dueSlots] | *slot
	*slot = 0
	// Flits (bits 0-4, and injSig), then credits (bits 8-12), in separate
	// loops so that no branch has to guess which kind each channel is;
	// they touch disjoint state, so the order between them does not
	// matter.
	wide := r.alloc&allocWide != 0
	if m&injSig != 0 && !wide {
		// Flits the NIU wrote straight into their slots (see
		// LocalPort.InjectSlot): arriving is counting them, for as many
		// as it sent in one cycle, with accept's bookkeeping written
		// out as for a ring link below.
		s := now & (linkSlots - 1)
		n := int(r.inj.n[s])
		r.inj.n[s] = 0
		base := int(mesh.Local) * v
		for _, c := range r.inj.vc[s][:n] {
			k := base + int(c)
			vc := &r.ivc[k]
			if vc.n == 0 {
				vc.since = now
				r.fullMask |= 1 << sh(k)
				if vc.state == vcIdle {
					r.routeMask |= 1 << sh(k)
				}
			}
			if vc.n == r.depth {
				r.overflow(mesh.Local, c)
			}
			vc.n++
			r.flits++
		}
	}
	fm := m & (1<<mesh.NumPorts - 1)
	if wide {
		// A concentrated router's further local ports signal on bits
		// 5-7 (injSig among them: it injects no flits directly).
		fm = m & (1<<mesh.MaxPorts - 1)
	}
	for ; fm != 0; fm &= fm - 1 {
		p := mesh.Port(bits.TrailingZeros16(fm))
		ip := &r.in[p]
		if ip.flits == nil {
			// A ring link (an edge never signals): one flit arrives
			// in this cycle, already in its VC's ring (see send), so
			// arriving is counting it. accept's bookkeeping, written
			// out: nearly every flit takes this path, and the call is
			// not inlined.
			s := now & (linkSlots - 1)
			ip.lfull &^= 1 << s
			c := ip.lvc[s]
			k := int(p)*v + int(c)
			vc := &r.ivc[k]
			if vc.n == 0 {
				vc.since = now
				r.fullMask |= 1 << sh(k)
				if vc.state == vcIdle {
					r.routeMask |= 1 << sh(k)
				}
			}
			if vc.n == r.depth {
				r.overflow(p, c)
			}
			vc.n++
			r.flits++
			continue
		}
		for ip.flits.Ready(now) {
			r.accept(now, p, v, ip.flits.front())
			ip.flits.drop()
		}
		if ip.flits.n == 0 {
			r.sig[dueSlots] &^= 1 << p
		}
	}
	for cm := m >> 8; cm != 0; cm &= cm - 1 {
		p := bits.TrailingZeros16(cm)
		op := &r.out[p]
		if op.credits == nil {
			// A short credit delay: the signal bit says this cycle's
			// slot has some.
			op.collect(now, v)
			continue
		}
		for op.credits.Ready(now) {
			op.credit[op.credits.Recv()]++
		}
		if op.credits.n == 0 {
			r.sig[dueSlots] &^= 1 << (8 + p)
		}
	}
}

// accept moves an arriving flit from its channel straight into its slot
// in the input VC, with no copy on the stack (see Pipe.slot).
func (r *Router) accept(now des.Time, p mesh.Port, v int, f *Flit) {
	k := int(p)*v + int(f.VC)
	vc := &r.ivc[k]
	if vc.n == 0 {
		vc.since = now
		r.fullMask |= 1 << sh(k)
		if vc.state == vcIdle {
			r.routeMask |= 1 << sh(k)
		}
	}
	if vc.n == r.depth {
		r.overflow(p, f.VC)
	}
	i := vc.head + vc.n
	if i >= r.depth {
		i -= r.depth
	}
	r.store[vc.base+int32(i)] = *f
	vc.n++
	r.flits++
}
