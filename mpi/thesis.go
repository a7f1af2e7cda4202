package mpi

import (
	"fmt"

	sched "nocsim/coll"
	"nocsim/endpoint"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// The thesis's library (library = "thesis"): every mechanism chapter 4 of
// Poole's thesis describes is the one that runs, and nothing better.
//
//   - Barrier (§4.2.4): the barrierCount barrier (thesisBarrier).
//   - Bcast (§4.2.4): the root posts a non-blocking send to every other
//     rank and waits on them; the others do a blocking receive ("flat").
//   - Scatter(v), Gather(v) (§4.2.4, "use similar techniques to
//     MPI_Bcast()"): point to point from and to the root ("flat").
//   - Reduce (§4.2.4, figure 4.3): the halving reduction to rank 0, "which
//     is considered to be a multiple of every number"; rank 0 forwards the
//     result when the root is another rank (reduceTree with r0 = 0).
//   - Allreduce (§6.4): Reduce to rank 0, then Bcast from it.
//   - Reduce_scatter (§4.2.4 lists it among the functions the reduction
//     provides): Reduce to rank 0, then Scatterv from it.
//   - Scan, Exscan (§4.2.4): chained, rank i receiving from i-1 and sending
//     to i+1.
//   - Allgather(v): not described by the thesis; the profile runs Gather
//     then Bcast, both as above (the way §6.4 builds Allreduce).
//   - Alltoall(v, w): not described; every rank posts a non-blocking
//     receive from and send to every other and waits ("post_all", the
//     simplest point-to-point version).
//   - Context ids (§4.2.3): thesisContext.
//   - Calls (§6.4, §4.2.1, §4.2.2): each internal call is charged
//     call_cycles (thesisCall and its callers).
//
// The protocol is the §4.2.2 rendezvous (scmp); Config.Validate refuses
// any other with this profile, and any non-auto algorithm key.

func init() {
	// The profile's own code where no registered algorithm is exactly the
	// thesis's (ThesisAlgorithm "thesis"): neither listed nor selectable.
	thesis := func(op string, run any) algEntry {
		a, _ := run.(*sched.Algorithm)
		if a == nil {
			a = &sched.Algorithm{Op: op, Name: "thesis", Source: sched.SrcThesis}
		}
		return algEntry{Algorithm: a, profile: true, run: run}
	}
	register(
		thesis("barrier", barrierRun(func(x *coll) error { return x.r.thesisBarrier(x.c) })),
		thesis("allgather", allgatherRun((*coll).thesisAllgather)),
		thesis("reduce", thesisProgram("reduce", thesisReduce)),
		thesis("allreduce", thesisProgram("allreduce", thesisAllreduce)),
		thesis("reduce_scatter", thesisProgram("reduce_scatter", thesisReduceScatter)),
	)
}

// thesisProgram is the profile's own schedule program for op, run as the
// registered ones are (it is not in coll's registry: no schedule or
// prediction is made for it).
func thesisProgram(op string, p sched.Program) *sched.Algorithm {
	return &sched.Algorithm{Op: op, Name: "thesis", Source: sched.SrcThesis, Program: p}
}

// thesisCallOf charges one internal function call of the rank running r
// (thesisCall).
func thesisCallOf(r sched.Rank) { r.(*engine).x.r.thesisCall() }

// thesisReduce is figure 4.3: halving to rank 0, which forwards to
// another root.
func thesisReduce(r sched.Rank, a sched.Args) error {
	return sched.ReduceTree(r, a, sched.Input.At(0, a.N), sched.Result.At(0, a.N), a.Root, 0)
}

// thesisAllreduce is the profile's Allreduce. Section 6.4: MPI_Allreduce
// calls MPI_Reduce and MPI_Bcast.
func thesisAllreduce(r sched.Rank, a sched.Args) error {
	out := sched.Result.At(0, a.N)
	thesisCallOf(r)
	if err := sched.ReduceTree(r, a, sched.Input.At(0, a.N), out, 0, 0); err != nil {
		return err
	}
	thesisCallOf(r)
	return sched.FlatBcast(r, a.P, a.Me, 0, out)
}

// thesisReduceScatter is the profile's Reduce_scatter: a Reduce to rank 0
// (the halving tree: its root is 0) and a Scatterv from it, each a call of
// its own.
func thesisReduceScatter(r sched.Rank, a sched.Args) error {
	thesisCallOf(r)
	thesisCallOf(r)
	return sched.ReduceScatterv(r, a)
}

// ThesisAlgorithm is the algorithm the thesis profile runs for op (one of
// coll.Ops), for reports: the registered one marked Thesis, or "thesis",
// the profile's own code, where no registered algorithm is exactly the
// thesis's.
func ThesisAlgorithm(op string) string {
	if a := sched.ThesisPick(op); a != nil {
		return a.Name
	}
	return "thesis"
}

// thesisCall charges one internal function call of the thesis's library
// (call_cycles), under the thesis profile only. Section 6.4: "calling one
// MPI function may result in a number of function calls"; its SCMP
// compiler did not inline them.
func (r *Rank) thesisCall() {
	if r.w.Cfg.thesisLib() {
		r.t.Compute(r.w.M.CPU.CallCycles)
	}
}

// thesisHandlers registers the profile's THREAD handlers. Only the thesis
// profile registers them, so the default machine's handler ids are those
// it always had.
func (w *World) thesisHandlers() {
	w.h.barrierArrive = w.M.Register("_MPI_Barrier_arrive", w.threadBarrierArrive)
	w.h.barrierRelease = w.M.Register("_MPI_Barrier_release", w.threadBarrierRelease)
	w.h.ctxAsk = w.M.Register("_MPI_Context_ask", w.threadContextAsk)
}

// barrierCount is the communicator's barrierCount variable on this rank
// (§4.2.4: "a variable barrierCount was added to the communicator data
// structure ... initialized to 0"). It lives with the rank, keyed by
// context id, because the THREAD handlers that change it know the
// communicator only by its context id.
func (r *Rank) barrierCount(ctx uint32) *int {
	if r.barrier == nil {
		r.barrier = map[uint32]*int{}
	}
	p := r.barrier[ctx]
	if p == nil {
		p = new(int)
		r.barrier[ctx] = p
	}
	return p
}

// thesisBarrier is the barrier of §4.2.4. Every rank but rank 0 sends
// rank 0 a THREAD message that increments rank 0's barrierCount, then
// waits for its own barrierCount to be non-zero. Rank 0 increments its
// count and waits for it to reach the group's size, calling
// suspendThread() repeatedly so the THREAD messages' threads run (a wait
// loop: each turn costs poll_cycles and yields); it then resets the count
// and sends every other rank a THREAD message setting its barrierCount to
// 1. 2(P-1) THREAD messages, no DATA message. A released rank resets its
// own count to 0 before it leaves, ready for the next barrier (the thesis
// leaves that step implicit).
func (r *Rank) thesisBarrier(c *Comm) error {
	w := r.w
	P := c.Size()
	count := r.barrierCount(c.ctx)
	prev := r.call
	defer func() { r.call = prev }()
	if c.rank != 0 {
		if err := r.t.CreateThread(c.group.WorldRank(0), w.h.barrierArrive, c.ctx); err != nil {
			return mpierr.Errorf(mpierr.ErrOther, "MPI_Barrier", "%v", err)
		}
		r.call = textCall(prev.String() + " (waiting for rank 0's release)")
		r.wait(func() bool { return *count != 0 })
		*count = 0
		return nil
	}
	*count++
	r.call = textCall(prev.String() + " (rank 0 waiting for every barrierCount increment)")
	r.wait(func() bool { return *count >= P })
	*count = 0
	for i := 1; i < P; i++ {
		if err := r.t.CreateThread(c.group.WorldRank(i), w.h.barrierRelease, c.ctx); err != nil {
			return mpierr.Errorf(mpierr.ErrOther, "MPI_Barrier", "%v", err)
		}
	}
	return nil
}

func (w *World) threadBarrierArrive(t *endpoint.Thread, a []uint32) {
	*w.rankOf(t.Node()).barrierCount(a[0])++
}

func (w *World) threadBarrierRelease(t *endpoint.Thread, a []uint32) {
	*w.rankOf(t.Node()).barrierCount(a[0]) = 1
}

// thesisContext agrees a new context id across c with the steps of
// §4.2.3 (MPI_Comm_dup; MPI_Comm_create "works in a similar manner"):
// rank 0 asks the highest-numbered tile for a free context with a THREAD
// message and gets it back in a DATA message; rank 0 then enters a barrier
// the others have been waiting in; after it every rank but rank 0 asks
// rank 0 for the new context with a THREAD message, answered with a DATA
// message; a last barrier keeps anyone from using the new communicator
// before everyone has it. Each barrier is an internal MPI_Barrier call.
func (r *Rank) thesisContext(c *Comm) (uint32, error) {
	if c.rank == 0 {
		if r.pendingCtx == nil {
			r.pendingCtx = map[uint32]uint32{}
		}
		r.pendingCtx[c.ctx] = r.requestContext()
	}
	r.thesisCall()
	if err := r.thesisBarrier(c); err != nil {
		return 0, err
	}
	var id uint32
	if c.rank == 0 {
		id = r.pendingCtx[c.ctx]
	} else {
		flag := r.MustAlloc(4)
		if err := r.t.CreateThread(c.group.WorldRank(0), r.w.h.ctxAsk, c.ctx, uint32(r.node.ID), flag.Addr); err != nil {
			return 0, mpierr.Errorf(mpierr.ErrOther, "MPI_Comm_dup", "%v", err)
		}
		prev := r.call
		r.call = textCall(prev.String() + " (waiting for the new context id from rank 0)")
		r.wait(func() bool { return flag.Uint32(0) != 0 })
		r.call = prev
		id = flag.Uint32(0)
		r.Free(flag)
	}
	r.thesisCall()
	if err := r.thesisBarrier(c); err != nil {
		return 0, err
	}
	if c.rank == 0 {
		delete(r.pendingCtx, c.ctx)
	}
	return id, nil
}

// threadContextAsk runs on rank 0 of the parent communicator: it answers
// a rank asking for the new context id with a DATA message.
func (w *World) threadContextAsk(t *endpoint.Thread, a []uint32) {
	r := w.rankOf(t.Node())
	id, ok := r.pendingCtx[a[0]]
	if !ok {
		w.fail(fmt.Errorf("rank %d: asked for the new context of context %d, which it is not creating", r.rank, a[0]))
		return
	}
	if err := t.SendInt(int(a[1]), a[2], id); err != nil {
		w.fail(err)
	}
}

// thesisAllgather is the profile's Allgather(v) (the thesis does not
// describe one): a Gather to rank 0 then a Bcast from it, each a call of
// its own, both point to point as the thesis's Gather and Bcast are.
func (x *coll) thesisAllgather(w datatype.Buffer, blocks []int) error {
	P, me := x.c.Size(), x.c.Rank()
	e, l := x.rank(callBufs{sched.Data: w}), sched.NewLayout(blocks)
	x.r.thesisCall() // MPI_Gather
	if me != 0 {
		if err := e.Send(0, l.Span(me, me+1)); err != nil {
			return err
		}
	} else {
		s := e.Step()
		for i := 1; i < P; i++ {
			s.Recv(i, l.Span(i, i+1))
		}
		if err := s.Wait(); err != nil {
			return err
		}
	}
	x.r.thesisCall() // MPI_Bcast
	return sched.FlatBcast(e, P, me, 0, l.Span(0, P))
}
