package des

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// ---- helpers ---------------------------------------------------------------

// rec is one handled event or one tick.
type rec struct {
	at  Time
	arg int64
}

// recorder is a Handler that logs every call.
type recorder struct{ log []rec }

func (r *recorder) Handle(now Time, arg int64) { r.log = append(r.log, rec{now, arg}) }

// handlerFunc adapts a function to Handler.
type handlerFunc func(now Time, arg int64)

func (f handlerFunc) Handle(now Time, arg int64) { f(now, arg) }

// tickerFunc adapts a function to Ticker.
type tickerFunc func(now Time) Time

func (f tickerFunc) Tick(now Time) Time { return f(now) }

// tickLog is a Ticker that logs the cycles it ticks at and asks next(now)
// for its next cycle.
type tickLog struct {
	at   []Time
	next func(now Time) Time
}

func (t *tickLog) Tick(now Time) Time {
	t.at = append(t.at, now)
	return t.next(now)
}

func seq(from, to Time) []Time { // inclusive
	var s []Time
	for t := from; t <= to; t++ {
		s = append(s, t)
	}
	return s
}

func mustRun(t *testing.T, e *Engine, until Time) {
	t.Helper()
	if err := e.Run(until); err != nil {
		t.Fatalf("Run(%d): unexpected error %v", until, err)
	}
}

// ---- event ordering ----------------------------------------------------------

func TestEventsOrderedByTimeThenSchedulingOrder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		maxTime int64
		seed    uint64
	}{
		{"dense ties", 2000, 20, 1},
		{"sparse", 2000, 1_000_000, 2},
		{"single cycle", 500, 1, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(tc.seed, 99))
			type sched struct {
				at  Time // effective time
				idx int  // scheduling index
			}
			e := New()
			rc := &recorder{}
			want := make([]sched, tc.n)
			for i := range tc.n {
				at := r.Int64N(tc.maxTime)
				e.Schedule(at, rc, int64(i))
				want[i] = sched{at, i}
			}
			if e.Pending() != tc.n {
				t.Fatalf("Pending = %d, want %d", e.Pending(), tc.n)
			}
			sort.SliceStable(want, func(a, b int) bool { return want[a].at < want[b].at })
			mustRun(t, e, -1)
			if len(rc.log) != tc.n {
				t.Fatalf("handled %d events, want %d", len(rc.log), tc.n)
			}
			for i, w := range want {
				got := rc.log[i]
				if got.at != w.at || got.arg != int64(w.idx) {
					t.Fatalf("event #%d: handled (t=%d, idx=%d), want (t=%d, idx=%d)", i, got.at, got.arg, w.at, w.idx)
				}
			}
			if e.Events() != uint64(tc.n) || e.Pending() != 0 {
				t.Errorf("Events=%d Pending=%d, want %d and 0", e.Events(), e.Pending(), tc.n)
			}
		})
	}
}

