// Package des is nocsim's discrete-event kernel: integer cycle time, events
// ordered by (time, sequence), components that tick only while busy, and a
// watchdog that turns a stalled run into a report instead of a hang.
//
// One Engine serves one run and holds all of that run's state, so many runs
// may proceed in parallel in one process.
package des
