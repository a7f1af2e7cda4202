package trace

// Kind is what a recorded operation does.
type Kind uint8

// The three operations of a recorded schedule, as in GOAL.
const (
	Send Kind = iota
	Recv
	Calc
)

// Op is one recorded operation of a rank. Requires lists earlier
// operations of the same rank (indices) that must complete before it
// starts, which is how the program ordered them.
type Op struct {
	Kind     Kind
	Peer     int32 // send: destination world rank; receive: source world rank, or -1 for any
	Tag      int64 // -1 for any (receive); see Trace for how contexts map to tags
	Bytes    int64 // send: bytes sent; receive: bytes received (the capacity if it never completed)
	Cycles   int64 // calc: processor cycles
	Requires []int32
	// IRequires lists operations that must have started (GOAL's
	// irequires); recordings never need it, schedules from elsewhere may.
	IRequires []int32
}

// Trace is the communication a recorded run performed: per world rank, its
// sends, receives and computation, with the dependencies the program
// created. It is the content of a GOAL schedule (ToGoal, FromGoal).
//
// What is recorded, and why:
//   - every message the rank posted at the point-to-point level, including
//     those a collective made (a collective is its messages);
//   - computation is the simulated time the rank spent outside
//     point-to-point calls: its own computing, a collective's reduction and
//     copy charges, and library work that is not a message of its own
//     (context-id requests, which travel as THREAD messages);
//   - call overheads: a replay (mpi.World.LaunchTrace) posts each send and
//     receive with MPI_Isend and MPI_Irecv, charged as the program's own
//     posts were, and waits without charge, so the charge of a completion
//     call the program made (MPI_Wait, Waitall, Waitany) is recorded as
//     computation, and MPI_Test and Testall count as computation until they
//     succeed;
//   - order: an operation requires the rank's latest computation or
//     completion; each completion (Wait, Waitall, a successful Test, the end
//     of a blocking call) is a zero-cycle computation requiring the
//     operations it completed, so later operations follow them.
//
// Tags are made unique per communicator context: context<<31 | tag (MPI
// tags are below 2^31), so that messages of different communicators (or a
// collective's own) never match in a replay; a wildcard tag records as -1
// and so matches across contexts there.
type Trace struct {
	Ranks [][]Op
}