// Events scheduled from handlers keep the (time, sequence) order too: an
// event a handler schedules for the current cycle runs after every event
// already queued for that cycle.
func TestEventsScheduledFromHandlersKeepOrder(t *testing.T) {
	e := New()
	var got []string
	var h handlerFunc
	h = func(now Time, arg int64) {
		got = append(got, fmt.Sprintf("%d@%d", arg, now))
		if arg == 1 {
			e.Schedule(now, h, 10)   // same cycle: after 2 and 3
			e.Schedule(now+1, h, 11) // next cycle: after 4 (scheduled earlier)
		}
	}
	e.Schedule(5, h, 1)
	e.Schedule(5, h, 2)
	e.Schedule(6, h, 4)
	e.Schedule(5, h, 3)
	mustRun(t, e, -1)
	want := []string{"1@5", "2@5", "3@5", "10@5", "4@6", "11@6"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

// ---- Run / Stop / Schedule in the past --------------------------------------

func TestRunUntilStopsAfterCycleAndContinues(t *testing.T) {
	e := New()
	rc := &recorder{}
	for c := Time(0); c <= 20; c++ {
		e.Schedule(c, rc, c)
	}
	mustRun(t, e, 10)
	if len(rc.log) != 11 || rc.log[10].at != 10 {
		t.Fatalf("Run(10) handled %v, want cycles 0..10", rc.log)
	}
	if e.Now() != 10 {
		t.Errorf("Now after Run(10) = %d, want 10", e.Now())
	}
	if e.Pending() != 10 {
		t.Errorf("Pending after Run(10) = %d, want 10", e.Pending())
	}
	mustRun(t, e, 15)
	if len(rc.log) != 16 || rc.log[15].at != 15 {
		t.Fatalf("Run(15) handled up to %v, want cycle 15", rc.log[len(rc.log)-1])
	}
	// A limit already passed does nothing.
	mustRun(t, e, 12)
	if len(rc.log) != 16 {
		t.Fatalf("Run(12) after cycle 15 handled more events: %d", len(rc.log))
	}
	mustRun(t, e, -1)
	if len(rc.log) != 21 || e.Pending() != 0 {
		t.Fatalf("Run(-1) left %d pending, handled %d", e.Pending(), len(rc.log))
	}
	for i, r := range rc.log {
		if r.at != Time(i) || r.arg != int64(i) {
			t.Fatalf("event %d handled as %+v", i, r)
		}
	}
}

func TestRunUntilWithBusyTicker(t *testing.T) {
	e := New()
	tk := &tickLog{next: func(now Time) Time { return now + 1 }}
	e.Activate(e.Register(tk))
	mustRun(t, e, 10)
	if !slices.Equal(tk.at, seq(0, 10)) {
		t.Fatalf("ticks %v, want 0..10", tk.at)
	}
	mustRun(t, e, 20)
	if !slices.Equal(tk.at, seq(0, 20)) {
		t.Fatalf("ticks %v, want 0..20", tk.at)
	}
	if e.Ticks() != 21 {
		t.Errorf("Ticks = %d, want 21", e.Ticks())
	}
}

func TestRunReturnsWhenNothingLeft(t *testing.T) {
	e := New()
	mustRun(t, e, -1) // empty engine
	rc := &recorder{}
	e.Schedule(3, rc, 0)
	tk := &tickLog{next: func(now Time) Time {
		if now < 7 {
			return now + 1
		}
		return Never
	}}
	e.Wake(e.Register(tk), 4)
	mustRun(t, e, -1)
	if len(rc.log) != 1 || !slices.Equal(tk.at, seq(4, 7)) {
		t.Fatalf("events %v ticks %v", rc.log, tk.at)
	}
	if e.Now() != 7 {
		t.Errorf("Now = %d, want 7 (last active cycle)", e.Now())
	}
}

func TestStopInHandler(t *testing.T) {
	e := New()
	var got []rec
	h := handlerFunc(func(now Time, arg int64) {
		got = append(got, rec{now, arg})
		if arg == 2 {
			e.Stop()
		}
	})
	tk := &tickLog{next: func(now Time) Time { return Never }}
	id := e.Register(tk)
	e.Schedule(1, h, 1)
	e.Schedule(5, h, 2) // stops
	e.Schedule(5, h, 3) // same cycle, must wait for the next Run
	e.Schedule(8, h, 4)
	e.Wake(id, 5)
	mustRun(t, e, -1)
	if want := []rec{{1, 1}, {5, 2}}; !slices.Equal(got, want) {
		t.Fatalf("first run handled %v, want %v", got, want)
	}
	if len(tk.at) != 0 {
		t.Fatalf("ticker ticked at %v although Run stopped during cycle 5's events", tk.at)
	}
	if e.Pending() != 2 {
		t.Fatalf("Pending = %d, want 2", e.Pending())
	}
	mustRun(t, e, -1)
	if want := []rec{{1, 1}, {5, 2}, {5, 3}, {8, 4}}; !slices.Equal(got, want) {
		t.Fatalf("after second run handled %v, want %v", got, want)
	}
	if !slices.Equal(tk.at, []Time{5}) {
		t.Fatalf("ticker ticked at %v, want [5]", tk.at)
	}
}

func TestStopInTickerFinishesCycle(t *testing.T) {
	e := New()
	var a, b []Time
	ta := tickerFunc(func(now Time) Time {
		a = append(a, now)
		if now == 7 {
			e.Stop()
		}
		return now + 1
	})
	tb := tickerFunc(func(now Time) Time { b = append(b, now); return now + 1 })
	e.Activate(e.Register(ta))
	e.Activate(e.Register(tb))
	mustRun(t, e, 100)
	if !slices.Equal(a, seq(0, 7)) || !slices.Equal(b, seq(0, 7)) {
		t.Fatalf("ticks a=%v b=%v, want both 0..7 (the cycle is finished)", a, b)
	}
	mustRun(t, e, 10)
	if !slices.Equal(a, seq(0, 10)) || !slices.Equal(b, seq(0, 10)) {
		t.Fatalf("after resuming ticks a=%v b=%v, want both 0..10", a, b)
	}
}

// Schedule's contract: an event for the current cycle whose tick phase has
// run moves to the first cycle that has not ticked yet (earlier times
// panic: TestSchedulePastPanics).
func TestScheduleInThePast(t *testing.T) {
	t.Run("after Run(until)", func(t *testing.T) {
		e := New()
		rc := &recorder{}
		tk := &tickLog{next: func(now Time) Time { return now + 1 }}
		e.Activate(e.Register(tk))
		mustRun(t, e, 10) // cycle 10 has ticked
		e.Schedule(10, rc, 1)
		e.Schedule(10, rc, 2)
		e.Schedule(11, rc, 3)
		e.Schedule(12, rc, 4)
		mustRun(t, e, 12)
		if want := []rec{{11, 1}, {11, 2}, {11, 3}, {12, 4}}; !slices.Equal(rc.log, want) {
			t.Fatalf("handled %v, want %v", rc.log, want)
		}
	})
	t.Run("after Run(until) with idle gap", func(t *testing.T) {
		// Cycle 5 is the last processed one; cycles 6..10 have not ticked,
		// so an event for cycle 7 stays at 7, one for 5 moves to 6.
		e := New()
		rc := &recorder{}
		e.Schedule(5, rc, 0)
		e.Schedule(20, rc, 9)
		mustRun(t, e, 10)
		e.Schedule(7, rc, 1)
		e.Schedule(5, rc, 2)
		mustRun(t, e, -1)
		if want := []rec{{5, 0}, {6, 2}, {7, 1}, {20, 9}}; !slices.Equal(rc.log, want) {
			t.Fatalf("handled %v, want %v", rc.log, want)
		}
	})
	fromHandler := func(t *testing.T, busyBefore bool) {
		// During cycle 10's event phase, cycle 10 has not ticked: an
		// event for 10 runs in the same cycle, after the events already
		// queued for 10 and before the tickers.
		e := New()
		rc := &recorder{}
		var order []string
		tk := &tickLog{next: func(now Time) Time { order = append(order, fmt.Sprintf("tick@%d", now)); return Never }}
		id := e.Register(tk)
		e.Wake(id, 10)
		if busyBefore {
			// A ticker busy in cycles 0..9, so no cycle is skipped.
			e.Activate(e.Register(tickerFunc(func(now Time) Time {
				if now < 9 {
					return now + 1
				}
				return Never
			})))
		}
		e.Schedule(10, handlerFunc(func(now Time, _ int64) {
			e.Schedule(now, handlerFunc(func(now Time, _ int64) { order = append(order, fmt.Sprintf("same@%d", now)) }), 0)
			e.Schedule(now, rc, 7)
		}), 0)
		e.Schedule(10, handlerFunc(func(now Time, _ int64) { order = append(order, fmt.Sprintf("second@%d", now)) }), 0)
		mustRun(t, e, -1)
		if want := []string{"second@10", "same@10", "tick@10"}; !slices.Equal(order, want) {
			t.Fatalf("order %v, want %v", order, want)
		}
		if want := []rec{{10, 7}}; !slices.Equal(rc.log, want) {
			t.Fatalf("handled %v, want %v", rc.log, want)
		}
	}
	t.Run("from a handler", func(t *testing.T) { fromHandler(t, true) })
	// Same, but cycles 0..9 were skipped as idle: an event for the
	// current cycle must still not run ahead of events queued earlier.
	t.Run("from a handler after an idle jump", func(t *testing.T) { fromHandler(t, false) })
	t.Run("from a ticker", func(t *testing.T) {
		// During cycle 10's tick phase, cycle 10 has ticked: an event for
		// 10 moves to 11.
		e := New()
		rc := &recorder{}
		tk := tickerFunc(func(now Time) Time {
			if now == 10 {
				e.Schedule(10, rc, 1)
				e.Schedule(11, rc, 3)
			}
			return Never
		})
		e.Wake(e.Register(tk), 10)
		mustRun(t, e, -1)
		if want := []rec{{11, 1}, {11, 3}}; !slices.Equal(rc.log, want) {
			t.Fatalf("handled %v, want %v", rc.log, want)
		}
	})
	afterStop := func(t *testing.T, idleJump bool) {
		// Stopped during cycle 5's events: cycle 5 has not ticked, so an
		// event for 5 runs at 5 (after the events still queued there), and
		// time never goes back.
		e := New()
		rc := &recorder{}
		if !idleJump {
			e.Schedule(4, rc, 0)
		}
		e.Schedule(5, handlerFunc(func(Time, int64) { e.Stop() }), 0)
		e.Schedule(5, rc, 1)
		mustRun(t, e, -1)
		if e.Now() != 5 {
			t.Fatalf("Now after Stop = %d, want 5", e.Now())
		}
		e.Schedule(5, rc, 3)
		mustRun(t, e, -1)
		want := []rec{{5, 1}, {5, 3}}
		if !idleJump {
			want = append([]rec{{4, 0}}, want...)
		}
		if !slices.Equal(rc.log, want) {
			t.Fatalf("handled %v, want %v", rc.log, want)
		}
		if e.Now() != 5 {
			t.Fatalf("Now = %d, want 5 (time went backwards)", e.Now())
		}
	}
	t.Run("after Stop mid-cycle", func(t *testing.T) { afterStop(t, false) })
	t.Run("after Stop mid-cycle following an idle jump", func(t *testing.T) { afterStop(t, true) })
}

// ---- tickers ------------------------------------------------------------------

func TestTickerBusyTicksEveryCycle(t *testing.T) {
	e := New()
	tk := &tickLog{next: func(now Time) Time {
		if now < 9 {
			return now + 1
		}
		return Never
	}}
	e.Wake(e.Register(tk), 0)
	mustRun(t, e, -1)
	if !slices.Equal(tk.at, seq(0, 9)) {
		t.Fatalf("ticks %v, want 0..9", tk.at)
	}
}

func TestTickerSleepsUntilRequestedCycle(t *testing.T) {
	for _, gap := range []Time{2, 7, 100, wheelSize - 1, wheelSize, wheelSize + 1, 1023, 1024, 1025, 5000} {
		t.Run(fmt.Sprint(gap), func(t *testing.T) {
			e := New()
			tk := &tickLog{next: func(now Time) Time {
				if now >= 3+4*gap {
					return Never
				}
				return now + gap
			}}
			e.Wake(e.Register(tk), 3)
			mustRun(t, e, -1)
			want := []Time{3, 3 + gap, 3 + 2*gap, 3 + 3*gap, 3 + 4*gap}
			if !slices.Equal(tk.at, want) {
				t.Fatalf("ticks %v, want %v", tk.at, want)
			}
			if e.Ticks() != uint64(len(want)) {
				t.Errorf("Ticks = %d, want %d", e.Ticks(), len(want))
			}
		})
	}
}

func TestTickerNeverSleepsUntilWoken(t *testing.T) {
	e := New()
	tk := &tickLog{next: func(Time) Time { return Never }}
	id := e.Register(tk)
	// Registered tickers start asleep.
	mustRun(t, e, -1)
	if len(tk.at) != 0 {
		t.Fatalf("a freshly registered ticker ticked at %v", tk.at)
	}
	e.Activate(id)
	mustRun(t, e, -1)
	if !slices.Equal(tk.at, []Time{0}) {
		t.Fatalf("ticks %v, want [0]", tk.at)
	}
	e.Wake(id, 50)
	mustRun(t, e, -1)
	if !slices.Equal(tk.at, []Time{0, 50}) {
		t.Fatalf("ticks %v, want [0 50]", tk.at)
	}
	// Activate wakes at the first cycle not yet ticked (51).
	e.Activate(id)
	mustRun(t, e, -1)
	if !slices.Equal(tk.at, []Time{0, 50, 51}) {
		t.Fatalf("ticks %v, want [0 50 51]", tk.at)
	}
	// Wake for a past cycle: first cycle not yet ticked.
	e.Wake(id, 3)
	mustRun(t, e, -1)
	if !slices.Equal(tk.at, []Time{0, 50, 51, 52}) {
		t.Fatalf("ticks %v, want [0 50 51 52]", tk.at)
	}
}

func TestWakeEarlierOverridesLater(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sleepTo   Time // what the ticker returns at its first tick
		wakeFrom  Time // cycle of the event that calls Wake
		wakeAt    Time
		thenNever bool // ticker returns Never after the wake; else sleepTo again
		want      []Time
	}{
		{"earlier in wheel", 100, 10, 20, true, []Time{0, 20}},
		{"earlier in wheel, re-requests", 100, 10, 20, false, []Time{0, 20, 100}},
		{"later is ignored", 100, 10, 150, true, []Time{0, 100}},
		{"same is ignored", 100, 10, 100, true, []Time{0, 100}},
		{"far pending, near wake", 6000, 10, 20, true, []Time{0, 20}},
		{"far pending, earlier far wake", 9000, 10, 4000, true, []Time{0, 4000}},
		{"far pending, earlier far wake, re-requests", 9000, 10, 4000, false, []Time{0, 4000, 9000}},
		{"far pending, later far wake ignored", 4000, 10, 9000, true, []Time{0, 4000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New()
			tk := &tickLog{}
			tk.next = func(now Time) Time {
				if len(tk.at) == 1 || (!tc.thenNever && now < tc.sleepTo) {
					return tc.sleepTo
				}
				return Never
			}
			id := e.Register(tk)
			e.Activate(id)
			e.Schedule(tc.wakeFrom, handlerFunc(func(Time, int64) { e.Wake(id, tc.wakeAt) }), 0)
			mustRun(t, e, -1)
			if !slices.Equal(tk.at, tc.want) {
				t.Fatalf("ticks %v, want %v", tk.at, tc.want)
			}
		})
	}
}

func TestWakeOfBusyTickerChangesNothing(t *testing.T) {
	// While the ticker is busy (cycles 0..9), a wake for now, for a cycle
	// inside the busy stretch or for a cycle after it is a no-op.
	for _, tc := range []struct {
		name string
		wake func(e *Engine, id int32, now Time)
	}{
		{"Activate", func(e *Engine, id int32, now Time) { e.Activate(id) }},
		{"now", func(e *Engine, id int32, now Time) { e.Wake(id, now) }},
		{"inside busy stretch", func(e *Engine, id int32, now Time) { e.Wake(id, 6) }},
		{"after busy stretch", func(e *Engine, id int32, now Time) { e.Wake(id, 20) }},
		{"far after busy stretch", func(e *Engine, id int32, now Time) { e.Wake(id, 3000) }},
		{"all of them", func(e *Engine, id int32, now Time) {
			e.Wake(id, 3000)
			e.Wake(id, 20)
			e.Wake(id, 6)
			e.Wake(id, now)
			e.Activate(id)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New()
			tk := &tickLog{next: func(now Time) Time {
				if now < 9 {
					return now + 1
				}
				return Never
			}}
			id := e.Register(tk)
			e.Activate(id)
			e.Schedule(3, handlerFunc(func(now Time, _ int64) { tc.wake(e, id, now) }), 0)
			mustRun(t, e, -1)
			if !slices.Equal(tk.at, seq(0, 9)) {
				t.Fatalf("ticks %v, want exactly 0..9", tk.at)
			}
			// The ticker is not left with a stale pending wake: a later
			// wake still works.
			e.Wake(id, 40)
			mustRun(t, e, -1)
			if want := append(seq(0, 9), 40); !slices.Equal(tk.at, want) {
				t.Fatalf("ticks %v, want %v", tk.at, want)
			}
		})
	}
}

func TestTickerTicksAtMostOncePerCycle(t *testing.T) {
	e := New()
	tk := &tickLog{next: func(now Time) Time {
		if now == 10 {
			return 12 // and the wakes below ask for 12 too
		}
		return Never
	}}
	id := e.Register(tk)
	e.Schedule(2, handlerFunc(func(Time, int64) {
		e.Wake(id, 10)
		e.Wake(id, 10)
		e.Wake(id, 11) // later: ignored
		e.Wake(id, 10)
	}), 0)
	// No-op events at 9 and 4999 make those cycles processed, so that
	// Activate at 10 and 5000 means "this cycle" even with the idle-jump
	// bug (see TestActivateFromHandlerAfterIdleJump).
	e.Schedule(9, handlerFunc(func(Time, int64) {}), 0)
	e.Schedule(4999, handlerFunc(func(Time, int64) {}), 0)
	e.Schedule(10, handlerFunc(func(Time, int64) {
		e.Activate(id) // due this cycle already
		e.Wake(id, 10)
		e.Wake(id, 3) // past: moves to 10
	}), 0)
	// A far wake and a near wake for the same cycle, plus several wake
	// events all landing on cycle 5000.
	e.Schedule(11, handlerFunc(func(Time, int64) { e.Wake(id, 12) }), 0)
	e.Schedule(13, handlerFunc(func(Time, int64) {
		e.Wake(id, 5000)
		e.Wake(id, 5000)
	}), 0)
	e.Schedule(14, handlerFunc(func(Time, int64) { e.Wake(id, 5000) }), 0)
	e.Schedule(5000, handlerFunc(func(Time, int64) { e.Activate(id); e.Wake(id, 5000) }), 0)
	mustRun(t, e, -1)
	if want := []Time{10, 12, 5000}; !slices.Equal(tk.at, want) {
		t.Fatalf("ticks %v, want %v", tk.at, want)
	}
}

func TestFarWakeFiresAtRightCycle(t *testing.T) {
	for _, at := range []Time{wheelSize - 1, wheelSize, wheelSize + 1, 2 * wheelSize, 1023, 1024, 1025, 2048, 5000, 123_457} {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			e := New()
			tk := &tickLog{next: func(Time) Time { return Never }}
			id := e.Register(tk)
			// Start the wake from a non-zero cycle so wheel slot aliasing
			// (at mod wheel size) would show up.
			e.Schedule(7, handlerFunc(func(now Time, _ int64) { e.Wake(id, now+at) }), 0)
			mustRun(t, e, -1)
			if want := []Time{7 + at}; !slices.Equal(tk.at, want) {
				t.Fatalf("ticks %v, want %v", tk.at, want)
			}
			if e.Ticks() != 1 {
				t.Errorf("Ticks = %d, want 1", e.Ticks())
			}
		})
	}
}

