package loggops

import (
	"errors"
	"strings"
	"testing"

	"nocsim/logp/goal"
)

// A stuck report names an op by a label of any length with at most
// goal.MaxEcho bytes of it, for the op itself and for what it waits for.
func TestStuckClipsLabels(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	b := goal.NewBuilder(2, 3)
	// Op 0 waits for op 1 to start, which waits for op 0 to complete.
	c := b.AddCalc(0, 1)
	b.SetLabel(0, c, long)
	s := b.AddSend(0, 1, 8, 0)
	b.SetLabel(0, s, long+"b")
	b.Require(0, s, c)
	b.IRequire(0, c, s)
	sched, err := b.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Simulate(sched, New(1, 1, 1, 0, 0), Options{})
	if err == nil {
		t.Fatal("a dependency cycle: no error")
	}
	if msg := err.Error(); len(msg) > 400 || !strings.Contains(msg, "(1048576 bytes)") {
		t.Errorf("%d-byte report %.500q, want labels clipped to %d bytes naming their length", len(msg), msg, goal.MaxEcho)
	}
	var se *StuckError
	if !errors.As(err, &se) || len(se.Stuck) != 1 || se.Stuck[0].Label != long {
		t.Errorf("the report's Stuck entries keep the whole label: %v", se)
	}
}
