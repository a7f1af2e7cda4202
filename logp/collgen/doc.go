// Package collgen generates GOAL schedules of the collective algorithms
// the mpi package registers, at any rank count: the same messages in the
// same order, the dependencies its waits create, and calcs for its
// reductions (and, optionally, its copies). It imports nothing of the
// simulator; a test in scenarios records every algorithm on the chip and
// compares it with the generated schedule, so the two cannot drift apart.
//
// A schedule is one collective call; every message carries Options.Tag.
// Memory is proportional to the schedule (about 60 bytes per operation
// while it is built), so a 2^20-rank broadcast takes a few hundred MB.
package collgen
