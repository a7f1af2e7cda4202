// Package trace holds a recorded MPI run's communication as data: per
// rank its sends, receives and computation with the dependencies between
// them (Trace), the checks a schedule must pass before it can run, and its
// conversion to and from a GOAL schedule (logp/goal), the LogGOPS tier's
// input.
//
// It is separate from mpi because it is a format, not the library: the
// recording (mpi.World.Record) and the replay on the chip
// (mpi.World.LaunchTrace) need the ranks' internals, but reading, checking
// and converting a schedule do not, and tools that only convert schedules
// need not pull in the simulator. mpi imports it, never the reverse; it is
// also the only place the MPI layer meets the GOAL format.
package trace
