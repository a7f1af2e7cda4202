package mpi

import (
	sched "nocsim/coll"
	"nocsim/endpoint"
	"nocsim/mpi/datatype"
)

// The Cray X1 collectives as Nicholson & Goozen describe them ("Cray X1
// MPI Implementation", section 4), run on SCMP's native primitives instead
// of MPI messages. The X1 moves collective data by remote memory access
// through symmetrically allocated "collective structures"; on SCMP:
//
//   - a remote store (setting a start flag, writing an address and a
//     count, the barrier's resume word) is a DATA message the processor
//     builds (sendDataIntValue), written into the remote rank's memory by
//     its NIU without its processor;
//   - a remote read (type2type from another rank's memory, the pulls) is
//     getBlock: a THREAD message that starts a thread on the source node,
//     which DMAs the words back and then writes a completion flag here;
//   - an atomic memory operation (fadd on a barrier word, the decrement of
//     a check-in counter) is a THREAD message whose handler updates the
//     word on the rank that holds it (a handler runs to completion: the
//     processor is cooperative, so the update is atomic);
//   - a wait loop on a local flag is a WaitUntil on a word of the rank's
//     own memory (poll_cycles a turn).
//
// The collective structures (crayArea) are allocated when the world is
// made, at no simulated cost: they stand for what the X1's MPI_Init
// allocates and translates into the gps structure. A recording (World.
// Record) sees none of this traffic, since it is not MPI messages; the
// algorithms are marked Native in the registry.

// crayRuns is the code of coll's Native algorithms, which the registry
// takes (coll_registry.go).
var crayRuns = map[algKey]any{
	{"barrier", "tree4_scatter"}: barrierRun((*coll).crayBarrier),
	{"bcast", "pull_rma"}:        bcastRun((*coll).crayBcastPull),
	{"scatter", "pull_rma"}:      scatterRun((*coll).crayScatterPull),
	{"alltoall", "pull_scan"}:    alltoallRun((*coll).crayAlltoallPull),
}

// Layout of a rank's collective structures, in words from crayArea.Addr.
const (
	crayResume  = 0 // the barrier's resume word, set by the last arriver
	crayClimb   = 1 // set by a group's word holder: "you arrived last, go on up"
	crayDone    = 2 // getBlock's completion flag
	crayCheckIn = 3 // transfers of this rank's data still to be made
	craySmall   = 4 // the broadcast's preallocated buffer for small data
	craySlots   = craySmall + craySmallBytes/4
	// Then, per world rank s, a slot of three words written by s:
	// address (words), bytes, start flag.
	craySlotWords = 3

	// craySmallBytes: "if it is small enough (< 32 bytes)" the root of a
	// broadcast moves the data here and leaves at once.
	craySmallBytes = 32
)

// crayArea is rank world's collective structures.
func (w *World) crayArea(world int) datatype.Buffer { return w.cray[world] }

// craySyncKey names a barrier word: the communicator's context, the
// world rank that holds it, the tree level. Each communicator counts its
// own arrivals, even where two share the rank that holds a word. Like the
// thesis's barrierCount, the count lives with the rank that holds it,
// keyed by context, since the handler that changes it knows the
// communicator only by its context id.
type craySyncKey struct {
	ctx           uint32
	holder, level int
}

// usesCray reports whether the configuration selects a Native algorithm.
func (c Config) usesCray() bool {
	for _, a := range sched.Algorithms() {
		if a.Native && c.Algorithm(a.Op) == a.Name {
			return true
		}
	}
	return false
}

// crayInit allocates every rank's collective structures (what the X1's
// MPI_Init does, at no simulated cost) and registers the handlers.
func (w *World) crayInit() error {
	w.h.crayFadd = w.M.Register("_MPI_Cray_fadd", w.threadCrayFadd)
	w.h.crayCheckIn = w.M.Register("_MPI_Cray_checkin", w.threadCrayCheckIn)
	w.craySyncs = map[craySyncKey]uint32{}
	w.cray = make([]datatype.Buffer, len(w.Ranks))
	for i, r := range w.Ranks {
		b, err := r.Alloc(4 * (craySlots + craySlotWords*len(w.Ranks)))
		if err != nil {
			return err
		}
		clear(b.Bytes)
		w.cray[i] = b
	}
	return nil
}

// threadCrayFadd is the fetch-add on a barrier word, run where the word
// is: args context, holder's world rank, level, group size, requester
// node, requester's climb word. The last of the group's arrivals tells
// its sender to go on up the tree.
func (w *World) threadCrayFadd(t *endpoint.Thread, a []uint32) {
	if w.crayArrive(craySyncKey{a[0], int(a[1]), int(a[2])}, a[3]) {
		if err := t.SendInt(int(a[4]), a[5], 1); err != nil {
			w.fail(err)
		}
	}
}

// crayArrive is one fetch-add on barrier word k of a group of n: it
// reports whether the arrival is the group's last, and then resets the
// word for the next barrier.
func (w *World) crayArrive(k craySyncKey, n uint32) bool {
	v := w.craySyncs[k] + 1
	if v < n {
		w.craySyncs[k] = v
		return false
	}
	delete(w.craySyncs, k)
	return true
}

// threadCrayCheckIn is the atomic decrement of a check-in counter: args
// the counter's address.
func (w *World) threadCrayCheckIn(t *endpoint.Thread, a []uint32) {
	if err := t.Write(a[0], t.Read(a[0])-1); err != nil {
		w.fail(err)
	}
}

// cray is one rank's view of the structures during a collective.
type cray struct {
	x    *coll
	area datatype.Buffer // this rank's
}

func (x *coll) cray() *cray {
	return &cray{x: x, area: x.r.w.crayArea(x.r.rank)}
}