// Activate from an event handler must make the ticker tick in the current
// cycle, also when the cycles before it were skipped as idle.
func TestActivateFromHandlerAfterIdleJump(t *testing.T) {
	for _, tc := range []struct {
		name string
		wake func(e *Engine, id int32, now Time)
	}{
		{"Activate", func(e *Engine, id int32, now Time) { e.Activate(id) }},
		{"Wake(now)", func(e *Engine, id int32, now Time) { e.Wake(id, now) }},
		{"Wake(past)", func(e *Engine, id int32, now Time) { e.Wake(id, 3) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New()
			tk := &tickLog{next: func(Time) Time { return Never }}
			id := e.Register(tk)
			e.Schedule(900, handlerFunc(func(now Time, _ int64) { tc.wake(e, id, now) }), 0)
			// Later wakes must keep working too.
			e.Schedule(2000, handlerFunc(func(now Time, _ int64) { e.Wake(id, now+5) }), 0)
			mustRun(t, e, -1)
			if want := []Time{900, 2005}; !slices.Equal(tk.at, want) {
				t.Fatalf("ticks %v, want %v", tk.at, want)
			}
		})
	}
}

func TestEventsRunBeforeTickersInSameCycle(t *testing.T) {
	e := New()
	var order []string
	seen := map[Time]bool{}
	tk := tickerFunc(func(now Time) Time {
		order = append(order, fmt.Sprintf("tick@%d(saw=%v)", now, seen[now]))
		if now < 6 {
			return now + 3
		}
		return Never
	})
	id := e.Register(tk)
	e.Wake(id, 0)
	for _, c := range []Time{0, 3, 6} {
		e.Schedule(c, handlerFunc(func(now Time, _ int64) {
			seen[now] = true
			order = append(order, fmt.Sprintf("ev@%d", now))
		}), 0)
	}
	mustRun(t, e, -1)
	want := []string{"ev@0", "tick@0(saw=true)", "ev@3", "tick@3(saw=true)", "ev@6", "tick@6(saw=true)"}
	if !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
}

