package des

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// A system that keeps the Ticker contract gives the same result visited
// in id order as in wake order.
func TestTickByIDDoesNotChangeResults(t *testing.T) {
	logs0, states0, ticks0, events0, now0 := runTokenNet(0, false)
	logs, states, ticks, events, now := runTokenNetOn(func(e *Engine) { e.TickByID() })
	if !reflect.DeepEqual(logs, logs0) {
		t.Fatal("token logs differ between id order and wake order")
	}
	if !slices.Equal(states, states0) || ticks != ticks0 || events != events0 || now != now0 {
		t.Fatalf("states/ticks/events/now differ: %v/%d/%d/%d vs %v/%d/%d/%d",
			states, ticks, events, now, states0, ticks0, events0, now0)
	}
}

// hopper ticks for a few cycles, then sleeps until a wake-up it draws at
// random (or for good), and wakes another ticker at random; every tick is
// logged as (cycle, id). It keeps the Ticker contract: what it does depends
// only on its own state and the cycles it ticks at, its wake-ups are for
// later cycles, and like a channel's consumer it remembers the wake-ups
// sent to it, since a Wake while it is busy changes nothing.
type hopper struct {
	e    *Engine
	id   int32
	n    int32 // tickers in all
	rng  *rand.Rand
	busy int
	log  *[][2]int64
	left int // wake-ups still to hand out, so that the run ends
	hs   []*hopper
	due  []Time // wake-ups sent to it
}

func (h *hopper) Tick(now Time) Time {
	*h.log = append(*h.log, [2]int64{now, int64(h.id)})
	if h.left > 0 {
		h.left--
		// A far wake-up now and then goes through the event heap.
		d := 1 + Time(h.rng.IntN(12))
		if h.rng.IntN(50) == 0 {
			d = wheelSize + Time(h.rng.IntN(100))
		}
		to := h.hs[h.rng.IntN(int(h.n))]
		to.due = append(to.due, now+d)
		h.e.Wake(to.id, now+d)
	}
	next := Never
	h.due = slices.DeleteFunc(h.due, func(at Time) bool { return at <= now })
	for _, at := range h.due {
		next = min(next, at)
	}
	if h.busy > 0 {
		h.busy--
		return now + 1
	}
	h.busy = h.rng.IntN(3)
	if h.rng.IntN(4) == 0 {
		return next
	}
	return min(next, now+2+Time(h.rng.IntN(20)))
}

// runHoppers runs n hoppers; byID selects the visiting order.
func runHoppers(n int, byID bool) [][2]int64 {
	e := New()
	if byID {
		e.TickByID()
	}
	var log [][2]int64
	var hs []*hopper
	for i := range n {
		h := &hopper{e: e, n: int32(n), rng: rand.New(rand.NewPCG(uint64(i), 5)), log: &log, left: 20}
		h.id = e.Register(h)
		hs = append(hs, h)
	}
	for _, h := range hs {
		h.hs = hs
	}
	for i := 0; i < n; i += 7 {
		e.Wake(int32(i), Time(i%5))
	}
	if err := e.Run(-1); err != nil {
		panic(err)
	}
	return log
}

// In id order every cycle visits its busy tickers in increasing id, and
// exactly the same tickers tick at the same cycles as in wake order. The
// sizes cross the bit set's 64-ticker words and 4096-ticker summary words.
func TestTickByIDVisitsInIDOrder(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 200, 4095, 4096, 4097, 9000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			byID := runHoppers(n, true)
			plain := runHoppers(n, false)
			if len(byID) < 2*n {
				t.Fatalf("only %d ticks for %d tickers", len(byID), n)
			}
			for i := 1; i < len(byID); i++ {
				a, b := byID[i-1], byID[i]
				if b[0] < a[0] || b[0] == a[0] && b[1] <= a[1] {
					t.Fatalf("tick %d: (cycle %d, id %d) after (cycle %d, id %d)", i, b[0], b[1], a[0], a[1])
				}
			}
			slices.SortFunc(plain, func(a, b [2]int64) int {
				if a[0] != b[0] {
					return int(a[0] - b[0])
				}
				return int(a[1] - b[1])
			})
			if !slices.Equal(byID, plain) {
				t.Fatalf("id order ticked %d (cycle, id) pairs, wake order %d, and they differ", len(byID), len(plain))
			}
		})
	}
}