func (k *cray) word(i int) uint32               { return k.area.Uint32(i) }
func (k *cray) set(i int, v uint32)             { k.area.SetInt32(i, int32(v)) }
func (k *cray) addr(i int) uint32               { return k.area.Addr + uint32(i) }
func (k *cray) world(rank int) int              { return k.x.c.group.WorldRank(rank) }
func (k *cray) node(rank int) int               { return k.x.r.w.Ranks[k.world(rank)].node.ID }
func (k *cray) areaOf(rank int) datatype.Buffer { return k.x.r.w.crayArea(k.world(rank)) }
func (k *cray) slot(sender int) int             { return craySlots + craySlotWords*k.world(sender) }
func (k *cray) waitFor(cond func() bool)        { k.x.r.wait(cond) }

// store writes words at word i of rank's structures: one DATA message the
// processor builds (as sendDataIntValue, for any number of words).
func (k *cray) store(rank, i int, words ...uint32) error {
	r := k.x.r
	cpu := r.w.M.CPU
	r.t.Compute(cpu.NativeCallCycles + cpu.SendCycles(2+len(words)))
	_, err := r.w.M.SendWords(r.node.ID, k.node(rank), endpoint.KindData, k.areaOf(rank).Addr+uint32(i), 1, words, r.t.Now())
	return err
}

// post sets this rank's start flag at rank, with the address (words) and
// length (bytes) of what rank is to fetch from here: the flag is the last
// word of the message, and a message's words land in order.
func (k *cray) post(rank int, addr uint32, n int) error {
	return k.store(rank, k.slot(k.x.c.Rank()), addr, uint32(n), 1)
}

// started reports whether sender's start flag is set here.
func (k *cray) started(sender int) bool { return k.word(k.slot(sender)+2) != 0 }

// take reads and clears sender's slot: the address and byte count.
func (k *cray) take(sender int) (uint32, int) {
	s := k.slot(sender)
	a, n := k.word(s), int(k.word(s+1))
	k.set(s+2, 0)
	return a, n
}

// expose waits until every rank has fetched what this rank exposed last
// time (its check-in counter is back to 0: "previous collective operations
// by the current process have completed"), then expects n fetches.
func (k *cray) expose(n int) {
	k.waitFor(func() bool { return k.word(crayCheckIn) == 0 })
	k.set(crayCheckIn, uint32(n))
}

// drained waits until every fetch of this rank's data is done.
func (k *cray) drained() { k.waitFor(func() bool { return k.word(crayCheckIn) == 0 }) }

// fetch copies n bytes at word address src of rank into dst with getBlock,
// waits for its completion flag, then decrements rank's check-in counter.
// The DMA moves whole words: a length that is not whole words lands in
// scratch first, so no byte past dst's n is written.
func (k *cray) fetch(rank int, src uint32, dst datatype.Buffer, n int) error {
	x := k.x
	if n > 0 {
		to := dst
		if n%4 != 0 {
			var err error
			if to, err = x.alloc(sched.Pad4(n)); err != nil {
				return err
			}
			defer x.free(to)
		}
		if err := x.r.t.GetBlock(k.node(rank), to.Addr, 1, src, 1, sched.Pad4(n)/4, k.addr(crayDone)); err != nil {
			return err
		}
		k.waitFor(func() bool { return k.word(crayDone) != 0 })
		k.set(crayDone, 0)
		if n%4 != 0 {
			x.copy(dst, to, n)
		}
	}
	return x.r.t.CreateThread(k.node(rank), x.r.w.h.crayCheckIn, k.areaOf(rank).Addr+crayCheckIn)
}

// crayBarrier is MPI_Barrier on the X1 (tree4_scatter): arrivals merge up
// a four-way tree with no master, and the last arriver sets every other
// rank's resume word with one scatter store and leaves. At level l the
// ranks are in groups of 4^(l+1); a group's word is held by its first
// rank, and its participants are the last arrivers of its non-empty
// subgroups of 4^l ranks (a group of one needs no word: its one
// participant simply goes on). Each participant fetch-adds the word; all
// but the last wait on their local resume word, the last climbs.
func (x *coll) crayBarrier() error {
	P, me := x.c.Size(), x.c.Rank()
	if P == 1 {
		return nil
	}
	k := x.cray()
	w := x.r.w
	for l, span := 0, 1; span < P; l, span = l+1, 4*span {
		holder := me / (4 * span) * (4 * span)
		n := min(4, (P-holder+span-1)/span)
		if n == 1 {
			continue
		}
		key := craySyncKey{x.c.ctx, k.world(holder), l}
		if holder == me {
			// A fetch-add on a word in the rank's own memory, after the
			// fetch-adds that reached it first: their handlers waited for
			// this processor to yield (the X1's memory applies them as
			// they come). With none waiting, Suspend costs nothing; no
			// handler can run between the add and its test.
			x.r.t.Suspend()
			if w.crayArrive(key, uint32(n)) {
				continue
			}
		} else if err := x.r.t.CreateThread(k.node(holder), w.h.crayFadd, key.ctx, uint32(key.holder), uint32(l), uint32(n), uint32(x.r.node.ID), k.addr(crayClimb)); err != nil {
			return err
		}
		k.waitFor(func() bool { return k.word(crayResume) != 0 || k.word(crayClimb) != 0 })
		if k.word(crayClimb) != 0 {
			k.set(crayClimb, 0)
			continue
		}
		k.set(crayResume, 0)
		return nil
	}
	// The last arrival: release everyone, rank after rank from the next.
	for i := 1; i < P; i++ {
		if err := k.store((me+i)%P, crayResume, 1); err != nil {
			return err
		}
	}
	return nil
}
