package progress

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"nocsim/des"
)

// Redraw intervals: a terminal's bar is redrawn in place, a file or pipe
// gets whole lines, rarely enough that a log stays readable.
const (
	ttyEvery   = 500 * time.Millisecond
	plainEvery = 10 * time.Second
)

// Bar shows, on stderr, a command's work done: points done of the
// total, elapsed wall time, an ETA from the points completed by this
// process, and, between points, the simulated cycle each running point has
// reached (from the des heartbeat). On a terminal it is one line redrawn
// with \r; otherwise plain lines. It only observes: results never depend on
// it. A nil *Bar (--quiet) does nothing.
type Bar struct {
	mu     sync.Mutex
	w      io.Writer
	label  string
	tty    bool
	every  time.Duration
	clock  func() time.Time // time.Now; tests replace it
	start  time.Time
	drawn  time.Time // last draw
	width  int       // length of the last terminal line, to blank it
	points bool      // the work is counted in points (total known)
	unit   string    // what done and total count; "" = points

	base, done, failed, total int // base: points done before this process (resumed)
	showFailed                bool

	cycles map[*des.Engine]des.Time // running engines' cycles since the last draw
	ended  bool

	drawnAny  bool
	drawnDone int // done at the last draw: stop repeats no final line
}

// New starts a display on w; it returns nil when quiet. Call Stop
// when the work is done.
func New(w io.Writer, label string, quiet bool) *Bar {
	if quiet {
		return nil
	}
	p := &Bar{w: w, label: label, tty: isTerminal(w), clock: time.Now, cycles: map[*des.Engine]des.Time{}}
	p.every = plainEvery
	if p.tty {
		p.every = ttyEvery
	}
	p.start = p.clock()
	p.drawn = p.start
	listen(p)
	return p
}

// The des heartbeat is process-wide; displays subscribe to it here, so
// that displays that overlap (tests in parallel) neither replace nor
// resurrect each other's.
var (
	listenOnce sync.Once
	listenMu   sync.Mutex
	listeners  = map[*Bar]bool{}
)

func listen(p *Bar) {
	listenOnce.Do(func() { des.SetHeartbeat(beatAll) })
	listenMu.Lock()
	listeners[p] = true
	listenMu.Unlock()
}

func unlisten(p *Bar) {
	listenMu.Lock()
	delete(listeners, p)
	listenMu.Unlock()
}

func beatAll(e *des.Engine) {
	listenMu.Lock()
	defer listenMu.Unlock()
	for p := range listeners {
		p.beat(e)
	}
}

// isTerminal: only a character device gets \r; a file, pipe or test buffer
// gets plain lines.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Update is RunOptions.Progress: done of total points finished.
func (p *Bar) Update(done, total int) { p.set(done, total, 0, false) }

// SweepUpdate is sweep.Options.Progress: points done (reused ones included)
// and failed of total.
func (p *Bar) SweepUpdate(done, failed, total int) { p.set(done, total, failed, true) }

// set records the counts (a sweep's line shows the failed ones too) and
// draws.
func (p *Bar) set(done, total, failed int, sweep bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.points, p.done, p.total = true, done, total
	if sweep {
		p.showFailed, p.failed = true, failed
	}
	p.draw(done == total)
}

// Resumed says that done of total points were already done before this
// process started: the ETA counts only work done here.
func (p *Bar) Resumed(done, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.points, p.showFailed = true, true
	p.base, p.done, p.total = done, done, total
}

// beat is the des heartbeat: it runs on a simulating goroutine.
func (p *Bar) beat(e *des.Engine) {
	now := e.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cycles[e] = now
	p.draw(false)
}

// Stop draws the final line (if the last update did not) and removes the
// heartbeat.
func (p *Bar) Stop() {
	if p == nil {
		return
	}
	unlisten(p)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	if !p.drawnAny || p.done != p.drawnDone || !p.points {
		clear(p.cycles)
		p.draw(true)
	}
	if p.tty {
		fmt.Fprintln(p.w)
	}
	p.ended = true
}

// eta is the time left, from the points this process completed so far.
func (p *Bar) eta(elapsed time.Duration) (time.Duration, bool) {
	here := p.done - p.base
	if !p.points || here <= 0 || p.done >= p.total {
		return 0, false
	}
	return time.Duration(float64(elapsed) / float64(here) * float64(p.total-p.done)), true
}

// line is the text of one draw.
func (p *Bar) line(now time.Time) string {
	elapsed := now.Sub(p.start)
	var b strings.Builder
	b.WriteString(p.label)
	if p.points {
		if p.tty {
			const width = 20
			fill := width * p.done / max(p.total, 1)
			fmt.Fprintf(&b, " [%s%s]", strings.Repeat("=", fill), strings.Repeat(" ", width-fill))
		}
		unit := p.unit
		if unit == "" {
			unit = "points"
		}
		fmt.Fprintf(&b, " %d/%d %s", p.done, p.total, unit)
		if p.showFailed {
			fmt.Fprintf(&b, ", %d failed", p.failed)
		}
	}
	fmt.Fprintf(&b, ", %s elapsed", elapsed.Round(100*time.Millisecond))
	if left, ok := p.eta(elapsed); ok {
		fmt.Fprintf(&b, ", ETA %s", left.Round(time.Second))
	}
	if len(p.cycles) > 0 {
		cs := make([]des.Time, 0, len(p.cycles))
		for _, c := range p.cycles {
			cs = append(cs, c)
		}
		slices.Sort(cs)
		slices.Reverse(cs)
		b.WriteString(", running at cycle")
		if len(cs) > 1 {
			b.WriteString("s")
		}
		const show = 4
		for i, c := range cs[:min(len(cs), show)] {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(" " + cycleText(c))
		}
		if len(cs) > show {
			fmt.Fprintf(&b, " (+%d more)", len(cs)-show)
		}
	}
	return b.String()
}

// draw writes the line if it is due or forced; called with mu held.
func (p *Bar) draw(force bool) {
	if p.ended {
		return
	}
	now := p.clock()
	if !force && now.Sub(p.drawn) < p.every {
		return
	}
	if p.points && p.done == p.total {
		clear(p.cycles) // they belong to points now finished
	}
	l := p.line(now)
	p.drawn, p.drawnDone, p.drawnAny = now, p.done, true
	clear(p.cycles) // engines that still run beat again before the next draw
	if !p.tty {
		fmt.Fprintln(p.w, l)
		return
	}
	pad := max(p.width-len(l), 0)
	p.width = len(l)
	fmt.Fprintf(p.w, "\r%s%s", l, strings.Repeat(" ", pad))
}

// cycleText writes a cycle count short: 987, 12.3k, 4.56M, 7.89G.
func cycleText(c des.Time) string {
	v := float64(c)
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.3gG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprint(c)
}
