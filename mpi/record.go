package mpi

import (
	"nocsim/des"
	"nocsim/mpi/trace"
)

// recorder is a rank's recording state.
type recorder struct {
	ops    []trace.Op
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
func (w *World) Trace() *trace.Trace {
	if len(w.Ranks) == 0 || w.Ranks[0].rec == nil {
		return nil
	}
	t := &trace.Trace{Ranks: make([][]trace.Op, len(w.Ranks))}
	for i, r := range w.Ranks {
		t.Ranks[i] = r.rec.ops
	}
	return t
}

func (rc *recorder) add(op trace.Op) int32 {
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
			rc.cursor = rc.add(trace.Op{Kind: trace.Calc, Cycles: gap})
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
	op := trace.Op{Kind: trace.Recv, Peer: int32(q.peer), Tag: int64(q.tag), Bytes: int64(q.bytes)}
	if q.send {
		op.Kind = trace.Send
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
	join := trace.Op{Kind: trace.Calc}
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
