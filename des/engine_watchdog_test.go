package des

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

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
