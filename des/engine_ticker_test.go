package des

import (
	"fmt"
	"slices"
	"testing"
)

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
