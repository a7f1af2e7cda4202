package mpi

import (
	"fmt"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi/datatype"
	"nocsim/mpi/group"
	"nocsim/mpi/mpierr"
)

// Wildcards and special values, as in MPICH.
const (
	AnySource = -2
	AnyTag    = -1
	TagUB     = 1<<31 - 1 // MPI_TAG_UB: tags travel as 32-bit words
)

type sendMode uint32

const (
	modeStandard sendMode = iota
	modeSync
	modeReady
	modeBuffered
)

var modeCalls = [...]string{"MPI_Send", "MPI_Ssend", "MPI_Rsend", "MPI_Bsend"}

// Status describes a completed receive (or a probed message).
type Status struct {
	Source int // rank in the communicator
	Tag    int
	Bytes  int // bytes received (or waiting, for a probe)
	Err    error
}

// GetCount is MPI_Get_count: whole elements of t in the status, or
// Undefined when the bytes are not a whole number of them.
func GetCount(s Status, t *datatype.Datatype) int {
	if t == nil || t.Size() == 0 {
		return 0
	}
	if s.Bytes%t.Size() != 0 {
		return group.Undefined
	}
	return s.Bytes / t.Size()
}

// Request is a non-blocking operation in progress.
type Request struct {
	r     *Rank
	id    uint32
	send  bool
	op    op
	mode  sendMode
	buf   datatype.Buffer
	count int
	dt    *datatype.Datatype
	peer  int // send: destination world rank; receive: source world rank or AnySource
	tag   int
	comm  *Comm
	bytes int // send: bytes sent; receive: capacity

	data   datatype.Buffer // what the network reads or writes: buf itself, or a packed copy
	stride uint32          // send: source word stride of data for the DMA engine (0 means 1)
	temp   bool            // data is a temporary to unpack and free
	flag   datatype.Buffer // receive: completion flag word, written by the sender's DATA message
	got    bool            // receive: the data is in place without a flag (eager)
	local  bool            // send: complete as soon as it is handed over (eager, buffered)
	xfer   *endpoint.Transfer
	xferB  endpoint.Transfer // what xfer points to, when the library follows its own message

	arrivedFn func() bool // arrived, made once per request record: a wait allocates nothing

	matched   bool
	from      *envelope // receive: the send it matched
	done      bool
	status    Status
	err       error
	proto     string
	callStart des.Time // the call that created the request
	rec       int32    // index of its recorded operation, -1 if none
	joined    bool     // its completion has been recorded
	posted    des.Time
	handshake des.Time
}

// arrived reports whether the operation has finished on the network side;
// completing it (unpacking, freeing) is left to Wait or Test.
func (q *Request) arrived() bool {
	switch {
	case q.done:
		return true
	case q.send && q.flag.Bytes != nil:
		return q.pumaArrived() // only puma_long sends have a flag
	case q.send:
		return q.local || q.xfer != nil && q.xfer.Sent
	default:
		return q.got || q.flag.Bytes != nil && q.flag.Uint32(0) == 1
	}
}

func (q *Request) describe() string {
	dir := fmt.Sprintf("%s(dest=%d, tag=%d, comm %s, %d bytes)", modeCalls[q.mode], q.comm.group.Rank(q.peer), q.tag, q.comm.name, q.bytes)
	if !q.send {
		src := "MPI_ANY_SOURCE"
		if q.peer != AnySource {
			src = fmt.Sprint(q.comm.group.Rank(q.peer))
		}
		tag := "MPI_ANY_TAG"
		if q.tag != AnyTag {
			tag = fmt.Sprint(q.tag)
		}
		dir = fmt.Sprintf("MPI_Recv(source=%s, tag=%s, comm %s)", src, tag, q.comm.name)
	}
	return dir
}

// complete finishes an arrived request on the rank's thread: unpacks a
// receive, frees temporaries, records the message.
func (r *Rank) complete(q *Request) {
	if q.done {
		return
	}
	q.done = true
	cpu := r.w.M.CPU
	if !q.send {
		n := min(q.status.Bytes, q.bytes)
		if q.temp {
			r.t.Compute(cpu.CopyCyclesPerWord * int64((n+3)/4))
			pos := 0
			if q.dt.Contiguous() {
				copy(q.buf.Bytes, q.data.Bytes[:n])
			} else if err := datatype.Unpack(q.data.Bytes[:n], &pos, q.buf.Bytes, n/max(q.dt.Size(), 1), q.dt); err != nil && q.err == nil {
				q.err = err
			}
		}
		q.status.Err = q.err
		if q.from != nil {
			r.w.traceMessage(q.from.src, q.from.sreq, r.rank, q.status.Bytes, q.proto, r.t.Now())
		}
		r.received++
		if r.w.logMsgs {
			r.log = append(r.log, Message{Source: q.status.Source, Dest: q.comm.rank, Tag: q.status.Tag, Bytes: q.status.Bytes,
				Protocol: q.proto, Posted: q.posted, Handshake: q.handshake, Done: r.t.Now()})
		}
		if q.flag.Bytes != nil {
			r.node.Mem.Free(q.flag.Addr)
		}
	}
	if q.send && q.flag.Bytes != nil {
		// A puma_long send: its put was acknowledged or its data pulled.
		delete(r.sends, q.id)
		r.node.Mem.Free(q.flag.Addr)
	}
	if q.temp {
		r.node.Mem.Free(q.data.Addr)
	}
}

