package progress

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nocsim/des"
)

// fakeClock is a progress clock that moves only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newFakeProgress(w *bytes.Buffer) (*Bar, *fakeClock) {
	c := &fakeClock{t: time.Unix(1e9, 0)}
	p := New(w, "test", false)
	p.clock = c.now
	p.start, p.drawn = c.t, c.t
	return p, c
}

// A test buffer is no terminal: plain lines, never \r, at most one per
// plainEvery, and the last point's line always.
func TestProgressPlainLinesWhenNotATerminal(t *testing.T) {
	var b bytes.Buffer
	p, clk := newFakeProgress(&b)
	defer p.Stop()
	if p.tty {
		t.Fatal("a bytes.Buffer taken for a terminal")
	}
	const total = 100
	for done := 1; done <= total; done++ {
		clk.advance(time.Second) // 100 s in all: a line every 10 s at most
		p.Update(done, total)
	}
	p.Stop()
	out := b.String()
	if strings.Contains(out, "\r") {
		t.Fatalf("\\r in non-terminal progress:\n%q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > total/int(plainEvery/time.Second)+1 {
		t.Errorf("%d lines for 100 s of progress, want at most one per %v plus the last:\n%s", len(lines), plainEvery, out)
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, fmt.Sprintf("%d/%d points", total, total)) {
		t.Errorf("last line %q does not say all points are done", last)
	}
}

// Only a character device counts as a terminal.
func TestIsTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a regular file taken for a terminal")
	}
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer taken for a terminal")
	}
	if null, err := os.Open(os.DevNull); err == nil {
		defer null.Close()
		if !isTerminal(null) { // /dev/null is a character device
			t.Error("/dev/null (a character device) not taken for one")
		}
	}
}

// On a terminal the bar is redrawn in place: \r, no newline until the end.
func TestProgressRedrawsInPlaceOnATerminal(t *testing.T) {
	var b bytes.Buffer
	p, clk := newFakeProgress(&b)
	p.tty, p.every = true, ttyEvery
	for done := 1; done <= 4; done++ {
		clk.advance(time.Second)
		p.Update(done, 4)
	}
	p.Stop()
	out := b.String()
	if strings.Count(out, "\r") != 4 || strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("want 4 in-place redraws and one final newline, got %q", out)
	}
}

// The ETA is (elapsed / points done here) x points left. After a resume
// the reused points are not work done here: counting them would promise
// the rest far too soon.
func TestProgressETAAfterResume(t *testing.T) {
	var b bytes.Buffer
	p, clk := newFakeProgress(&b)
	defer p.Stop()
	p.Resumed(90, 100) // 90 reused, 10 to compute
	clk.advance(20 * time.Second)
	p.SweepUpdate(92, 0, 100) // 2 points in 20 s: 10 s a point, 8 left
	eta, ok := p.eta(clk.t.Sub(p.start))
	if want := 80 * time.Second; !ok || eta != want {
		t.Fatalf("ETA %v (%v), want %v: from the 2 points done in this process", eta, ok, want)
	}
	if !strings.Contains(b.String(), "ETA 1m20s") {
		t.Errorf("line does not show the ETA: %q", b.String())
	}
	// Without the resume the same counts would give 20 s / 92 x 8.
	var b2 bytes.Buffer
	q, clk2 := newFakeProgress(&b2)
	defer q.Stop()
	clk2.advance(20 * time.Second)
	q.SweepUpdate(92, 0, 100)
	eta2, _ := q.eta(clk2.t.Sub(q.start))
	elapsed, here, left := float64(20*time.Second), 92.0, 8.0
	if want := time.Duration(elapsed / here * left); eta2 != want {
		t.Fatalf("no resume: ETA %v, want %v", eta2, want)
	}
}

// No ETA before a point of this process is done (nothing to go by).
func TestProgressNoETAWithoutWorkDone(t *testing.T) {
	var b bytes.Buffer
	p, clk := newFakeProgress(&b)
	defer p.Stop()
	p.Resumed(5, 10)
	clk.advance(time.Hour)
	if _, ok := p.eta(time.Hour); ok {
		t.Fatal("an ETA with no point done in this process")
	}
}

// Inside a long point the heartbeat draws the simulated cycle reached,
// and the display never changes the simulation (des tests that a
// heartbeat does not; here: it is only read).
func TestProgressHeartbeatShowsCycles(t *testing.T) {
	var b bytes.Buffer
	p, clk := newFakeProgress(&b)
	defer p.Stop()
	p.Update(0, 3)
	e := des.New()
	var id int32
	id = e.Register(tickerOf(func(now des.Time) des.Time {
		if now == 50_000 || now == 150_000 {
			clk.advance(plainEvery) // a long point: a line is due
		}
		if now >= 200_000 {
			return des.Never
		}
		return now + 1
	}))
	e.Activate(id)
	if err := e.Run(-1); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "running at cycle ") {
		t.Fatalf("no cycle shown during a long point:\n%s", out)
	}
	if !strings.Contains(out, "0/3 points") {
		t.Errorf("heartbeat line lost the point count:\n%s", out)
	}
}

type tickerOf func(des.Time) des.Time

func (f tickerOf) Tick(now des.Time) des.Time { return f(now) }

// A nil display (--quiet) accepts every call and writes nothing.
func TestProgressQuietIsSilent(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, "q", true)
	p.Update(1, 2)
	p.SweepUpdate(1, 0, 2)
	p.Resumed(1, 2)
	p.Stop()
	if b.Len() != 0 {
		t.Fatalf("quiet progress wrote %q", b.String())
	}
}

func TestCycleText(t *testing.T) {
	for _, tc := range []struct {
		c    des.Time
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1k"}, {12_345, "12.3k"}, {4_560_000, "4.56M"}, {7_890_000_000, "7.89G"}} {
		if got := cycleText(tc.c); got != tc.want {
			t.Errorf("cycleText(%d) = %q, want %q", tc.c, got, tc.want)
		}
	}
}
