// Package apps holds the application kernels that run on the simulated
// SCMP: conjugate gradient (the Allreduce version and the thesis's),
// QR decomposition (1d column-cyclic, 2d grid and the thesis's grid),
// matrix multiply (ring and Cannon), the global sum (two-sided and
// one-sided) and a halo exchange. Each has an MPI version and, except the
// one-sided ones, a native SCMP version (THREAD and DATA messages), and
// checks its own answer against gonum or an exact serial computation.
//
// The kernels are separate from scenarios so that what a program does is
// apart from how a run is configured, swept and reported: they take a
// small Machine interface (check the machine and count its tiles, build a
// chip, build an MPI job, the processor's costs) rather than a scenario,
// and every MPI version runs through one runner (runAppMPI). Scenarios,
// the thesis and the sweeps import this package; it imports only the
// machine's packages (des, endpoint, mpi).
package apps
