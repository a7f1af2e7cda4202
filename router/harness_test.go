package router

import (
	"testing"

	"nocsim/des"
	"nocsim/mesh"
)

// testNI is a minimal network interface for driving a Network by hand: it
// injects queued flits in order (each on the VC written in it) while it
// has credits, up to width per cycle, and ejects everything that arrives,
// returning the credit at once, or, with slow set, one credit in every
// slow-th cycle, so that the router runs short of ejection credits.
type testNI struct {
	node   int
	lp     LocalPort
	credit []int16 // ic.Count
	ic     *InjectCredits
	width  int
	queue  []Flit
	got    []arrival
	slow   des.Time
	owed   []int8 // credits not returned yet (slow)
}

type arrival struct {
	at des.Time
	f  Flit
}

// ejectAndCredit takes what the router ejects at now and returns each
// buffer's credit: at once, or with slow > 0 one credit every slow cycles,
// as an NIU that drains its ejection buffers slowly would.
func ejectAndCredit(lp *LocalPort, now, slow des.Time, got *[]arrival, owed *[]int8) {
	for lp.Eject.Ready(now) {
		f := lp.Eject.Recv()
		*got = append(*got, arrival{now, f})
		if slow > 0 {
			*owed = append(*owed, f.VC)
		} else {
			lp.ReturnEjectCredit(now, int(f.VC))
		}
	}
	if len(*owed) > 0 && now%slow == 0 {
		lp.ReturnEjectCredit(now, int((*owed)[0]))
		*owed = (*owed)[1:]
	}
}

func (n *testNI) Tick(now des.Time) des.Time {
	n.ic.TickedAt = now
	for n.lp.InjectCredit.Ready(now) {
		n.credit[n.lp.InjectCredit.Recv()]++
	}
	ejectAndCredit(&n.lp, now, n.slow, &n.got, &n.owed)
	for sent := 0; sent < n.width && len(n.queue) > 0 && n.credit[n.queue[0].VC] > 0; sent++ {
		f := n.queue[0]
		n.queue = n.queue[1:]
		n.credit[f.VC]--
		*n.lp.InjectSlot(now, f.VC) = f
	}
	n.ic.Fold()
	if len(n.queue) > 0 || len(n.owed) > 0 {
		return now + 1
	}
	return min(n.lp.InjectCredit.Next(), n.lp.Eject.Next())
}

// bench is a network with a testNI on every tile.
type bench struct {
	eng *des.Engine
	m   mesh.Mesh
	net *Network
	nis []*testNI
	ids []int32
	pkt int32
}

func newBench(t *testing.T, w, h int, spec Spec) *bench {
	t.Helper()
	if err := spec.Validate(); err != nil {
		t.Fatal(err)
	}
	m, err := mesh.New(w, h)
	if err != nil {
		t.Fatal(err)
	}
	eng := des.New()
	b := &bench{eng: eng, m: m, net: Build(eng, m, spec)}
	for i, lp := range b.net.Local {
		ni := &testNI{node: i, lp: lp, width: spec.InjectWidth}
		id := eng.Register(ni)
		// Bound, so that the router counts credits into it in place
		// when it may, as it does an NIU's.
		ni.ic = lp.Bind(id)
		ni.credit = ni.ic.Count[:spec.VCs]
		for v := range ni.credit {
			ni.credit[v] = int16(spec.VCBuf)
		}
		lp.InjectCredit.SetWake(id)
		lp.Eject.SetWake(id)
		b.nis = append(b.nis, ni)
		b.ids = append(b.ids, id)
	}
	return b
}

// KindSynth is the message type these tests' packets carry: endpoint's
// synthetic traffic. The router reads only KindOrdered, so any value
// would do; the endpoint's keeps the tests' flits what a run's would be.
const KindSynth uint8 = 2

// send queues a packet of length flits from src to dst on local VC vc and
// returns its id.
func (b *bench) send(src, dst, length int, vc int8, kind uint8) int32 {
	id := b.pkt
	b.pkt++
	dx, dy := b.m.Offsets(src, dst)
	ni := b.nis[src]
	for i := range length {
		f := Flit{Packet: id, Index: int32(i), VC: vc, Head: i == 0, Tail: i == length-1}
		if f.Head {
			f.Kind = kind
			f.SetOffsets(dx, dy)
		}
		ni.queue = append(ni.queue, f)
	}
	b.eng.Activate(b.ids[src])
	return id
}

// every runs fn at the start of every cycle from..to, before any component
// ticks, so it sees the state the previous cycle left.
type every struct {
	eng *des.Engine
	to  des.Time
	fn  func(now des.Time)
}

func (e *every) Handle(now des.Time, _ int64) {
	e.fn(now)
	if now < e.to {
		e.eng.Schedule(now+1, e, 0)
	}
}

func (b *bench) watch(from, to des.Time, fn func(now des.Time)) {
	b.eng.Schedule(from, &every{eng: b.eng, to: to, fn: fn}, 0)
}

// run runs the network to quiescence and checks the conservation laws of
// an empty network.
func (b *bench) run(t *testing.T) {
	t.Helper()
	b.eng.SetWatchdog(5000, nil)
	if err := b.eng.Run(-1); err != nil {
		t.Fatal(err)
	}
	if err := b.net.CheckQuiescent(); err != nil {
		t.Fatal(err)
	}
	for _, ni := range b.nis {
		if len(ni.queue) != 0 {
			t.Fatalf("node %d: %d flits never injected", ni.node, len(ni.queue))
		}
	}
}
