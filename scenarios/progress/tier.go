package progress

import (
	"io"
	"time"

	"nocsim/des"
)

// TierAfter is how long a tier run goes before it shows progress: most
// runs take well under a second and print nothing on stderr.
var TierAfter = 2 * time.Second

// Tier shows a long tier run's progress on stderr, with the other
// commands' display: ops completed of the schedule's, elapsed time, an
// ETA, and the simulated cycle reached. It appears once the run has gone
// TierAfter; nil (--quiet) does nothing.
type Tier struct {
	w     io.Writer
	label string
	start time.Time
	bar   *Bar
	at    *des.Engine // the key the cycle is shown under in the display
}

// StartTier starts the clock of a tier run's display; nil when quiet.
func StartTier(w io.Writer, label string, quiet bool) *Tier {
	if quiet {
		return nil
	}
	return &Tier{w: w, label: label, start: time.Now(), at: new(des.Engine)}
}

// Update is loggops.Options.Progress.
func (tp *Tier) Update(done, total int, t float64) {
	if tp == nil {
		return
	}
	first := false
	if tp.bar == nil {
		if time.Since(tp.start) < TierAfter {
			return
		}
		tp.bar = New(tp.w, tp.label, false)
		tp.bar.start = tp.start
		first = true // shown at once, not one redraw interval later
	}
	p := tp.bar
	p.mu.Lock()
	defer p.mu.Unlock()
	p.points, p.unit, p.done, p.total = true, "ops", done, total
	p.cycles[tp.at] = des.Time(t)
	p.draw(first)
}

// SimAt shows the simulated cycle a LogGOPS tier run has reached, filed
// under key as the des heartbeat files an engine's (the tier has none).
func (p *Bar) SimAt(key *des.Engine, t float64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cycles[key] = des.Time(t)
	p.draw(false)
}

// Stop draws the final line, if the display was shown: every op done
// when the run finished.
func (tp *Tier) Stop(finished bool) {
	if tp == nil || tp.bar == nil {
		return
	}
	if finished {
		tp.bar.mu.Lock()
		tp.bar.done = tp.bar.total
		tp.bar.mu.Unlock()
	}
	tp.bar.Stop()
}
