package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress draws a bar on stderr for work counted in points. It draws
// nothing when quiet; results never depend on it.
type progress struct {
	w     io.Writer
	label string
	start time.Time
}

func newProgress(w io.Writer, label string, quiet bool) *progress {
	if quiet {
		return nil
	}
	return &progress{w: w, label: label, start: time.Now()}
}

func (p *progress) update(done, total int) {
	if p == nil {
		return
	}
	const width = 30
	fill := width * done / max(total, 1)
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d points %.1fs", p.label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill),
		done, total, time.Since(p.start).Seconds())
	if done == total {
		fmt.Fprintln(p.w)
	}
}
