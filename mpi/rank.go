package mpi

import (
	"fmt"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// Rank is one MPI process: its tile, its main thread, and the library's
// state on that tile (the posted-receive and posted-send queues).
type Rank struct {
	w     *World
	rank  int
	node  *endpoint.Node
	t     *endpoint.Thread
	world *Comm

	posted     []*Request          // receives waiting for a send
	unexpected []*envelope         // sends announced before their receive
	sends      map[uint32]*Request // sends waiting for their receiver, by id
	pumaIn     []pumaIncoming      // puma_long puts whose first message has arrived
	sendOrder  []*Request          // every send, for reports
	retired    []*Request          // completed requests the program never saw, for reuse
	freeEnv    []*envelope         // envelopes whose receive completed, for reuse
	argBuf     []uint32            // a message's words, built before sending
	waitSet    []*Request          // what Waitall (or Sendrecv) waits for
	waitSetFn  func() bool         // whether every request of waitSet arrived
	freeRed    []*redColl          // reduction records of finished calls, for reuse
	nextReq    uint32

	barrier    map[uint32]*int   // thesis profile: barrierCount by communicator context
	pendingCtx map[uint32]uint32 // thesis profile, rank 0: the context being created, by parent context

	bsend     datatype.Buffer // attached by Buffer_attach
	bsendUsed int

	call     callDesc // the MPI call the rank is in, for reports
	lastAlg  string   // the algorithm of the last collective call, "auto" resolved
	internal int      // inside a collective: its messages are not user calls
	stats    [numOps]OpStats
	coll     map[string]*OpStats // collective calls, by MPI name
	log      []Message           // with World.LogMessages
	received int                 // messages received
	sent     int                 // sends posted
	rec      *recorder           // when the run is recorded
	end      des.Time            // when the rank's program returned (0 before)
	ended    bool
}

// Rank is the process's rank in MPI_COMM_WORLD.
func (r *Rank) Rank() int { return r.rank }

// Finished is the cycle at which the rank's program (the function given
// to Launch, or its schedule under LaunchTrace) returned; ok is false if
// it has not returned.
func (r *Rank) Finished() (at des.Time, ok bool) { return r.end, r.ended }

// Size is the size of MPI_COMM_WORLD.
func (r *Rank) Size() int { return len(r.w.Ranks) }

// CommWorld is MPI_COMM_WORLD as seen by this rank.
func (r *Rank) CommWorld() *Comm { return r.world }

// LastAlgorithm is the algorithm the rank's last collective call ran,
// with "auto" resolved to the one the library chose for its size.
func (r *Rank) LastAlgorithm() string { return r.lastAlg }

// Thread is the rank's main thread, for native SCMP calls.
func (r *Rank) Thread() *endpoint.Thread { return r.t }

// Now is the current simulated cycle.
func (r *Rank) Now() des.Time { return r.t.Now() }

// Wtime is MPI_Wtime: simulated seconds since the start.
func (r *Rank) Wtime() float64 { return r.w.Seconds(r.t.Now()) }

// Wtick is MPI_Wtick: one clock cycle in seconds.
func (r *Rank) Wtick() float64 { return r.w.Seconds(1) }

// Compute charges cycles of computation to the rank's processor.
func (r *Rank) Compute(cycles int64) { r.t.Compute(cycles) }

// Flops charges n floating-point operations.
func (r *Rank) Flops(n int64) { r.t.Flops(n) }

// Alloc gives a buffer of n bytes in the tile's memory, zeroed.
func (r *Rank) Alloc(n int) (datatype.Buffer, error) {
	addr, b, err := r.node.Alloc(n)
	if err != nil {
		return datatype.Buffer{}, mpierr.Errorf(mpierr.ErrBuffer, "Alloc", "rank %d: %v", r.rank, err)
	}
	return datatype.Buffer{Addr: addr, Bytes: b}, nil
}

// MustAlloc is Alloc for programs that treat running out of memory as a
// bug: it panics, which ends the run with an error naming the rank.
func (r *Rank) MustAlloc(n int) datatype.Buffer {
	b, err := r.Alloc(n)
	if err != nil {
		panic(err)
	}
	return b
}

// Free returns a buffer from Alloc.
func (r *Rank) Free(b datatype.Buffer) error {
	if err := r.node.Mem.Free(b.Addr); err != nil {
		return mpierr.Errorf(mpierr.ErrBuffer, "Free", "rank %d: %v", r.rank, err)
	}
	return nil
}

// enter starts an MPI call: it is recorded for reports and statistics and
// charged call_cycles.
func (r *Rank) enter(op op, format string, a ...any) des.Time {
	if r.internal == 0 {
		r.call = textCall(fmt.Sprintf(format, a...))
	}
	start := r.t.Now()
	r.t.Compute(r.w.M.CPU.CallCycles)
	_ = op
	return start
}

// enterCall is enter with the call's description in parts, formatted
// only if a report needs it.
func (r *Rank) enterCall(d callDesc) des.Time {
	if r.internal == 0 {
		r.call = d
	}
	start := r.t.Now()
	r.t.Compute(r.w.M.CPU.CallCycles)
	return start
}

// leave ends an MPI call started at start.
func (r *Rank) leave(op op, start des.Time, bytes int, blocked des.Time) {
	if r.internal > 0 {
		return
	}
	r.stats[op].add(r.t.Now()-start, bytes, blocked)
	r.w.traceCall(r, opNames[op], start, r.t.Now())
	r.call = textCall("running (outside MPI)")
}

// waitAll is wait until every non-nil request of qs has arrived, without
// making a closure per call.
func (r *Rank) waitAll(qs ...*Request) des.Time {
	if r.waitSetFn == nil {
		r.waitSetFn = func() bool {
			for _, q := range r.waitSet {
				if q != nil && !q.arrived() {
					return false
				}
			}
			return true
		}
	}
	r.waitSet = append(r.waitSet[:0], qs...)
	d := r.wait(r.waitSetFn)
	clear(r.waitSet)
	r.waitSet = r.waitSet[:0]
	return d
}

// wait blocks the rank's main thread in a wait loop until cond holds and
// returns the cycles it spent blocked.
func (r *Rank) wait(cond func() bool) des.Time {
	if cond() {
		return 0
	}
	start := r.t.Now()
	r.t.WaitFor((*rankCall)(r), cond)
	return r.t.Now() - start
}
