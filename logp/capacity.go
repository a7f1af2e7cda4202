package logp

import (
	"math"
	"sort"
)

// LogP's network has a finite capacity (Culler et al.; the slides): at
// most ceil(L/g) messages can be in transit from any processor or to any
// processor at any time, and a processor that would exceed it stalls until
// its message can go. A message is in transit from the moment it enters
// the network (its sender's overhead paid) until its receiver takes it
// off (starts its receive overhead): one that has arrived at a busy
// receiver still occupies the network.

// Capacity is ceil(L/g), the messages the LogP network holds to or from
// one processor; 0 when g = 0 (no gap, no bound).
func Capacity(L, g float64) int {
	if !(g > 0) || !(L > 0) {
		return 0
	}
	return int(math.Ceil(L / g))
}

// Transit is one message of a LogP schedule: it enters the network at
// Enter and is taken off by its receiver at Taken.
type Transit struct {
	From, To     int
	Enter, Taken float64
}

// MaxInTransit is the most messages of msgs in transit at once from one
// processor and to one processor: the figures the capacity bounds. A
// message taken at t no longer counts at t (its slot is free for one
// entering at t).
func MaxInTransit(msgs []Transit) (from, to int) {
	type ev struct {
		t     float64
		delta int
		proc  int
	}
	count := func(key func(Transit) int) int {
		evs := make([]ev, 0, 2*len(msgs))
		for _, m := range msgs {
			evs = append(evs, ev{m.Enter, 1, key(m)}, ev{m.Taken, -1, key(m)})
		}
		// Leaving before entering at the same time.
		sort.Slice(evs, func(i, j int) bool {
			return evs[i].t < evs[j].t || evs[i].t == evs[j].t && evs[i].delta < evs[j].delta
		})
		cur, best := map[int]int{}, 0
		for _, e := range evs {
			cur[e.proc] += e.delta
			best = max(best, cur[e.proc])
		}
		return best
	}
	return count(func(m Transit) int { return m.From }), count(func(m Transit) int { return m.To })
}

// FlatGather is the LogP schedule of P-1 processors each sending one item
// to processor 0, all starting at time 0: the mirror of the slides' flat
// broadcast, and the best any schedule can do for the root, which must
// take P-1 messages max(g, o) apart (L + 2o + (P-2) max(g, o) in all).
type FlatGather struct {
	Capacity int       // ceil(L/g); 0: unbounded
	Enter    []float64 // Enter[i]: when sender i's message entered the network (index 0 unused)
	Stall    []float64 // Stall[i]: cycles sender i waited for room after its overhead
	Taken    []float64 // Taken[i]: when the root started receiving it
	Finish   float64   // the root has every item
}

// OptimalGather builds the flat gather, with the capacity constraint when
// capacity is true. The root takes messages in the order they entered
// (ties: lower sender first) as soon as each has arrived and the root's
// last receive is max(g, o) behind it. Under the constraint a sender whose
// message would put more than ceil(L/g) in transit to the root stalls
// until the root takes one off.
//
// The constraint stalls senders but never delays the root: the root frees
// a slot every max(g, o) and a slot's next message arrives L later, while
// the ceil(L/g) messages in transit take it at least ceil(L/g) g >= L to
// receive. So Finish is the same either way; the senders' times are not.
func OptimalGather(P int, L, o, g float64, capacity bool) FlatGather {
	if P < 1 {
		return FlatGather{}
	}
	fg := FlatGather{Enter: make([]float64, P), Stall: make([]float64, P), Taken: make([]float64, P)}
	if capacity {
		fg.Capacity = Capacity(L, g)
	}
	iv := max(g, o)
	free := math.Inf(-1) // when the root may take its next message
	// Messages are taken in entry order, so with room for C in transit
	// sender i (1-based) enters once message i-C has been taken.
	for i := 1; i < P; i++ {
		enter := o
		if c := fg.Capacity; c > 0 && i > c {
			enter = max(enter, fg.Taken[i-c])
		}
		fg.Enter[i], fg.Stall[i] = enter, enter-o
		fg.Taken[i] = max(enter+L, free)
		free = fg.Taken[i] + iv
		fg.Finish = fg.Taken[i] + o
	}
	return fg
}

// Transits lists the gather's messages, for MaxInTransit.
func (fg FlatGather) Transits() []Transit {
	var ms []Transit
	for i := 1; i < len(fg.Enter); i++ {
		ms = append(ms, Transit{From: i, To: 0, Enter: fg.Enter[i], Taken: fg.Taken[i]})
	}
	return ms
}

// BroadcastTransits lists OptimalBroadcast's messages (sent at at[i]-L-2o
// by parent[i], entering o later, taken at arrival, at[i]-o), for checking
// the capacity: a sender's messages leave max(g, o) apart and each is
// taken L after it entered, so no more than ceil(L/g) are ever in transit
// from it, and each receiver gets one.
func BroadcastTransits(parent []int, at []float64, L, o float64) []Transit {
	var ms []Transit
	for i := 1; i < len(parent); i++ {
		s := at[i] - L - 2*o
		ms = append(ms, Transit{From: parent[i], To: i, Enter: s + o, Taken: s + o + L})
	}
	return ms
}
