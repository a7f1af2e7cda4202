package endpoint

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/mesh/meshtest"
	"nocsim/router"
)

// busFlit is one flit as it crossed the bus.
type busFlit struct {
	at   des.Time
	src  int
	pkt  int32
	head bool
	tail bool
}

// busRun backlogs every node of a bus with perNode packets of length
// flits to pseudo-random destinations and records every flit the bus
// carries. It fails the test unless everything is delivered and the
// fabric ends quiescent (no deadlock, no lost credit).
func busRun(t *testing.T, nodes, perNode, length int, rs router.Spec) []busFlit {
	t.Helper()
	b := meshtest.Bus(t, nodes)
	eng := des.New()
	eng.SetWatchdog(10_000, nil)
	es := DefaultSpec()
	es.QueueFlits = 1 << 16
	f := NewFabric(eng, b, rs, es)
	var log []busFlit
	f.Net.SetTrace(func(node int, _, _ mesh.Port, fl router.Flit) {
		log = append(log, busFlit{eng.Now(), node, fl.Packet, fl.Head, fl.Tail})
	})
	delivered := 0
	f.OnDeliver = func(*Packet, des.Time) { delivered++ }
	rng := rand.New(rand.NewPCG(3, uint64(nodes)))
	for range perNode {
		for src := range nodes {
			f.SendSynthetic(src, rng.IntN(nodes), length, 0)
		}
	}
	if err := eng.Run(-1); err != nil {
		t.Fatal(err)
	}
	if f.Err() != nil {
		t.Fatal(f.Err())
	}
	if delivered != nodes*perNode {
		t.Fatalf("%d of %d packets delivered", delivered, nodes*perNode)
	}
	if err := f.CheckQuiescent(); err != nil {
		t.Fatal(err)
	}
	if got := f.Net.LinkCounts(nil); len(got) != 1 || got[0] != uint64(len(log)) {
		t.Fatalf("bus link count %v, %d flits traced", got, len(log))
	}
	return log
}

// Under saturation the bus carries at most its width of flits in any
// cycle (so over any window at most width*cycles), one packet at a time
// from head to tail, and keeps busy: between one transfer's tail and the
// next head there is no more than the arbitration delay.
func TestBusOneTransferAtATime(t *testing.T) {
	for _, width := range []int{1, 2} {
		rs := router.DefaultSpec()
		rs.LinkWidth = width
		log := busRun(t, 8, 40, 6, rs)
		perCycle := map[des.Time]int{}
		var cur int32 = -1
		var lastTail des.Time
		for i, fl := range log {
			if perCycle[fl.at]++; perCycle[fl.at] > width {
				t.Fatalf("width %d: %d flits crossed in cycle %d", width, perCycle[fl.at], fl.at)
			}
			switch {
			case fl.head && cur != -1:
				t.Fatalf("width %d: flit %d: packet %d started while %d held the bus", width, i, fl.pkt, cur)
			case !fl.head && fl.pkt != cur:
				t.Fatalf("width %d: flit %d of packet %d interleaved into %d's transfer", width, i, fl.pkt, cur)
			case fl.head && i > 0 && fl.at-lastTail > max(rs.SwitchAllocDelay, 1):
				t.Fatalf("width %d: bus idle from cycle %d to %d with every node backlogged", width, lastTail, fl.at)
			}
			cur = fl.pkt
			if fl.tail {
				cur, lastTail = -1, fl.at
			}
		}
	}
}

// The round-robin arbiter shares a saturated bus equally: with every node
// backlogged with packets of one length, the grants cycle through the
// nodes, so in every prefix of the grant sequence no node has two grants
// more than another.
func TestBusSharesEqually(t *testing.T) {
	const nodes, perNode = 7, 50
	log := busRun(t, nodes, perNode, 5, router.DefaultSpec())
	grants := make([]int, nodes)
	for _, fl := range log {
		if !fl.head {
			continue
		}
		grants[fl.src]++
		lo, hi := math.MaxInt, 0
		for _, g := range grants {
			lo, hi = min(lo, g), max(hi, g)
		}
		// Stop comparing once a node has run out of packets.
		if hi == perNode {
			break
		}
		if hi-lo > 1 {
			t.Fatalf("grants %v at cycle %d: unequal shares", grants, fl.at)
		}
	}
}

// The bus allocates nothing per flit or per cycle: a run carrying four
// times the packets makes no more allocations than the short one beyond a
// few buffers growing (the packets themselves are queued before the run).
func TestBusRunAllocatesNothingPerFlit(t *testing.T) {
	mallocs := func(perNode int) uint64 {
		b := meshtest.Bus(t, 8)
		eng := des.New()
		es := DefaultSpec()
		es.QueueFlits = 1 << 16
		f := NewFabric(eng, b, router.DefaultSpec(), es)
		rng := rand.New(rand.NewPCG(1, 2))
		for range perNode {
			for src := range 8 {
				f.SendSynthetic(src, rng.IntN(8), 5, 0)
			}
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := eng.Run(-1); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if f.Err() != nil || f.LivePackets() != 0 {
			t.Fatalf("%v, %d packets left", f.Err(), f.LivePackets())
		}
		return after.Mallocs - before.Mallocs
	}
	short, long := mallocs(100), mallocs(400)
	if long > short+64 {
		t.Errorf("%d allocations carrying 3200 packets, %d carrying 800: the bus allocates per flit", long, short)
	}
}