// A run over 10^12 cycles with a handful of activities finishes at once only
// if idle cycles are skipped; the tick and event counts prove that only the
// active cycles were visited.
func TestTimeJumpsOverIdleStretches(t *testing.T) {
	const step = Time(100_000_000_000)
	e := New()
	tk := &tickLog{}
	tk.next = func(now Time) Time {
		if now >= 10*step {
			return Never
		}
		return now + step
	}
	near := &tickLog{}
	near.next = func(now Time) Time {
		if now >= 9000 {
			return Never
		}
		return now + 900 // inside the wheel
	}
	e.Activate(e.Register(tk))
	e.Activate(e.Register(near))
	rc := &recorder{}
	for i := Time(1); i <= 5; i++ {
		e.Schedule(i*step+step/2, rc, int64(i))
	}
	mustRun(t, e, -1)
	if len(tk.at) != 11 || tk.at[10] != 10*step {
		t.Fatalf("far ticker ticked %d times (last at %d), want 11 (last at %d)", len(tk.at), tk.at[len(tk.at)-1], 10*step)
	}
	if len(near.at) != 11 || near.at[10] != 9000 {
		t.Fatalf("near ticker ticks %v", near.at)
	}
	if e.Ticks() != 22 || e.Events() < 5 {
		t.Fatalf("Ticks = %d Events = %d, want 22 ticks and at least the 5 events", e.Ticks(), e.Events())
	}
	for i, r := range rc.log {
		if r.at != Time(i+1)*step+step/2 {
			t.Fatalf("event %d at %d", i, r.at)
		}
	}
	if e.Now() != 10*step {
		t.Errorf("Now = %d, want %d", e.Now(), 10*step)
	}
}

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

