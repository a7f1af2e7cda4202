package mpi

import (
	"fmt"

	"nocsim/endpoint"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// One-sided communication (MPI-3 chapter 11, active target only) on the
// chip's own facilities. SCMP's DMA engine writes a remote tile's memory
// directly, so a Put is one DATA message into the target's window with no
// work for the target's processor; a Get is the native getBlock, a THREAD
// message whose handler on the target DMAs the block back; an Accumulate
// is a THREAD message carrying the data whose handler applies the
// operation on the target's processor (the chip has no remote atomics, so
// the target's processor pays for the arithmetic, as it must).
//
// Completion uses ordered delivery: messages between two tiles arrive in
// the order they were sent, and handler threads on a tile run one at a
// time in arrival order. A round trip (a THREAD message answered with a
// DATA flag) sent after a rank's puts and accumulates to a target
// therefore comes back only after they have all landed and been applied.

// Win is a window (MPI_Win) as one rank sees it.
type Win struct {
	r     *Rank
	comm  *Comm // a duplicate of the creating communicator
	id    uint32
	buf   datatype.Buffer // the local window
	unit  int
	peers []winPeer // by rank in comm
	// flags is four words per rank of comm, in simulated memory, written
	// by the other ranks' DATA messages: ack[j] (round trips to j
	// answered), post[j] (exposure epochs j opened to this rank),
	// complete[j] (access epochs j closed on this rank) and accs[j] (the
	// accumulate messages j had sent this rank when it closed one).
	flags datatype.Buffer
	freed bool

	// Origin side, by target rank.
	seq      []uint32 // round trips sent (gets and fence syncs)
	dirty    []bool   // puts or accumulates since the last fence sync
	accSent  []uint32 // accumulate messages sent
	postSeen []uint32 // exposure epochs of the target that Start consumed
	complSnt []uint32 // Complete calls sent to the target
	xfers    []*endpoint.Transfer
	temps    []datatype.Buffer // packed origin data, freed once the DMA has read it

	// Target side, by origin rank.
	accApplied []uint32 // accumulate messages applied by handlers here
	postSent   []uint32 // Post calls sent to the origin
	waitSeen   []uint32 // Complete calls of the origin that Wait consumed

	fenced     bool  // a fence opened an epoch (and no PSCW epoch since)
	startGroup []int // ranks of the open access epoch (Start), nil if none
	postGroup  []int // ranks of the open exposure epoch (Post), nil if none
}

type winPeer struct {
	world int    // world rank (tile)
	base  uint32 // first word of its window
	bytes int
	unit  int
	id    uint32 // its own id for the window
	flags uint32 // first word of its flag block
}

const winInfoWords = 5 // base, bytes, unit, id, flags

// Flag block word offsets, in units of the communicator's size.
const (
	flagAck = iota
	flagPost
	flagComplete
	flagAccs
	flagKinds
)

type winKey struct {
	rank int // world rank
	id   uint32
}

// rmaState is the world's one-sided machinery: its handlers and every
// rank's windows, which handlers on a target tile look up by the id the
// origin names.
type rmaState struct {
	get, sync, acc endpoint.HandlerID
	wins           map[winKey]*Win
	nextID         []uint32 // by world rank
}

func (w *World) rmaHandlers() {
	w.rma = rmaState{
		get:    w.M.Register("_MPI_Win_get", w.threadWinGet),
		sync:   w.M.Register("_MPI_Win_sync", w.threadWinSync),
		acc:    w.M.Register("_MPI_Accumulate", w.threadAccumulate),
		wins:   map[winKey]*Win{},
		nextID: make([]uint32, w.Cfg.Procs),
	}
}

// Comm is the window's communicator (a duplicate of the one it was
// created on).
func (win *Win) Comm() *Comm { return win.comm }

// Size is the local window's size in bytes.
func (win *Win) Size() int { return win.buf.Len() }

// DispUnit is the local window's displacement unit in bytes.
func (win *Win) DispUnit() int { return win.unit }

// WinCreate is MPI_Win_create, collective over comm: the first bytes of
// buf become this rank's window, addressed by others in units of dispUnit
// bytes. The ranks exchange their windows' base addresses and sizes (an
// Allgather on a duplicate of comm) and each allocates a small flag block
// that the others' completion messages write.
func (r *Rank) WinCreate(buf datatype.Buffer, bytes, dispUnit int, comm *Comm) (*Win, error) {
	const name = "MPI_Win_create"
	start := r.enter(opWinCreate, "%s(comm %s)", name, commName(comm))
	fail := func(err error) (*Win, error) {
		r.leave(opWinCreate, start, 0, 0)
		return nil, err
	}
	switch {
	case comm == nil || comm.r != r || comm.freed:
		return fail(mpierr.Errorf(mpierr.ErrArg, name, "rank %d: invalid or freed communicator", r.rank))
	case bytes < 0 || bytes > buf.Len():
		return fail(mpierr.Errorf(mpierr.ErrArg, name, "size %d bytes: allowed 0..%d (the buffer's length)", bytes, buf.Len()))
	case dispUnit < 1:
		return fail(mpierr.Errorf(mpierr.ErrArg, name, "disp_unit %d: allowed >= 1 byte", dispUnit))
	}
	r.internal++
	dup, err := r.CommDup(comm)
	r.internal--
	if err != nil {
		return fail(err)
	}
	P := comm.Size()
	flags, err := r.Alloc(4 * flagKinds * P)
	if err != nil {
		return fail(err)
	}
	id := r.w.rma.nextID[r.rank]
	r.w.rma.nextID[r.rank]++
	win := &Win{r: r, comm: dup, id: id, buf: datatype.Buffer{Addr: buf.Addr, Bytes: buf.Bytes[:bytes]}, unit: dispUnit, flags: flags,
		peers: make([]winPeer, P), seq: make([]uint32, P), dirty: make([]bool, P), accSent: make([]uint32, P),
		postSeen: make([]uint32, P), complSnt: make([]uint32, P), accApplied: make([]uint32, P),
		postSent: make([]uint32, P), waitSeen: make([]uint32, P)}
	// Registered before the exchange: once another rank has the id, its
	// accumulates may arrive.
	r.w.rma.wins[winKey{r.rank, id}] = win
	info, err := r.Alloc(4 * winInfoWords * (P + 1))
	if err != nil {
		return fail(err)
	}
	defer r.Free(info)
	for i, v := range []uint32{buf.Addr, uint32(bytes), uint32(dispUnit), id, flags.Addr} {
		info.SetUint32(i, v)
	}
	all, _ := info.Slice(4*winInfoWords, 4*winInfoWords*P)
	if err := r.Allgather(info, winInfoWords, datatype.Uint32, all, winInfoWords, datatype.Uint32, dup); err != nil {
		return fail(err)
	}
	for j := range win.peers {
		a := all.Bytes[4*winInfoWords*j:]
		win.peers[j] = winPeer{world: dup.group.WorldRank(j), base: le.Uint32(a), bytes: int(le.Uint32(a[4:])),
			unit: int(le.Uint32(a[8:])), id: le.Uint32(a[12:]), flags: le.Uint32(a[16:])}
	}
	r.leave(opWinCreate, start, 0, 0)
	return win, nil
}

// WinFree is MPI_Win_free, collective: every epoch must be closed (a
// final Fence, or Complete and Wait). A barrier keeps any rank from
// freeing its window while another may still address it.
func (r *Rank) WinFree(win *Win) error {
	const name = "MPI_Win_free"
	start := r.enter(opWinFree, "%s", name)
	defer r.leave(opWinFree, start, 0, 0)
	if err := win.check(r, name); err != nil {
		return err
	}
	if win.startGroup != nil || win.postGroup != nil || win.pending() {
		return mpierr.Errorf(mpierr.ErrRMASync, name, "rank %d: an epoch is still open or operations are incomplete (call MPI_Win_fence, or MPI_Win_complete and MPI_Win_wait, first)", r.rank)
	}
	if err := r.Barrier(win.comm); err != nil {
		return err
	}
	win.freed = true
	delete(r.w.rma.wins, winKey{r.rank, win.id})
	if err := r.Free(win.flags); err != nil {
		return err
	}
	return r.CommFree(win.comm)
}

// check refuses a nil, foreign or freed window.
func (win *Win) check(r *Rank, op string) error {
	if win == nil || win.r != r || win.freed {
		return mpierr.Errorf(mpierr.ErrWin, op, "rank %d: invalid or freed window", r.rank)
	}
	return nil
}

// pending reports operations this rank started that a fence has not yet
// completed.
func (win *Win) pending() bool {
	for j := range win.dirty {
		if win.dirty[j] || win.flag(flagAck, j) != win.seq[j] {
			return true
		}
	}
	return len(win.xfers) > 0
}

// flag is word j of the flag block's kind k.
func (win *Win) flag(k, j int) uint32 { return win.flags.Uint32(k*len(win.peers) + j) }

// remoteFlag is the address of word "me" of kind k in rank j's flag block.
func (win *Win) remoteFlag(k, j int) uint32 {
	return win.peers[j].flags + uint32(k*len(win.peers)+win.comm.rank)
}

// setFlag writes a flag word of the local block: a rank's messages to
// itself go straight to memory.
func (win *Win) setFlag(k, j int, v uint32) { win.flags.SetUint32(k*len(win.peers)+j, v) }

func (w *World) winOf(t *endpoint.Thread, id uint32) (*Rank, *Win) {
	r := w.rankOf(t.Node())
	if r == nil {
		return nil, nil
	}
	return r, w.rma.wins[winKey{r.rank, id}]
}

// threadWinSync answers a fence's round trip: handlers run in arrival
// order, so every put and accumulate the origin sent before it has landed
// and been applied.
func (w *World) threadWinSync(t *endpoint.Thread, a []uint32) {
	// origin tile, ack address, sequence number
	if err := t.SendInt(int(a[0]), a[1], a[2]); err != nil {
		w.fail(fmt.Errorf("MPI_Win_fence: answering node %d: %w", a[0], err))
	}
}
