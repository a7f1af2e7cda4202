// Package study runs what a scenario file's [workload] asks for: the
// workload runners (noc, pingpong, coll on the chip and on the LogGOPS
// tier, app sweeps, pairs, calibrate, GOAL runs, cross-fidelity) behind
// one Workload interface, the kinds table that picks one by [workload]
// kind, the checks every run passes before any simulation (Check), the
// run skeleton that writes a result directory whole (Run), and the
// default study. It is separate from package scenarios, which holds the
// configuration only, so that what a file says and what a run does are
// read, tested and changed apart; the thesis reproduction is package
// thesis, registered here as the "thesis" kind.
package study
