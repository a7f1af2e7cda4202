package router

import (
	"slices"
	"testing"

	"nocsim/mesh"
)

// Two inputs competing for one output share it: each holds one of its
// VCs for a long worm, and the switch allocator alternates, so at every
// moment while both are sending their flit counts differ by at most one
// cycle's worth of the output (one flit; link_flits_per_cycle when the
// ports are that wide).
func TestSwitchAllocatorFairness(t *testing.T) {
	for _, rate := range linkRates {
		spec := DefaultSpec()
		spec.EjectWidth, spec.InjectWidth, spec.LinkWidth = rate, rate, rate
		b := newBench(t, 3, 1, spec)
		const worm = 2000
		b.send(0, 1, worm, 0, KindSynth)
		b.send(2, 1, worm, 0, KindSynth)
		testShare(t, b, worm, rate)
	}
}

// With one VC the output VC is the shared resource: the VC allocator
// grants it to the two inputs in turn, packet by packet, so they drift
// apart by at most one packet.
func TestVCAllocatorFairness(t *testing.T) {
	for _, rate := range linkRates {
		for _, policy := range []string{VCAllocRoundRobin, VCAllocLowest} {
			testVCAllocatorFairness(t, rate, policy)
		}
	}
}

func testVCAllocatorFairness(t *testing.T, rate int, policy string) {
	spec := DefaultSpec()
	spec.VCs, spec.VCAlloc, spec.EjectWidth, spec.InjectWidth, spec.LinkWidth = 1, policy, rate, rate, rate
	b := newBench(t, 3, 1, spec)
	const packets, length = 300, 4
	for range packets {
		b.send(0, 1, length, 0, KindSynth)
		b.send(2, 1, length, 0, KindSynth)
	}
	testShare(t, b, packets*length, length)
	// Whole packets in turn: the order of heads at node 1 alternates
	// between the two sources.
	var from []int
	for _, a := range b.nis[1].got {
		if a.f.Head {
			from = append(from, int(a.f.Packet%2))
		}
	}
	for i := 1; i < len(from); i++ {
		if from[i] == from[i-1] {
			t.Fatalf("rate %d %s: packets %d and %d at node 1 both from source %d", rate, policy, i-1, i, 2*from[i])
		}
	}
}

// testShare runs b, counting the flits node 1 ejects from its West and East
// inputs, and checks that they never differ by more than bound while both
// inputs still have flits to send.
func testShare(t *testing.T, b *bench, each, bound int) {
	t.Helper()
	var w, e, worst int
	b.net.SetTrace(func(node int, in, out mesh.Port, f Flit) {
		if node != 1 || out != mesh.Local {
			return
		}
		if in == mesh.West {
			w++
		} else {
			e++
		}
		if w < each && e < each {
			worst = max(worst, w-e, e-w)
		}
	})
	b.run(t)
	if w != each || e != each {
		t.Fatalf("ejected %d and %d flits, want %d each", w, e, each)
	}
	if worst > bound {
		t.Errorf("the two inputs' flit counts drifted %d apart, bound %d", worst, bound)
	}
}

// headVCs sends lone packets one after another (each into an empty
// network) from node 0 to node 2 of a 3x1 mesh and returns the VC each head
// arrived on at node 1 and at node 2.
func headVCs(t *testing.T, spec Spec, n int, localVC int8, kind uint8) (at1, at2 []int8) {
	b := newBench(t, 3, 1, spec)
	b.net.SetTrace(func(node int, in, out mesh.Port, f Flit) {
		if f.Head && node == 1 {
			at1 = append(at1, f.VC)
		}
		if f.Head && node == 2 {
			at2 = append(at2, f.VC)
		}
	})
	for range n {
		b.send(0, 2, 3, localVC, kind)
		b.run(t)
	}
	return at1, at2
}

