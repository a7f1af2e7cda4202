package des

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
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