// ---- watchdog ------------------------------------------------------------------

func TestWatchdogFiresAfterExactlyConfiguredCycles(t *testing.T) {
	for _, tc := range []struct {
		cycles   Time
		progress Time // ticker calls Progress at cycles < progress
	}{
		{1, 0},
		{37, 0},
		{37, 21},
		{1000, 0},
		{2500, 300},
	} {
		t.Run(fmt.Sprintf("%d/%d", tc.cycles, tc.progress), func(t *testing.T) {
			e := New()
			calls := 0
			e.SetWatchdog(tc.cycles, func() string { calls++; return "router 3 waits for credit" })
			tk := &tickLog{}
			tk.next = func(now Time) Time {
				if now < tc.progress {
					e.Progress()
				}
				return now + 1
			}
			e.Activate(e.Register(tk))
			err := e.Run(-1)
			var st *Stall
			if !errors.As(err, &st) {
				t.Fatalf("Run returned %v, want a *Stall", err)
			}
			since := max(tc.progress-1, 0)
			if st.Since != since || st.At != since+tc.cycles {
				t.Fatalf("Stall At=%d Since=%d, want At=%d Since=%d", st.At, st.Since, since+tc.cycles, since)
			}
			if st.Report != "router 3 waits for credit" || calls != 1 {
				t.Fatalf("Report %q from %d reporter calls", st.Report, calls)
			}
			if e.Stalled() != st {
				t.Errorf("Stalled() = %v, want the returned stall", e.Stalled())
			}
			if tk.at[len(tk.at)-1] != st.At {
				t.Errorf("last tick at %d, stall at %d", tk.at[len(tk.at)-1], st.At)
			}
			if msg := err.Error(); !strings.Contains(msg, "router 3 waits for credit") || !strings.Contains(msg, fmt.Sprint(tc.cycles)) {
				t.Errorf("error text %q lacks the report or the cycle count", msg)
			}
		})
	}
}