// progress lets the library's handler threads that are ready run before a
// non-blocking check, as the thesis's calls do with suspendThread: a
// program that keeps testing must see its operations complete.
func (r *Rank) progress() { r.t.Suspend() }

// Wait is MPI_Wait.
func (r *Rank) Wait(q *Request) (Status, error) {
	if q == nil {
		return Status{}, mpierr.Errorf(mpierr.ErrArg, "MPI_Wait", "rank %d: nil request", r.rank)
	}
	start := r.enter(opWait, "MPI_Wait on %s", q.describe())
	// After the call's charge: a replay's waits are not charged, so
	// the charge is the program's computation.
	r.recBegin()
	defer r.recEnd()
	blocked := r.wait(q.arrived)
	r.complete(q)
	r.recJoin(q)
	r.leave(opWait, start, 0, blocked)
	return q.status, q.err
}

// Test is MPI_Test: whether q has completed, without blocking. A nil
// request (MPI_REQUEST_NULL) is complete, with an empty status.
func (r *Rank) Test(q *Request) (bool, Status, error) {
	if q == nil {
		return true, Status{}, nil
	}
	start := r.enter(opTest, "MPI_Test")
	r.progress()
	ok := q.arrived()
	if ok {
		r.complete(q)
		r.recFlush() // a test is computation until it succeeds
		r.recJoin(q)
	}
	r.leave(opTest, start, 0, 0)
	return ok, q.status, q.err
}

// Waitall is MPI_Waitall; the error is the first request's error, if any.
func (r *Rank) Waitall(qs []*Request) ([]Status, error) {
	start := r.enter(opWaitall, "MPI_Waitall on %d requests", len(qs))
	st := make([]Status, len(qs))
	return st, r.waitall(start, qs, st)
}

// waitall is Waitall after its call's charge, filling st (nil for none).
func (r *Rank) waitall(start des.Time, qs []*Request, st []Status) error {
	// After the call's charge: a replay's waits are not charged, so
	// the charge is the program's computation.
	r.recBegin()
	defer r.recEnd()
	blocked := r.waitAll(qs...)
	var first error
	for i, q := range qs {
		if q == nil {
			continue
		}
		r.complete(q)
		if st != nil {
			st[i] = q.status
		}
		if first == nil {
			first = q.err
		}
	}
	r.recJoin(qs...)
	r.leave(opWaitall, start, 0, blocked)
	return first
}

// Waitany is MPI_Waitany: it completes the first arrived request, in index
// order, and returns its index (Undefined if every request is nil).
func (r *Rank) Waitany(qs []*Request) (int, Status, error) {
	start := r.enter(opWaitany, "MPI_Waitany on %d requests", len(qs))
	// After the call's charge: a replay's waits are not charged, so
	// the charge is the program's computation.
	r.recBegin()
	defer r.recEnd()
	live := false
	for _, q := range qs {
		live = live || q != nil && !q.done
	}
	if !live {
		r.leave(opWaitany, start, 0, 0)
		return group.Undefined, Status{}, nil
	}
	idx := -1
	blocked := r.wait(func() bool {
		for i, q := range qs {
			if q != nil && !q.done && q.arrived() {
				idx = i
				return true
			}
		}
		return false
	})
	q := qs[idx]
	r.complete(q)
	r.recJoin(q)
	r.leave(opWaitany, start, 0, blocked)
	return idx, q.status, q.err
}

// Testall is MPI_Testall: true and the statuses only when all completed.
func (r *Rank) Testall(qs []*Request) (bool, []Status, error) {
	start := r.enter(opTestall, "MPI_Testall")
	defer r.leave(opTestall, start, 0, 0)
	r.progress()
	for _, q := range qs {
		if q != nil && !q.arrived() {
			return false, nil, nil
		}
	}
	st := make([]Status, len(qs))
	var first error
	for i, q := range qs {
		if q != nil {
			r.complete(q)
			st[i] = q.status
			if first == nil {
				first = q.err
			}
		}
	}
	r.recFlush()
	r.recJoin(qs...)
	return true, st, first
}
