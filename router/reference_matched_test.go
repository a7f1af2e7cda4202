package router

import (
	"nocsim/des"
	"nocsim/mesh"
)

// The reference router's BookSim allocators (allocator = islip or
// separable_input_first), written as BookSim's allocators are described,
// with loops over index ranges and a remainder for each round-robin turn,
// where the router uses masks (match.go, alloc_matched.go).

// refMatch is the reference's round-robin pointers, allocated on first use.
type refMatch struct {
	vaGrant, vaAccept, swGrant, swAccept []int
}

// refBookSimRank is a port's place in BookSim's mesh router: +x, -x, +y
// (South), -y (North), injection/ejection.
func refBookSimRank(p mesh.Port) int {
	return map[mesh.Port]int{mesh.East: 0, mesh.West: 1, mesh.South: 2, mesh.North: 3, mesh.Local: 4}[p]
}

// refISLIP is one iSLIP iteration: each resource j grants the first
// requester from gptr[j] round; each requester i accepts the first
// granting resource from aptr[i] round; an accepted pair moves both
// pointers one past it.
func refISLIP(req [][]bool, gptr, aptr []int) []int {
	nIn, nRes := len(req), len(gptr)
	grant := make([]int, nRes)
	for j := range nRes {
		grant[j] = -1
		for d := range nIn {
			if i := (gptr[j] + d) % nIn; req[i][j] {
				grant[j] = i
				break
			}
		}
	}
	match := make([]int, nIn)
	for i := range nIn {
		match[i] = -1
		for d := range nRes {
			if j := (aptr[i] + d) % nRes; grant[j] == i {
				match[i] = j
				gptr[j], aptr[i] = (i+1)%nIn, (j+1)%nRes
				break
			}
		}
	}
	return match
}

// refSeparable is the separable input-first allocator: each requester
// picks its first request from aptr[i] round, each resource grants the
// first of its pickers from gptr[j] round.
func refSeparable(req [][]bool, gptr, aptr []int) []int {
	nIn, nRes := len(req), len(gptr)
	pick := make([]int, nIn)
	for i := range nIn {
		pick[i] = -1
		for d := range nRes {
			if j := (aptr[i] + d) % nRes; req[i][j] {
				pick[i] = j
				break
			}
		}
	}
	match := make([]int, nIn)
	for i := range match {
		match[i] = -1
	}
	for j := range nRes {
		for d := range nIn {
			if i := (gptr[j] + d) % nIn; pick[i] == j {
				match[i] = j
				gptr[j], aptr[i] = (i+1)%nIn, (j+1)%nRes
				break
			}
		}
	}
	return match
}

func (r *refRouter) refMatchRun(req [][]bool, gptr, aptr []int) []int {
	if r.net.spec.Allocator == AllocISLIP {
		return refISLIP(req, gptr, aptr)
	}
	return refSeparable(req, gptr, aptr)
}

func boolMatrix(n, m int) [][]bool {
	b := make([][]bool, n)
	for i := range b {
		b[i] = make([]bool, m)
	}
	return b
}

// allocVCsMatched: every waiting head requests each free output VC of its
// class (its own index if ordered); one matching pass over input VCs and
// output VCs, numbered rank*VCs+vc, decides.
func (r *refRouter) allocVCsMatched(t des.Time) {
	v := r.net.spec.VCs
	n := int(mesh.NumPorts) * v
	if r.m.vaGrant == nil {
		r.m = refMatch{make([]int, n), make([]int, n), make([]int, mesh.NumPorts), make([]int, mesh.NumPorts)}
	}
	req := boolMatrix(n, n)
	who := make([]int, n) // BookSim input-VC index -> k
	asked := make([]bool, n)
	for k := range n {
		vc := r.vc(k)
		if vc.state != vcWaitVC {
			continue
		}
		i := refBookSimRank(mesh.Port(k/v))*v + k%v
		who[i] = k
		for c := vc.lo; c < vc.hi; c++ {
			if !r.out[vc.out].held[c] && (vc.want < 0 || vc.want == c) {
				req[i][refBookSimRank(vc.out)*v+c] = true
				asked[i] = true
			}
		}
		if !asked[i] {
			r.stats.VCStalls++
		}
	}
	match := r.refMatchRun(req, r.m.vaGrant, r.m.vaAccept)
	for i := range n {
		if !asked[i] {
			continue
		}
		if match[i] < 0 {
			r.stats.VCStalls++
			continue
		}
		vc, c := r.vc(who[i]), match[i]%v
		r.out[vc.out].held[c] = true
		vc.outVC, vc.state, vc.ready = c, vcActive, t+r.net.spec.VCAllocDelay
		r.stats.VCAllocs++
	}
}

// allocSwitchMatched: each input port asks each output for at most one
// flit, from its first VC (from its pointer round) that is active, holds
// a flit, is past its stage and has a credit; one matching pass over
// ports (BookSim ranks) decides; every other such VC is a switch stall.
func (r *refRouter) allocSwitchMatched(t des.Time) {
	v := r.net.spec.VCs
	const n = int(mesh.NumPorts)
	req := boolMatrix(n, n)
	var from [n][n]int
	eligible := 0
	for p := range mesh.NumPorts {
		ip := &r.in[p]
		for d := range v {
			i := (ip.rr + d) % v
			vc := &ip.vcs[i]
			if vc.state != vcActive || len(vc.buf) == 0 || t < vc.ready {
				continue
			}
			if r.out[vc.out].credit[vc.outVC] == 0 {
				r.stats.CreditStall++
				continue
			}
			eligible++
			ri, ro := refBookSimRank(p), refBookSimRank(vc.out)
			if !req[ri][ro] {
				req[ri][ro] = true
				from[ri][ro] = int(p)*v + i
			}
		}
	}
	if eligible == 0 {
		return
	}
	match := r.refMatchRun(req, r.m.swGrant, r.m.swAccept)
	for ri, ro := range match {
		if ro < 0 {
			continue
		}
		k := from[ri][ro]
		r.send(t, k, r.vc(k).out)
		eligible--
	}
	r.stats.SwitchStall += uint64(eligible)
}
