// Package calibrate estimates LogGP parameters (package logp) from
// microbenchmarks, the way one calibrates a model against a real machine:
// ping-pong round trips for the one-way time, the time spent inside a send
// and inside a receive for the overheads, trains of messages for the gap,
// and Netgauge's parametrised round trip PRTT(n, d, s) as a cross-check.
//
// Run performs the microbenchmarks on a simulated machine; ReadCSV reads the
// same measurements taken elsewhere; Fit turns either into a logp.Params
// with confidence intervals, per-size residuals, the protocol switches it
// found, and warnings for anything non-physical. The package never clamps
// a fitted value: a negative latency is reported as such, with a warning,
// so that nobody mistakes it for a measured property of the machine.
package calibrate
