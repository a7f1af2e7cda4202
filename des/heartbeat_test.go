package des

import "testing"

// busyRun runs a ticker that stays busy for cycles cycles and schedules an
// event every 7th cycle; it returns the engine after the run.
func busyRun(t *testing.T, cycles Time) *Engine {
	t.Helper()
	e := New()
	var sink handlerFunc = func(Time, int64) {}
	var id int32
	id = e.Register(tickerFunc(func(now Time) Time {
		if now%7 == 0 {
			e.Schedule(now+3, sink, 0)
		}
		if now >= cycles {
			return Never
		}
		return now + 1
	}))
	e.Activate(id)
	if err := e.Run(-1); err != nil {
		t.Fatal(err)
	}
	return e
}

// The heartbeat fires once per HeartbeatEvents of work (events plus ticks),
// sees time move forward, and does not change what the run does.
func TestHeartbeatCadenceAndNoEffect(t *testing.T) {
	const cycles = 300_000
	plain := busyRun(t, cycles)

	var beats []Time
	SetHeartbeat(func(e *Engine) { beats = append(beats, e.Now()) })
	beat := busyRun(t, cycles)
	SetHeartbeat(nil)

	if beat.Now() != plain.Now() || beat.Events() != plain.Events() || beat.Ticks() != plain.Ticks() {
		t.Fatalf("with a heartbeat: now %d events %d ticks %d; without: %d %d %d",
			beat.Now(), beat.Events(), beat.Ticks(), plain.Now(), plain.Events(), plain.Ticks())
	}
	work := beat.Events() + beat.Ticks()
	// A beat is checked once a cycle, so it is due after at most one
	// cycle's work past each multiple: exactly floor(work/H) beats, or one
	// fewer if the last multiple was reached in the run's final cycle.
	want := int(work / HeartbeatEvents)
	if len(beats) != want && len(beats) != want-1 {
		t.Fatalf("%d beats for %d units of work; want %d (one every %d)", len(beats), work, want, HeartbeatEvents)
	}
	for i := 1; i < len(beats); i++ {
		if beats[i] <= beats[i-1] {
			t.Fatalf("beat %d at cycle %d after beat at %d", i, beats[i], beats[i-1])
		}
	}
	// Removed: a new run does not call it.
	n := len(beats)
	busyRun(t, cycles)
	if len(beats) != n {
		t.Fatal("heartbeat called after SetHeartbeat(nil)")
	}
}

// Process totals grow by exactly each run's cycles and work.
func TestProcessTotalsCountEveryRun(t *testing.T) {
	CountWork(true)
	defer CountWork(false)
	before := ProcessTotals()
	a := busyRun(t, 1000)
	b := busyRun(t, 5000)
	after := ProcessTotals()
	wantCycles := uint64(a.Now() + b.Now())
	wantEvents := a.Events() + a.Ticks() + b.Events() + b.Ticks()
	if got := after.Cycles - before.Cycles; got != wantCycles {
		t.Fatalf("cycles grew by %d; the runs simulated %d", got, wantCycles)
	}
	if got := after.Events - before.Events; got != wantEvents {
		t.Fatalf("events grew by %d; the runs did %d", got, wantEvents)
	}
}

// With counting off (the default) the totals stay put.
func TestProcessTotalsOffByDefault(t *testing.T) {
	CountWork(false)
	before := ProcessTotals()
	busyRun(t, 1000)
	if after := ProcessTotals(); after != before {
		t.Fatalf("totals moved from %+v to %+v with counting off", before, after)
	}
}
