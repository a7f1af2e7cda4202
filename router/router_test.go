package router

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
)

// An input VC goes idle -> routing (for route_delay cycles) -> waiting for
// an output VC (while another packet holds the only one) -> active -> idle
// once its tail has left, and the waiting one is granted only after the
// holder's tail is gone.
func TestVCStateMachine(t *testing.T) {
	for _, rate := range linkRates {
		t.Run(fmt.Sprintf("link_flits_per_cycle=%d", rate), func(t *testing.T) { testVCStateMachine(t, rate) })
	}
}

// linkRates are the link_flits_per_cycle the router's invariants are
// checked at: the default and the thesis's SCMP.
var linkRates = []int{1, 2}

func testVCStateMachine(t *testing.T, rate int) {
	spec := DefaultSpec()
	spec.VCs, spec.RouteDelay, spec.EjectWidth, spec.LinkWidth = 1, 3, 1, rate
	b := newBench(t, 3, 1, spec)
	// Nodes 0 and 2 both send to node 1: its West and East inputs compete
	// for the single VC of its local output.
	b.send(0, 1, 6, 0, KindSynth)
	b.send(2, 1, 6, 0, KindSynth)
	r := b.net.Routers[1]
	ports := []mesh.Port{mesh.West, mesh.East}
	seq := make([][]uint8, 2)
	count := make([]map[uint8]int, 2)
	first := make([]map[uint8]des.Time, 2)
	last := make([]map[uint8]des.Time, 2)
	for i := range ports {
		count[i], first[i], last[i] = map[uint8]int{}, map[uint8]des.Time{}, map[uint8]des.Time{}
	}
	b.watch(0, 100, func(now des.Time) {
		for i, p := range ports {
			s := r.inVC(p, 0).state
			if n := len(seq[i]); n == 0 || seq[i][n-1] != s {
				seq[i] = append(seq[i], s)
			}
			if _, ok := first[i][s]; !ok {
				first[i][s] = now
			}
			last[i][s] = now
			count[i][s]++
		}
	})
	b.run(t)

	won, lost := -1, -1
	for i := range ports {
		switch {
		case slices.Equal(seq[i], []uint8{vcIdle, vcRouting, vcActive, vcIdle}):
			won = i
		case slices.Equal(seq[i], []uint8{vcIdle, vcRouting, vcWaitVC, vcActive, vcIdle}):
			lost = i
		default:
			t.Fatalf("input %v: states %v", ports[i], seq[i])
		}
		if count[i][vcRouting] != int(spec.RouteDelay) {
			t.Errorf("input %v: routing for %d cycles, route_delay %d", ports[i], count[i][vcRouting], spec.RouteDelay)
		}
	}
	if won < 0 || lost < 0 {
		t.Fatalf("want one input granted at once and one waiting: %v %v", seq[0], seq[1])
	}
	if first[lost][vcActive] <= last[won][vcActive] {
		t.Errorf("waiting input active from cycle %d, holder active until %d", first[lost][vcActive], last[won][vcActive])
	}
	if r.Stats().VCStalls != uint64(count[lost][vcWaitVC]) {
		t.Errorf("VC stalls %d, cycles seen waiting %d", r.Stats().VCStalls, count[lost][vcWaitVC])
	}
	if got := len(b.nis[1].got); got != 12 {
		t.Errorf("node 1 received %d flits, want 12", got)
	}
}

// randomTraffic queues packets of 1..maxLen flits between random tiles on
// random local VCs, all at cycle 0, so the network is congested.
func randomTraffic(b *bench, seed uint64, perNode, maxLen int) int {
	rng := rand.New(rand.NewPCG(seed, 7))
	flits := 0
	n := b.m.Nodes()
	for range perNode {
		for src := range n {
			dst := rng.IntN(n)
			l := 1 + rng.IntN(maxLen)
			b.send(src, dst, l, int8(rng.IntN(b.net.Spec.VCs)), KindSynth)
			flits += l
		}
	}
	return flits
}

// pipeVC counts what is in flight on a pipe per VC: flits by their VC,
// credits by their value.
func pipeFlits(p *Pipe[Flit], vc int8) int {
	c := 0
	for i := range int(p.n) {
		if p.buf[(int(p.head)+i)&(len(p.buf)-1)].v.VC == vc {
			c++
		}
	}
	return c
}

func pipeCredits(p *Pipe[int8], vc int8) int {
	c := 0
	for i := range int(p.n) {
		if p.buf[(int(p.head)+i)&(len(p.buf)-1)].v == vc {
			c++
		}
	}
	return c
}

