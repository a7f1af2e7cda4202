package mpi

import "nocsim/des"

// TraceKind is what a recorded operation does.
type TraceKind uint8

// The three operations of a recorded schedule, as in GOAL.
const (
	TraceSend TraceKind = iota
	TraceRecv
	TraceCalc
)

// TraceOp is one recorded operation of a rank. Requires lists earlier
// operations of the same rank (indices) that must complete before it
// starts, which is how the program ordered them.
type TraceOp struct {
	Kind     TraceKind
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
// created. It is the content of a GOAL schedule; scenarios writes it as one.
//
// What is recorded, and why:
//   - every message the rank posted at the point-to-point level, including
//     those a collective made (a collective is its messages);
//   - computation is the simulated time the rank spent outside
//     point-to-point calls: its own computing, a collective's reduction and
//     copy charges, and library work that is not a message of its own
//     (context-id requests, which travel as THREAD messages);
//   - call overheads: a replay (World.LaunchTrace) posts each send and
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
	Ranks [][]TraceOp
}

// recorder is a rank's recording state.
type recorder struct {
	ops    []TraceOp
	cursor int32    // latest computation or completion, -1 before any
	last   des.Time // end of the latest point-to-point call
	depth  int      // nesting of point-to-point calls (Sendrecv posts two)
}

// Record makes the run record every rank's communication; call it before
// Launch. Trace returns what was recorded.
func (w *World) Record() {
	for _, r := range w.Ranks {
		r.rec = &recorder{cursor: -1}
	}
}

// Trace is the recorded communication (nil unless Record was called).
func (w *World) Trace() *Trace {
	if len(w.Ranks) == 0 || w.Ranks[0].rec == nil {
		return nil
	}
	t := &Trace{Ranks: make([][]TraceOp, len(w.Ranks))}
	for i, r := range w.Ranks {
		t.Ranks[i] = r.rec.ops
	}
	return t
}

func (rc *recorder) add(op TraceOp) int32 {
	if rc.cursor >= 0 {
		op.Requires = append(op.Requires, rc.cursor)
	}
	rc.ops = append(rc.ops, op)
	return int32(len(rc.ops) - 1)
}

// recBegin starts a point-to-point call: the time since the previous one
// is computation.
func (r *Rank) recBegin() {
	rc := r.rec
	if rc == nil {
		return
	}
	if rc.depth == 0 {
		if gap := r.t.Now() - rc.last; gap > 0 {
			rc.cursor = rc.add(TraceOp{Kind: TraceCalc, Cycles: gap})
		}
	}
	rc.depth++
}

// recEnd ends a point-to-point call.
func (r *Rank) recEnd() {
	rc := r.rec
	if rc == nil {
		return
	}
	if rc.depth--; rc.depth == 0 {
		rc.last = r.t.Now()
	}
}

// recPost records a send or receive the rank posted.
func (r *Rank) recPost(q *Request) {
	rc := r.rec
	if rc == nil {
		return
	}
	op := TraceOp{Kind: TraceRecv, Peer: int32(q.peer), Tag: int64(q.tag), Bytes: int64(q.bytes)}
	if q.send {
		op.Kind = TraceSend
	} else if q.peer == AnySource {
		op.Peer = -1
	}
	if q.tag != AnyTag {
		op.Tag |= int64(q.comm.ctx) << 31
	}
	q.rec = rc.add(op)
}

// recJoin records the completion of requests: later operations follow it.
func (r *Rank) recJoin(qs ...*Request) {
	rc := r.rec
	if rc == nil {
		return
	}
	join := TraceOp{Kind: TraceCalc}
	for _, q := range qs {
		if q == nil || q.rec < 0 || q.joined {
			continue
		}
		q.joined = true
		join.Requires = append(join.Requires, q.rec)
		if !q.send {
			rc.ops[q.rec].Bytes = int64(q.status.Bytes)
		}
	}
	if len(join.Requires) > 0 {
		rc.cursor = rc.add(join)
	}
}

// recStart marks the start of the rank's program: time before it (the
// thread's dispatch) is the machine's, not the program's.
func (r *Rank) recStart() {
	if r.rec != nil {
		r.rec.last = r.t.Now()
	}
}

// recFlush records the computation since the last call, outside any call.
func (r *Rank) recFlush() {
	if r.rec != nil && r.rec.depth == 0 {
		r.recBegin()
		r.recEnd()
	}
}
