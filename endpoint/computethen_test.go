package endpoint

import (
	"fmt"
	"slices"
	"testing"

	"nocsim/des"
)

// ComputeThen(a, b) is Compute(a) followed by Compute(b): the thread ends
// at the same cycle, the processor is busy as long, the engine handles the
// same events, and handlers that arrive in the middle (waiting for the
// main thread to yield, or preempting it) run at the same cycles.
func TestComputeThenIsTwoComputes(t *testing.T) {
	type outcome struct {
		end, busy des.Time
		events    uint64
		handlers  []des.Time
	}
	run := func(preempt, then bool, a, b int64) outcome {
		m := newTestMachine(t, 2, 1, func(c *CPUSpec) { c.PreemptThreads = preempt })
		var o outcome
		ping := m.Register("ping", func(th *Thread, _ []uint32) {
			o.handlers = append(o.handlers, th.Now())
			th.Compute(3)
		})
		m.Nodes[1].Start("main", func(th *Thread) {
			for range 3 {
				if then {
					th.ComputeThen(a, b)
				} else {
					th.Compute(a)
					th.Compute(b)
				}
			}
			o.end = th.Now()
		})
		m.Nodes[0].Start("pinger", func(th *Thread) {
			for range 4 {
				if err := th.CreateThread(1, ping); err != nil {
					t.Error(err)
				}
				th.Compute(37)
			}
		})
		if err := m.Run(-1); err != nil {
			t.Fatal(err)
		}
		o.busy, o.events = m.Nodes[1].Busy, m.Eng.Events()
		return o
	}
	for _, preempt := range []bool{false, true} {
		for _, c := range []struct{ a, b int64 }{{0, 0}, {0, 25}, {25, 0}, {40, 25}, {1, 200}, {90, 1}} {
			t.Run(fmt.Sprintf("preempt=%v/%d+%d", preempt, c.a, c.b), func(t *testing.T) {
				two, one := run(preempt, false, c.a, c.b), run(preempt, true, c.a, c.b)
				if len(two.handlers) != 4 {
					t.Fatalf("%d handlers ran, want 4", len(two.handlers))
				}
				if one.end != two.end || one.busy != two.busy || one.events != two.events || !slices.Equal(one.handlers, two.handlers) {
					t.Fatalf("ComputeThen: end %d, busy %d, %d events, handlers at %v; two Computes: end %d, busy %d, %d events, handlers at %v",
						one.end, one.busy, one.events, one.handlers, two.end, two.busy, two.events, two.handlers)
				}
				if min := 3 * (c.a + c.b); two.end < min {
					t.Fatalf("ended at %d, before its %d cycles of computation", two.end, min)
				}
			})
		}
	}
}

// A wait loop woken by the word it waits for checks again one poll turn
// later: a thread alone on its tile (no dispatch cost) returns from
// WaitUntil poll_cycles after the word arrived, whoever charges the turn.
func TestWaitLoopWakesOnePollTurnAfterTheWord(t *testing.T) {
	for _, poll := range []int64{0, 7, 1000} {
		t.Run(fmt.Sprint(poll), func(t *testing.T) {
			m := newTestMachine(t, 3, 1, func(c *CPUSpec) { c.PollCycles = poll })
			var x Transfer
			var woke des.Time
			const flag = 50
			m.Nodes[0].Start("sender", func(th *Thread) {
				th.Compute(300) // the receiver is waiting by then
				if err := th.Write(60, 1); err != nil {
					t.Error(err)
				}
				if err := th.SendBlockNBTo(&x, 2, flag, 1, 60, 1, 1); err != nil {
					t.Error(err)
				}
			})
			m.Nodes[2].Start("receiver", func(th *Thread) {
				th.WaitUntil("the flag", func() bool { return th.Read(flag) != 0 })
				woke = th.Now()
			})
			if err := m.Run(-1); err != nil {
				t.Fatal(err)
			}
			if !x.Delivered || x.DeliveredAt < 300 {
				t.Fatalf("flag delivered=%v at %d, want delivered after cycle 300", x.Delivered, x.DeliveredAt)
			}
			if woke != x.DeliveredAt+poll {
				t.Fatalf("woke at %d, want the flag's arrival %d + poll_cycles %d", woke, x.DeliveredAt, poll)
			}
		})
	}
}
