// Package chrome writes Chrome trace-event files (the JSON format Perfetto
// and chrome://tracing open) of MPI runs: a Recorder takes one run's calls
// and messages, a TraceSet gathers several runs into one file, and times
// are written as exact decimal microseconds of the run's clock.
//
// It is separate from package mpi because the format needs nothing of the
// library: the world calls a Recorder with ranks, names and cycle counts,
// and the file is written from those alone.
package chrome
