package mpi

import (
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// Persistent requests (MPI_Send_init, MPI_Recv_init, MPI_Start,
// MPI_Startall): the argument list of a communication repeated in a loop
// is bound once, then each Start begins one more operation with it, which
// completes as any non-blocking one does (Wait, Test, Waitall, Waitsome,
// ...). The slides' use: a loop's messages without rebuilding the request.

// Prequest is a persistent request: an operation's arguments, and the
// operation last started with them.
type Prequest struct {
	r      *Rank
	send   bool
	mode   sendMode
	buf    datatype.Buffer
	count  int
	dt     *datatype.Datatype
	peer   int // as given: rank in comm, or AnySource
	tag    int
	comm   *Comm
	active *Request
	freed  bool
}

// Request is the operation last started (nil before the first Start):
// what Wait, Test and the other completion calls take. After it
// completes the persistent request is inactive until the next Start.
func (p *Prequest) Request() *Request {
	if p == nil {
		return nil
	}
	return p.active
}

// Requests lists the active operations of ps, index for index, for
// Waitall, Waitsome and the like (nil for one never started).
func Requests(ps []*Prequest) []*Request {
	qs := make([]*Request, len(ps))
	for i, p := range ps {
		qs[i] = p.Request()
	}
	return qs
}

// SendInit is MPI_Send_init: a persistent standard-mode send.
func (r *Rank) SendInit(buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) (*Prequest, error) {
	return r.sendInit("MPI_Send_init", modeStandard, buf, count, dt, dest, tag, comm)
}

// SsendInit is MPI_Ssend_init: a persistent synchronous send.
func (r *Rank) SsendInit(buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) (*Prequest, error) {
	return r.sendInit("MPI_Ssend_init", modeSync, buf, count, dt, dest, tag, comm)
}

// RsendInit is MPI_Rsend_init: a persistent ready send.
func (r *Rank) RsendInit(buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) (*Prequest, error) {
	return r.sendInit("MPI_Rsend_init", modeReady, buf, count, dt, dest, tag, comm)
}

// BsendInit is MPI_Bsend_init: a persistent buffered send.
func (r *Rank) BsendInit(buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) (*Prequest, error) {
	return r.sendInit("MPI_Bsend_init", modeBuffered, buf, count, dt, dest, tag, comm)
}

// sendInit checks the arguments once, as MPI's init calls do; nothing is
// sent and no time is charged until Start (the call is local bookkeeping).
func (r *Rank) sendInit(name string, mode sendMode, buf datatype.Buffer, count int, dt *datatype.Datatype, dest, tag int, comm *Comm) (*Prequest, error) {
	if err := r.checkArgs(name, buf, count, dt, dest, tag, comm, false); err != nil {
		return nil, err
	}
	return &Prequest{r: r, send: true, mode: mode, buf: buf, count: count, dt: dt, peer: dest, tag: tag, comm: comm}, nil
}

// RecvInit is MPI_Recv_init: a persistent receive (source may be
// AnySource, tag AnyTag).
func (r *Rank) RecvInit(buf datatype.Buffer, count int, dt *datatype.Datatype, source, tag int, comm *Comm) (*Prequest, error) {
	if err := r.checkArgs("MPI_Recv_init", buf, count, dt, source, tag, comm, true); err != nil {
		return nil, err
	}
	return &Prequest{r: r, buf: buf, count: count, dt: dt, peer: source, tag: tag, comm: comm}, nil
}

// Start is MPI_Start: it begins one operation with p's arguments, as the
// matching Isend (Issend, Irsend, Ibsend) or Irecv would, and charges
// what that call charges. p must belong to this rank, not be freed, and
// be inactive (never started, or its last operation completed by a Wait
// or a successful Test).
func (r *Rank) Start(p *Prequest) error {
	switch {
	case p == nil:
		return mpierr.Errorf(mpierr.ErrArg, "MPI_Start", "rank %d: nil persistent request", r.rank)
	case p.r != r:
		return mpierr.Errorf(mpierr.ErrArg, "MPI_Start", "rank %d: the request was created by rank %d", r.rank, p.r.rank)
	case p.freed:
		return mpierr.Errorf(mpierr.ErrArg, "MPI_Start", "rank %d: the request was freed", r.rank)
	case p.active != nil && !p.active.done:
		return mpierr.Errorf(mpierr.ErrArg, "MPI_Start", "rank %d: the request is still active (%s): complete it first", r.rank, p.active.describe())
	}
	var q *Request
	var err error
	if p.send {
		q, err = r.isend(opStart, p.mode, p.buf, p.count, p.dt, p.peer, p.tag, p.comm)
	} else {
		q, err = r.irecv(opStart, p.buf, p.count, p.dt, p.peer, p.tag, p.comm)
	}
	if q != nil {
		p.active = q
	}
	return err
}

// Startall is MPI_Startall: Start on each request in order; it stops at
// the first error.
func (r *Rank) Startall(ps []*Prequest) error {
	for _, p := range ps {
		if err := r.Start(p); err != nil {
			return err
		}
	}
	return nil
}

// RequestFree is MPI_Request_free on a persistent request: no further
// Start is allowed; an operation in progress still completes.
func (r *Rank) RequestFree(p *Prequest) error {
	if p == nil || p.r != r {
		return mpierr.Errorf(mpierr.ErrArg, "MPI_Request_free", "rank %d: nil or another rank's persistent request", r.rank)
	}
	p.freed = true
	return nil
}
