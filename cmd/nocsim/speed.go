package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"nocsim/scenarios"
	"nocsim/scenarios/progress"
)

// job is one command's progress display and speed measurement, both on
// stderr and both silenced by --quiet.
type job struct {
	c     *cli.Context
	bar   *progress.Bar
	speed scenarios.SpeedMeter
	// silent: no display and no speed figures (startJob's empty label).
	silent bool
}

// startJob starts the clocks and the progress display of a command that is
// about to simulate.
// An empty label is a command that shows neither (a short one, or one
// that says on stderr what it does itself).
func startJob(c *cli.Context, label string) *job {
	if label == "" {
		return &job{c: c, silent: true}
	}
	return &job{c: c, bar: progress.New(c.App.ErrWriter, label, quiet(c)), speed: scenarios.StartSpeed()}
}

// end stops the display and prints the speed figures, measured now;
// flitHops is the run's flit-router traversals if it counted them (network
// runs), else 0.
func (j *job) end(flitHops uint64) {
	j.bar.Stop()
	if j.silent {
		return
	}
	if sp, ok := j.speed.Speed(flitHops); ok {
		j.report(sp)
	}
}

// stop ends the display only: for a command whose speed was measured by
// the scenario (Summary.Speed), reported with report.
func (j *job) stop() { j.bar.Stop() }

func (j *job) report(sp scenarios.Speed) {
	if !quiet(j.c) {
		fmt.Fprintln(j.c.App.ErrWriter, "nocsim: "+sp.String())
	}
}
