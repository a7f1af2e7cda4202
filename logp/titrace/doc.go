// Package titrace reads SimGrid's time-independent (TI) MPI traces, the
// text smpirun -trace-ti writes (one line per MPI action: "RANK ACTION
// ARGS..."), and converts them to GOAL schedules: point-to-point actions
// become sends and receives with the dependencies their blocking and
// waits create, compute amounts become calcs through a flops-per-cycle
// rate, and each collective is expanded by logp/collgen into the
// messages of the chosen algorithm of nocsim's MPI library. The schedule
// then runs on the LogGOPS tier (logp/loggops) or on the flit-level chip
// (replayed through the MPI library by mpi/trace), as GOAL schedules do.
//
// Like logp, the package needs nothing of the simulator.
package titrace