// Credits are conserved on every channel at every cycle: a sender's
// credits, the flits on the wire, the flits in the receiver's buffer and
// the credits on their way back always add up to vc_buf; no counter is
// ever negative or above vc_buf; at quiescence all are home.
//
// A credit delay below creditSlots takes the links' credits through the
// senders' rings of counts, a longer one through channels: both run.
func TestCreditConservation(t *testing.T) {
	for _, rate := range linkRates {
		for _, delay := range []des.Time{2, creditSlots + 1} {
			t.Run(fmt.Sprintf("link_flits_per_cycle=%d/credit_delay=%d", rate, delay), func(t *testing.T) { testCreditConservation(t, rate, delay) })
		}
	}
}

func testCreditConservation(t *testing.T, rate int, delay des.Time) {
	for _, policy := range []string{VCAllocRoundRobin, VCAllocLowest} {
		spec := DefaultSpec()
		spec.VCBuf, spec.VCAlloc, spec.CreditDelay, spec.LinkWidth = 4, policy, delay, rate
		b := newBench(t, 3, 3, spec)
		total := randomTraffic(b, 1, 40, 7)
		buf := spec.VCBuf
		sawEmpty := false
		bad := 0
		check := func(now des.Time, what string, credit, wire, held, back int) {
			if credit < 0 || credit > buf || credit+wire+held+back != buf {
				if bad++; bad <= 5 {
					t.Errorf("%s cycle %d %s: %d credits + %d on the wire + %d buffered + %d returning != vc_buf %d",
						policy, now, what, credit, wire, held, back, buf)
				}
			}
			sawEmpty = sawEmpty || credit == 0
		}
		b.watch(0, 5000, func(now des.Time) {
			for i, r := range b.net.Routers {
				for p := mesh.North; p < mesh.NumPorts; p++ {
					op := &r.out[p]
					if !r.linked(p) {
						continue
					}
					j, _ := b.m.Neighbor(i, p)
					down := b.net.Routers[j]
					for v := range spec.VCs {
						check(now, r.Name+" out "+p.String(), int(op.credit[v]), down.linkFlits(p.Opposite(), v), int(down.inVC(p.Opposite(), v).n), r.creditsBack(p, v))
					}
				}
				// The NIU ends: injection into the router, ejection to a
				// testNI that frees its slot at once.
				ni := b.nis[i]
				for v := range spec.VCs {
					lp := b.net.Local[i]
					check(now, r.Name+" inject", int(ni.credit[v]), lp.InjectInFlight(int8(v)), int(r.inVC(mesh.Local, v).n), pipeCredits(lp.InjectCredit, int8(v))+int(ni.ic.Next[v]))
					check(now, r.Name+" eject", int(r.out[mesh.Local].credit[v]), pipeFlits(lp.Eject, int8(v)), 0, pipeCredits(lp.EjectCredit, int8(v)))
				}
			}
		})
		b.run(t)
		got := 0
		for _, ni := range b.nis {
			got += len(ni.got)
		}
		if got != total {
			t.Errorf("%s: %d flits delivered of %d", policy, got, total)
		}
		if !sawEmpty {
			t.Errorf("%s: no sender ever ran out of credits; the test exercises nothing", policy)
		}
	}
}

// A packet holds its output VC from head to tail: on every link and VC
// (seen as the input VC it arrives in, and as the ejection VC at the NIU)
// its flits arrive head first, in order and with no other packet's flit
// among them. Each switch output sends at most its width of flits per
// cycle (link_flits_per_cycle on a link), each input port at most its
// width, and each input VC at most link_flits_per_cycle.
func TestWormholeOrderAndWidths(t *testing.T) {
	for _, rate := range linkRates {
		t.Run(fmt.Sprintf("link_flits_per_cycle=%d", rate), func(t *testing.T) { testWormholeOrderAndWidths(t, rate) })
	}
}