func TestWatchdogWithoutReporter(t *testing.T) {
	e := New()
	e.SetWatchdog(10, nil)
	e.Activate(e.Register(tickerFunc(func(now Time) Time { return now + 1 })))
	var st *Stall
	if err := e.Run(-1); !errors.As(err, &st) || st.At != 10 || st.Report != "" {
		t.Fatalf("Run = %v, want stall at 10 with empty report", err)
	}
}

func TestWatchdogQuietWithProgress(t *testing.T) {
	e := New()
	e.SetWatchdog(5, func() string { t.Error("reporter called"); return "" })
	tk := &tickLog{}
	tk.next = func(now Time) Time {
		e.Progress()
		if now < 10_000 {
			return now + 1
		}
		return Never
	}
	e.Activate(e.Register(tk))
	mustRun(t, e, -1)
	if len(tk.at) != 10_001 || e.Stalled() != nil {
		t.Fatalf("ticks %d stalled %v", len(tk.at), e.Stalled())
	}
}

func TestWatchdogDisarmed(t *testing.T) {
	e := New()
	e.SetWatchdog(5, nil)
	e.SetWatchdog(0, nil)
	e.Activate(e.Register(tickerFunc(func(now Time) Time { return now + 1 })))
	mustRun(t, e, 1000)
}

