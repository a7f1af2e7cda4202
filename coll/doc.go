// Package coll holds nocsim's collective algorithms once: the registry of
// every algorithm (operation, name, source, message count) and, for each
// algorithm that is a static pattern of messages, its schedule program,
// written against Rank, the small interface an engine implements (post
// sends and receives in a step, wait for the step, combine, copy).
//
// Three engines run the same program: mpi runs it on the flit-level chip
// with real data, logp/collgen writes the GOAL schedule it describes, and
// the LogGOPS tier (or a closed form checked against it) predicts its
// time. Because the pattern is written once, the three cannot drift.
//
// The rank arithmetic the algorithms share (binomial and four-way trees,
// relative ranks, word padding) lives here too. coll imports nothing of
// nocsim: the simulator and the models both import it.
package coll