func testWormholeOrderAndWidths(t *testing.T, rate int) {
	for _, policy := range []string{VCAllocRoundRobin, VCAllocLowest} {
		spec := DefaultSpec()
		spec.VCs, spec.VCBuf, spec.VCAlloc, spec.LinkWidth = 3, 4, policy, rate
		spec.InjectWidth, spec.EjectWidth = 3, 2
		b := newBench(t, 4, 3, spec)
		randomTraffic(b, 2, 30, 9)
		type chanKey struct {
			node int
			port mesh.Port
			vc   int8
		}
		type cycKey struct {
			node int
			port mesh.Port
			at   des.Time
		}
		type vcCycKey struct {
			node int
			port mesh.Port
			vc   int8
			at   des.Time
		}
		cur := map[chanKey]Flit{} // last flit per channel, while a packet is open
		outs, ins := map[cycKey]int{}, map[cycKey]int{}
		perVC := map[vcCycKey]int{}
		errs := 0
		fail := func(format string, args ...any) {
			if errs++; errs <= 5 {
				t.Errorf(policy+": "+format, args...)
			}
		}
		follow := func(k chanKey, f Flit) {
			prev, open := cur[k]
			switch {
			case !open && !f.Head:
				fail("%v: flit %d of packet %d without its head", k, f.Pos(), f.Packet)
			case open && (f.Packet != prev.Packet || f.Pos() != prev.Pos()+1):
				fail("%v: flit %d of packet %d after flit %d of packet %d", k, f.Pos(), f.Packet, prev.Pos(), prev.Packet)
			}
			if f.Tail {
				delete(cur, k)
			} else {
				cur[k] = f
			}
		}
		b.net.SetTrace(func(node int, in, out mesh.Port, f Flit) {
			follow(chanKey{node, in, f.VC}, f)
			now := b.eng.Now()
			outs[cycKey{node, out, now}]++
			ins[cycKey{node, in, now}]++
			perVC[vcCycKey{node, in, f.VC, now}]++
		})
		b.run(t)
		for _, ni := range b.nis {
			for _, a := range ni.got {
				follow(chanKey{ni.node, -1, a.f.VC}, a.f)
			}
		}
		if len(cur) != 0 {
			t.Errorf("%s: %d packets left open", policy, len(cur))
		}
		maxOut := map[bool]int{}
		for k, n := range outs {
			w := rate
			if k.port == mesh.Local {
				w = spec.EjectWidth
			}
			if n > w {
				fail("node %d out %v cycle %d: %d flits, width %d", k.node, k.port, k.at, n, w)
			}
			maxOut[k.port == mesh.Local] = max(maxOut[k.port == mesh.Local], n)
		}
		for k, n := range ins {
			w := rate
			if k.port == mesh.Local {
				w = spec.InjectWidth
			}
			if n > w {
				fail("node %d in %v cycle %d: %d flits, width %d", k.node, k.port, k.at, n, w)
			}
		}
		maxVC := 0
		for k, n := range perVC {
			if n > rate {
				fail("node %d in %v vc%d cycle %d: %d flits, link_flits_per_cycle %d", k.node, k.port, k.vc, k.at, n, rate)
			}
			maxVC = max(maxVC, n)
		}
		// The limits bind: otherwise the test would pass with any width.
		if maxOut[true] != spec.EjectWidth || maxOut[false] != rate || maxVC != rate {
			t.Errorf("%s: most flits per cycle seen: %d ejected (width %d), %d on a link and %d from one VC (link_flits_per_cycle %d)",
				policy, maxOut[true], spec.EjectWidth, maxOut[false], maxVC, rate)
		}
	}
}

// The stage masks say what the VCs' own state says, at every cycle: a VC
// is in fullMask exactly when it buffers flits, in activeMask exactly when
// it holds an output VC, in waitMask exactly when it waits for one, and
// the router's flit count is the sum of its VCs'.
func TestStateMasksMatchVCs(t *testing.T) {
	for _, rate := range linkRates {
		spec := DefaultSpec()
		spec.VCBuf, spec.LinkWidth = 4, rate
		b := newBench(t, 3, 3, spec)
		randomTraffic(b, 1, 40, 11)
		bad, sawFull := 0, false
		b.watch(0, 5000, func(now des.Time) {
			for _, r := range b.net.Routers {
				flits := 0
				for k := range r.ivc {
					vc := &r.ivc[k]
					flits += int(vc.n)
					sawFull = sawFull || vc.n > 0
					full := r.fullMask>>k&1 == 1
					active := r.activeMask>>k&1 == 1
					wait := r.waitMask>>k&1 == 1
					if full != (vc.n > 0) || active != (vc.state == vcActive) || wait != (vc.state == vcWaitVC) {
						if bad++; bad <= 5 {
							t.Errorf("cycle %d %s vc %d: %d flits, state %s, masks full %v active %v wait %v",
								now, r.Name, k, vc.n, stateNames[vc.state], full, active, wait)
						}
					}
				}
				if flits != int(r.flits) {
					if bad++; bad <= 5 {
						t.Errorf("cycle %d %s: VCs hold %d flits, router counts %d", now, r.Name, flits, r.flits)
					}
				}
			}
		})
		b.run(t)
		if !sawFull {
			t.Fatal("no VC ever held a flit: the traffic did not exercise the masks")
		}
	}
}
