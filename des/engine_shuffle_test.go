package des

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"testing"
)

// ---- shuffle -------------------------------------------------------------------

// tokenNet is a system of tickers that pass tokens to each other over
// channels with a delay of at least one cycle. Each node reads only tokens
// that arrived at or before now (in a canonical order) and sends only for
// later cycles, so visiting order must not matter.
type tokenNet struct {
	e     *Engine
	nodes []*tokenNode
}

type token struct {
	arrive Time
	from   int
	val    uint64
	ttl    int
}

type tokenNode struct {
	net   *tokenNet
	id    int32
	inbox []token
	state uint64
	log   []string
}

func (n *tokenNode) Tick(now Time) Time {
	var ready, later []token
	for _, tk := range n.inbox {
		if tk.arrive <= now {
			ready = append(ready, tk)
		} else {
			later = append(later, tk)
		}
	}
	// Canonical order: nothing depends on who ticked first.
	sort.Slice(ready, func(i, j int) bool {
		if ready[i].from != ready[j].from {
			return ready[i].from < ready[j].from
		}
		if ready[i].val != ready[j].val {
			return ready[i].val < ready[j].val
		}
		return ready[i].ttl < ready[j].ttl
	})
	n.inbox = later
	// Process at most two tokens per cycle so that queues build up and
	// nodes stay busy for several cycles.
	if len(ready) > 2 {
		for i := range ready[2:] {
			ready[2+i].arrive = now + 1
		}
		n.inbox = append(n.inbox, ready[2:]...)
		ready = ready[:2]
	}
	for _, tk := range ready {
		n.state = n.state*1_000_003 + tk.val
		n.log = append(n.log, fmt.Sprintf("%d:%d<-%d:%x", now, n.id, tk.from, tk.val))
		if tk.ttl == 0 {
			continue
		}
		v := tk.val*6364136223846793005 + uint64(n.id) + 1442695040888963407
		dst := n.net.nodes[(int(n.id)+1+int(v>>60)%3)%len(n.net.nodes)]
		at := now + 1 + Time(v>>58)%4
		dst.inbox = append(dst.inbox, token{arrive: at, from: int(n.id), val: v, ttl: tk.ttl - 1})
		n.net.e.Wake(dst.id, at)
	}
	next := Never
	for _, tk := range n.inbox {
		next = min(next, tk.arrive)
	}
	return next
}

func runTokenNet(shuffleSeed uint64, shuffle bool) (logs [][]string, states []uint64, ticks, events uint64, now Time) {
	return runTokenNetOn(func(e *Engine) {
		if shuffle {
			e.ShuffleTicks(shuffleSeed)
		}
	})
}

// runTokenNetOn runs the token network on an engine that setup prepares.
func runTokenNetOn(setup func(e *Engine)) (logs [][]string, states []uint64, ticks, events uint64, now Time) {
	e := New()
	setup(e)
	net := &tokenNet{e: e}
	const nodes = 12
	for i := range nodes {
		n := &tokenNode{net: net}
		n.id = e.Register(n)
		if int(n.id) != i {
			panic("unexpected ticker id")
		}
		net.nodes = append(net.nodes, n)
	}
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 40 {
		dst := net.nodes[r.IntN(nodes)]
		at := Time(r.IntN(20))
		dst.inbox = append(dst.inbox, token{arrive: at, from: -1, val: uint64(i), ttl: 200})
		e.Wake(dst.id, at)
	}
	if err := e.Run(-1); err != nil {
		panic(err)
	}
	for _, n := range net.nodes {
		logs = append(logs, n.log)
		states = append(states, n.state)
	}
	return logs, states, e.Ticks(), e.Events(), e.Now()
}

func TestShuffleTicksDoesNotChangeResults(t *testing.T) {
	logs0, states0, ticks0, events0, now0 := runTokenNet(0, false)
	total := 0
	for _, l := range logs0 {
		total += len(l)
	}
	if total != 40*201 {
		t.Fatalf("baseline processed %d token visits, want %d", total, 40*201)
	}
	for seed := uint64(1); seed <= 5; seed++ {
		logs, states, ticks, events, now := runTokenNet(seed, true)
		if !reflect.DeepEqual(logs, logs0) {
			for i := range logs {
				if !slices.Equal(logs[i], logs0[i]) {
					t.Fatalf("seed %d: node %d log differs from unshuffled run", seed, i)
				}
			}
		}
		if !slices.Equal(states, states0) || ticks != ticks0 || events != events0 || now != now0 {
			t.Fatalf("seed %d: states/ticks/events/now differ: %v/%d/%d/%d vs %v/%d/%d/%d",
				seed, states, ticks, events, now, states0, ticks0, events0, now0)
		}
	}
}