// round_robin moves each output port's pointer past every grant, so
// successive packets take the VCs in turn; lowest always takes VC0 when it
// is free. An ordered packet keeps its VC index at every hop under both.
func TestVCAllocPolicy(t *testing.T) {
	spec := DefaultSpec()
	spec.VCs = 3
	for _, c := range []struct {
		policy string
		kind   uint8
		local  int8
		want   func(i int) int8
	}{
		{VCAllocRoundRobin, KindSynth, 0, func(i int) int8 { return int8(i % 3) }},
		{VCAllocLowest, KindSynth, 2, func(int) int8 { return 0 }},
		{VCAllocRoundRobin, KindSynth | KindOrdered, 1, func(int) int8 { return 1 }},
		{VCAllocLowest, KindSynth | KindOrdered, 2, func(int) int8 { return 2 }},
	} {
		spec.VCAlloc = c.policy
		at1, at2 := headVCs(t, spec, 7, c.local, c.kind)
		for i := range at1 {
			if at1[i] != c.want(i) || at2[i] != c.want(i) {
				t.Errorf("%s kind %#x: packet %d arrived on VC %d at node 1 and %d at node 2, want %d", c.policy, c.kind, i, at1[i], at2[i], c.want(i))
			}
		}
		if len(at1) != 7 || len(at2) != 7 {
			t.Errorf("%s: %d and %d heads seen, want 7", c.policy, len(at1), len(at2))
		}
	}
}

// The per-VC link counters add up to the link counters, and count exactly
// the flits that crossed each link on each VC; the routers' traversals are
// every flit switched. The traffic is enough for some VC of a link to
// carry over 512 flits, so that the counters' low 8 bits (outPort.sent)
// wrap at least twice.
func TestLinkVCCounts(t *testing.T) {
	spec := DefaultSpec()
	spec.VCs = 3
	b := newBench(t, 3, 3, spec)
	randomTraffic(b, 3, 250, 16)
	// A flit crosses a link on the VC it is buffered in downstream, which
	// the trace at the downstream router reports.
	type inVCKey struct {
		node int
		port mesh.Port
		vc   int8
	}
	arrived := map[inVCKey]uint64{}
	var switched uint64
	b.net.SetTrace(func(node int, in, out mesh.Port, f Flit) {
		arrived[inVCKey{node, in, f.VC}]++
		switched++
	})
	b.run(t)
	if got := b.net.Totals().Traversals; got != switched {
		t.Errorf("routers count %d traversals, %d flits were switched", got, switched)
	}
	links := b.net.Links()
	counts := b.net.LinkCounts(nil)
	vcs := b.net.LinkVCCounts(nil)
	if len(vcs) != len(counts)*spec.VCs || len(links) != len(counts) {
		t.Fatalf("%d per-VC counts and %d links for %d link counters", len(vcs), len(links), len(counts))
	}
	var total uint64
	for i, l := range links {
		var sum uint64
		for v := range spec.VCs {
			sum += vcs[i*spec.VCs+v]
			if got := b.net.Routers[l.From].LinkVCFlits(l.Dir, v); got != vcs[i*spec.VCs+v] {
				t.Errorf("link %v vc%d: LinkVCFlits %d, LinkVCCounts %d", l, v, got, vcs[i*spec.VCs+v])
			}
		}
		for v := range spec.VCs {
			if want := arrived[inVCKey{l.To, l.Dir.Opposite(), int8(v)}]; vcs[i*spec.VCs+v] != want {
				t.Errorf("link %v vc%d: counted %d, %d flits arrived on it", l, v, vcs[i*spec.VCs+v], want)
			}
		}
		if sum != counts[i] {
			t.Errorf("link %v: VCs sum to %d, link counter %d", l, sum, counts[i])
		}
		if j, ok := b.m.Neighbor(l.From, l.Dir); !ok || j != l.To {
			t.Errorf("link %v: neighbour of %d by %v is %d", l, l.From, l.Dir, j)
		}
		total += sum
	}
	if most := slices.Max(vcs); most <= 512 {
		t.Fatalf("the busiest VC of a link carried %d flits, want over 512", most)
	}
	if total == 0 {
		t.Fatal("no flit crossed a link")
	}
}
