package main

import (
	"bytes"
	"fmt"

	"github.com/urfave/cli/v2"

	"nocsim/mpi/chrome"
	"nocsim/scenarios"
)

// traceFlag is --trace on every command whose MPI runs go on the chip
// (pingpong has its own, for its one run).
var traceFlag = &cli.StringFlag{Name: "trace", Usage: "write a Chrome trace (Perfetto, chrome://tracing) of every MPI run to `FILE`: one process per run, a track per rank, MPI calls as slices, messages as flow arrows"}

// traceSet starts collecting the runs' traces when --trace is given.
func traceSet(c *cli.Context, opt *scenarios.RunOptions) *chrome.TraceSet {
	if c.String("trace") == "" {
		return nil
	}
	opt.Trace = &chrome.TraceSet{}
	return opt.Trace
}

// writeTraceFile writes the collected traces to --trace, whole; nothing
// when set is nil.
func writeTraceFile(c *cli.Context, set *chrome.TraceSet) error {
	if set == nil {
		return nil
	}
	path := c.String("trace")
	if err := scenarios.WriteFile(path, func(b *bytes.Buffer) error { return set.Write(b) }); err != nil {
		return runErr(err)
	}
	if !quiet(c) {
		fmt.Fprintf(c.App.ErrWriter, "trace: wrote %s (%d runs)\n", path, set.Len())
	}
	return nil
}