// No ticker is busy; only events far apart. No stall however long the gaps.
func TestWatchdogIgnoresIdleEventsOnly(t *testing.T) {
	e := New()
	e.SetWatchdog(10, nil)
	rc := &recorder{}
	for i := Time(0); i < 10; i++ {
		e.Schedule(i*1000, rc, 0)
	}
	// A ticker that sleeps between far-apart ticks, each calling Progress.
	e.Activate(e.Register(tickerFunc(func(now Time) Time {
		e.Progress()
		if now < 50_000 {
			return now + 5000
		}
		return Never
	})))
	mustRun(t, e, -1)
	if len(rc.log) != 10 {
		t.Fatalf("handled %d events", len(rc.log))
	}
}

// Idle stretches (no ticker busy) must not count towards the watchdog: a
// ticker that was idle for a long time and is then busy without progress for
// fewer cycles than the watchdog allows must not stall the run.
func TestWatchdogIdleStretchDoesNotCount(t *testing.T) {
	const watchdog = 100
	var ticks int
	busyNoProgress := func(e *Engine, from Time) Ticker {
		// Busy without Progress for 50 cycles starting at from, then done.
		return tickerFunc(func(now Time) Time {
			ticks++
			if now < from+49 {
				return now + 1
			}
			return Never
		})
	}
	for _, tc := range []struct {
		name  string
		setup func(e *Engine)
	}{
		{"idle from start, woken by wheel", func(e *Engine) {
			e.Wake(e.Register(busyNoProgress(e, 500)), 500)
		}},
		{"idle from start, woken far", func(e *Engine) {
			e.Wake(e.Register(busyNoProgress(e, 3000)), 3000)
		}},
		{"progressing, then asleep, then busy", func(e *Engine) {
			e.Activate(e.Register(tickerFunc(func(now Time) Time {
				switch {
				case now < 10:
					e.Progress()
					return now + 1
				case now == 10:
					e.Progress()
					return 1000 // sleep through an idle stretch
				case now < 1049:
					ticks++
					return now + 1 // busy without progress for 50 cycles
				}
				return Never
			})))
		}},
		{"far-future events, then activated by an event", func(e *Engine) {
			id := e.Register(busyNoProgress(e, 900))
			rc := &recorder{}
			e.Schedule(300, rc, 0)
			e.Schedule(600, rc, 0)
			// Wake(now) rather than Activate: see TestActivateFromHandlerAfterIdleJump.
			e.Schedule(900, handlerFunc(func(now Time, _ int64) { e.Wake(id, now) }), 0)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New()
			ticks = 0
			e.SetWatchdog(watchdog, func() string { return "stuck" })
			tc.setup(e)
			if err := e.Run(-1); err != nil {
				var st *Stall
				errors.As(err, &st)
				t.Fatalf("Run returned a stall (At=%d Since=%d) although no ticker was busy without progress for more than 50 cycles", st.At, st.Since)
			}
			if ticks < 49 {
				t.Fatalf("the busy stretch ran only %d ticks; the test did not exercise it", ticks)
			}
		})
	}
}