// Wheel buckets are sized by the wake-ups they hold, not by the number of
// tickers: 100000 tickers of which a handful wake each cycle leave every
// bucket at most twice the busiest cycle's wake-ups (at least 8).
func TestWheelBucketsSizedByActivity(t *testing.T) {
	const n = 100_000
	e := New()
	var log [][2]int64
	var hs []*hopper
	for i := range n {
		h := &hopper{e: e, n: 20, rng: rand.New(rand.NewPCG(uint64(i), 9)), log: &log, left: 100}
		h.id = e.Register(h)
		hs = append(hs, h)
	}
	for _, h := range hs {
		h.hs = hs
	}
	perCycle := map[Time]int{}
	for i := range 20 {
		e.Wake(int32(i), 0)
	}
	// The hoppers wake only tickers 0..19, so at most 20 wake-ups can
	// land in one cycle.
	if err := e.Run(-1); err != nil {
		t.Fatal(err)
	}
	for _, l := range log {
		perCycle[Time(l[0])]++
	}
	peak := 0
	for _, c := range perCycle {
		peak = max(peak, c)
	}
	if peak > 20 {
		t.Fatalf("%d tickers ticked in one cycle; only 20 can be woken", peak)
	}
	for i, b := range e.wheel {
		if cap(b) > max(8, 2*20) {
			t.Fatalf("wheel bucket %d has capacity %d with %d tickers, at most 20 wake-ups per cycle", i, cap(b), n)
		}
	}
}

// TickByID and ShuffleTicks exclude each other: one asks for a fixed
// order, the other for a random one.
func TestTickByIDAndShuffleExclusive(t *testing.T) {
	for _, order := range []func(e *Engine){
		func(e *Engine) { e.TickByID(); e.ShuffleTicks(1) },
		func(e *Engine) { e.ShuffleTicks(1); e.TickByID() },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("combining TickByID and ShuffleTicks did not panic")
				}
			}()
			order(New())
		}()
	}
}

// settler ticks for a few cycles, then sleeps a few, at random; at every
// tick it judges, for every other ticker, whether that one is done with
// the cycle the way router.send does (asleep, or busy with its last tick
// in this cycle), and checks the answer against what the tickers' own
// plans say: ticker j ticks again in this cycle iff its next tick is this
// cycle (plan) and it has not ticked in it (last).
type settler struct {
	t          *testing.T
	e          *Engine
	id         int32
	rng        *rand.Rand
	plan, last []Time  // shared by all settlers, by id
	asked      *[2]int // answers of true and false checked
}

func (s *settler) Tick(now Time) Time {
	s.last[s.id] = now
	for j := range s.plan {
		id := int32(j)
		if id == s.id {
			continue
		}
		truth := !(s.plan[j] == now && s.last[j] != now)
		got := !s.e.Ticking(id) || s.last[j] == now
		if got != truth {
			s.t.Fatalf("cycle %d, ticker %d: ticker %d done with the cycle = %v, want %v", now, s.id, id, got, truth)
		}
		if got {
			s.asked[0]++
		} else {
			s.asked[1]++
		}
	}
	next := now + 1
	if s.rng.IntN(3) == 0 {
		next = now + 1 + Time(s.rng.IntN(6))
	}
	s.plan[s.id] = next
	return next
}

// A busy ticker ticks exactly once in every cycle, whatever the visiting
// order, so during a pass "asleep, or busy and ticked in this cycle" tells
// exactly which tickers are done with the cycle: routers count a credit
// at once for an upstream router that is (router.send).
func TestBusyTickersTickOncePerCycle(t *testing.T) {
	for _, order := range []string{"list", "byid", "shuffle"} {
		t.Run(order, func(t *testing.T) {
			const n = 130 // more than two words of the id bit set
			e := New()
			plan, last := make([]Time, n), make([]Time, n)
			var asked [2]int
			rng := rand.New(rand.NewPCG(5, 7))
			for i := range n {
				s := &settler{t: t, e: e, rng: rng, plan: plan, last: last, asked: &asked}
				s.id = e.Register(s)
				last[i] = -1
			}
			switch order {
			case "byid":
				e.TickByID()
			case "shuffle":
				e.ShuffleTicks(9)
			}
			for i := range n {
				e.Activate(int32(i))
			}
			if err := e.Run(300); err != nil {
				t.Fatal(err)
			}
			if asked[0] == 0 || asked[1] == 0 {
				t.Fatalf("answers true/false %v: both kinds must be checked", asked)
			}
		})
	}
}
