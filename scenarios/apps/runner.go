package apps

import (
	"fmt"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
)

// Result is the outcome of one application run (conjugate gradient, QR,
// matrix multiply, ...) on the simulated SCMP, shared by every Run* function
// of this package.
type Result struct {
	// App names the application, e.g. "cg".
	App string
	// Version is "mpi" for the MPI library version or "native" for the
	// native SCMP version (THREAD and DATA messages).
	Version string
	// Procs is the number of ranks / nodes that took part.
	Procs int
	// Size is the problem size (its meaning is documented by each app,
	// e.g. the number of unknowns for CG).
	Size int
	// Cycles is the simulated cycle at which the last rank/node finished.
	Cycles des.Time
	// Correct reports whether the computed answer passed its check
	// against gonum or an exact serial computation.
	Correct bool
	// Detail is a short human-readable note on the check, e.g. the
	// residual or the maximum error.
	Detail string
}

// runVersion runs an application's MPI or native body, names the version
// in res and sets its time to the last rank's end.
func runVersion(res *Result, native bool, ends []des.Time, mpiRun, nativeRun func() error) error {
	run := mpiRun
	res.Version = "mpi"
	if native {
		res.Version, run = "native", nativeRun
	}
	if err := run(); err != nil {
		return fmt.Errorf("%s %s, P=%d, N=%d: %w", res.App, res.Version, res.Procs, res.Size, err)
	}
	for _, t := range ends {
		res.Cycles = max(res.Cycles, t)
	}
	return nil
}

// allocator hands out blocks of a node's heap as buffers, keeping the
// first failure, so that a native program's setup can allocate freely and
// check once.
type allocator struct {
	node *endpoint.Node
	err  error
}

func (a *allocator) alloc(bytes int) datatype.Buffer {
	addr, b, err := a.node.Alloc(bytes)
	if err != nil && a.err == nil {
		a.err = err
	}
	return datatype.Buffer{Addr: addr, Bytes: b}
}

// mustOK ends a native program's thread on an error: the machine's run
// then fails with it, naming the thread.
func mustOK(err error) {
	if err != nil {
		panic(err)
	}
}

// runAppMPI runs an application's MPI version, the one way every MPI
// version runs: a world of procs ranks on m (recording its communication
// when record is set), prog on every rank, then the checks: the run's own
// error, the first error a rank met through must (which also stops that
// rank), and a machine left quiet.
func runAppMPI(m Machine, procs int, record func(*mpi.World), prog func(r *mpi.Rank, must func(error))) error {
	w, err := m.NewWorld(procs)
	if err != nil {
		return err
	}
	defer w.M.Close()
	var failed error
	must := func(err error) {
		if err != nil {
			if failed == nil {
				failed = err
			}
			panic(err)
		}
	}
	if record != nil {
		w.Record()
	}
	w.Launch(func(r *mpi.Rank) { prog(r, must) })
	if err := w.Run(); err != nil {
		return err
	}
	if record != nil {
		record(w)
	}
	if failed != nil {
		return failed
	}
	return w.CheckQuiet()
}