// Stalled reports the finding of the last run only.
func TestStalledClearedByLaterRun(t *testing.T) {
	e := New()
	e.SetWatchdog(10, nil)
	busy := true
	e.Activate(e.Register(tickerFunc(func(now Time) Time {
		if busy {
			return now + 1
		}
		return Never
	})))
	if err := e.Run(-1); err == nil || e.Stalled() == nil {
		t.Fatalf("first run: err=%v Stalled=%v, want a stall", err, e.Stalled())
	}
	busy = false
	mustRun(t, e, -1)
	if s := e.Stalled(); s != nil {
		t.Fatalf("Stalled() after a run that ended normally = %+v, want nil (doc: \"if it stopped the last run\")", s)
	}
}

// ---- determinism and independence --------------------------------------------

// workload builds a small system driven by a seeded RNG: events that
// schedule more events, and tickers that wake each other. It returns the
// handled sequence.
func workload(seed uint64) []string {
	e := New()
	r := rand.New(rand.NewPCG(seed, 1))
	var out []string
	var tickers []int32
	var h handlerFunc
	h = func(now Time, arg int64) {
		out = append(out, fmt.Sprintf("e%d@%d", arg, now))
		if arg < 3000 {
			for range r.IntN(3) {
				e.Schedule(now+r.Int64N(40), h, arg+int64(1+r.IntN(500)))
			}
			if len(tickers) > 0 && r.IntN(4) == 0 {
				e.Wake(tickers[r.IntN(len(tickers))], now+r.Int64N(2000))
			}
		}
	}
	for i := range 4 {
		budget := 30
		id := e.Register(tickerFunc(func(now Time) Time {
			out = append(out, fmt.Sprintf("t%d@%d", i, now))
			budget--
			if budget <= 0 {
				return Never
			}
			return now + 1 + r.Int64N(int64(3*i+1))
		}))
		tickers = append(tickers, id)
		e.Wake(id, Time(i*5))
	}
	for i := range 50 {
		e.Schedule(r.Int64N(100), h, int64(i))
	}
	if err := e.Run(-1); err != nil {
		panic(err)
	}
	out = append(out, fmt.Sprintf("end events=%d ticks=%d now=%d", e.Events(), e.Ticks(), e.Now()))
	return out
}

func TestDeterminism(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		a, b := workload(seed), workload(seed)
		if len(a) < 100 {
			t.Fatalf("seed %d: workload too small (%d records)", seed, len(a))
		}
		if !slices.Equal(a, b) {
			t.Fatalf("seed %d: two engines fed the same schedule differ", seed)
		}
	}
	if slices.Equal(workload(1), workload(2)) {
		t.Fatal("different seeds gave identical runs; the workload does not depend on its input")
	}
}

func TestEnginesIndependentInParallel(t *testing.T) {
	seeds := []uint64{11, 12, 13, 14}
	want := map[uint64][]string{}
	for _, s := range seeds {
		want[s] = workload(s)
	}
	var wg sync.WaitGroup
	got := make([][]string, 4*len(seeds))
	for i := range got {
		wg.Go(func() { got[i] = workload(seeds[i%len(seeds)]) })
	}
	wg.Wait()
	for i, g := range got {
		if !slices.Equal(g, want[seeds[i%len(seeds)]]) {
			t.Fatalf("run %d (seed %d) in parallel differs from the sequential run", i, seeds[i%len(seeds)])
		}
	}
}

// A time before Now is a caller's bug: Schedule panics naming both cycles,
// from a handler, from a ticker and between runs, and schedules nothing.
func TestSchedulePastPanics(t *testing.T) {
	expectPanic := func(t *testing.T, e *Engine, at Time) {
		t.Helper()
		now, pending := e.Now(), e.Pending()
		defer func() {
			t.Helper()
			r := recover()
			msg, _ := r.(string)
			if !strings.Contains(msg, fmt.Sprintf("cycle %d", at)) || !strings.Contains(msg, fmt.Sprintf("cycle %d", now)) {
				t.Fatalf("Schedule(%d) at cycle %d: panic %v, want one naming both cycles", at, now, r)
			}
			if e.Pending() != pending {
				t.Fatalf("the refused event was queued")
			}
		}()
		e.Schedule(at, &recorder{}, 0)
	}
	t.Run("before cycle 0", func(t *testing.T) { expectPanic(t, New(), -1) })
	t.Run("from a handler", func(t *testing.T) {
		e := New()
		e.Schedule(10, handlerFunc(func(now Time, _ int64) { expectPanic(t, e, now-1) }), 0)
		mustRun(t, e, -1)
	})
	t.Run("from a ticker", func(t *testing.T) {
		e := New()
		e.Wake(e.Register(tickerFunc(func(now Time) Time { expectPanic(t, e, 3); return Never })), 10)
		mustRun(t, e, -1)
	})
	t.Run("between runs", func(t *testing.T) {
		e := New()
		e.Schedule(5, &recorder{}, 0)
		mustRun(t, e, -1)
		expectPanic(t, e, 4)
	})
}
