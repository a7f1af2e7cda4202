// Package progress is the display of long work on stderr: points (or a
// tier run's ops) done of the total, elapsed wall time, an ETA, and the
// simulated cycle each running point has reached, from the des heartbeat.
// On a terminal it is one line redrawn in place, otherwise plain lines.
//
// It is separate because it only observes: it imports des alone, results
// never depend on it, and every command (and the sweep) shows the same
// display the same way. A nil *Bar or *Tier (--quiet) does nothing.
package progress
