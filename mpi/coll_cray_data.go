package mpi

import (
	sched "nocsim/coll"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// The X1's data-moving collectives (coll_cray.go describes the mechanisms):
// the data is exposed by the rank that holds it (its address and count
// stored into the others' slots, the start flag last) and pulled by the
// ranks that need it, each decrementing the holder's check-in counter.

// crayBcastPull is MPI_Bcast on the X1 (pull_rma): "the non-root processes
// pull the data from the root process". Data under 32 bytes is moved to
// the root's preallocated buffer, so the root leaves as soon as it has set
// the start flags, "even before the non-root processors have transferred
// the data"; larger data is pulled from the root's own buffer, which the
// root cannot leave until its check-in count is back to zero. A non-root
// waits for its start flag, pulls, decrements the root's check-in counter
// and leaves. b holds n contiguous bytes (word-aligned, as every Buffer).
func (x *coll) crayBcastPull(b datatype.Buffer, n, root int) error {
	P, me := x.c.Size(), x.c.Rank()
	if P == 1 {
		return nil
	}
	k := x.cray()
	if me != root {
		k.waitFor(func() bool { return k.started(root) })
		src, got := k.take(root)
		// A size mismatch still pulls (what fits) and checks in, so the
		// root is not left waiting; the error is this rank's.
		err := k.fetch(root, src, b, min(got, n))
		if err == nil && got != n {
			err = mpierr.Errorf(mpierr.ErrTruncate, x.name, "rank %d: the root broadcasts %d bytes to a %d-byte buffer", x.r.rank, got, n)
		}
		return err
	}
	k.expose(P - 1)
	src, small := b.Addr, n < craySmallBytes
	if small {
		x.copy(datatype.Buffer{Bytes: k.area.Bytes[4*craySmall:]}, b, n)
		src = k.addr(craySmall)
	}
	for i := 1; i < P; i++ {
		if err := k.post((root+i)%P, src, n); err != nil {
			return err
		}
	}
	if !small {
		k.drained()
	}
	return nil
}

// crayScatterPull is MPI_Scatter(v) on the X1 (pull_rma): the root stores
// each rank's block address and count into that rank's slot and sets its
// start flag, moves its own block, and waits for its check-in count to
// reach zero; the non-roots "perform the data transfer in parallel", each
// pulling its block, decrementing the root's counter and leaving. The
// root's blocks are pulled from its buffer where they are contiguous and
// start on a word, else from a packed copy.
func (x *coll) crayScatterPull(p rtPart) error {
	bl, rb, mine, root, own := p.bl, p.b, p.mine, p.root, p.own
	P, me := x.c.Size(), x.c.Rank()
	k := x.cray()
	if me != root {
		k.waitFor(func() bool { return k.started(root) })
		src, got := k.take(root)
		err := k.fetch(root, src, rb, min(got, mine)) // as in crayBcastPull
		if err == nil && got > mine {
			err = mpierr.Errorf(mpierr.ErrTruncate, x.name, "rank %d: the root sends %d bytes into a %d-byte receive", x.r.rank, got, mine)
		}
		return err
	}
	addr := make([]uint32, P)
	size := 0
	for i := range P {
		if i != root && !rtDirect(bl, i) {
			size += sched.Pad4(bl.size(i))
		}
	}
	var tmp datatype.Buffer
	if size > 0 {
		var err error
		if tmp, err = x.alloc(size); err != nil {
			return err
		}
		defer x.free(tmp)
	}
	off := 0
	for i := range P {
		switch {
		case i == root:
		case rtDirect(bl, i):
			addr[i] = bl.buf.Addr + uint32(bl.disp[i]/4)
		default:
			if err := x.rtPack(bl, i, tmp.Bytes[off:]); err != nil {
				return err
			}
			addr[i] = tmp.Addr + uint32(off/4)
			off += sched.Pad4(bl.size(i))
		}
	}
	k.expose(P - 1)
	for j := 1; j < P; j++ {
		i := (root + j) % P
		if err := k.post(i, addr[i], bl.size(i)); err != nil {
			return err
		}
	}
	err := own()
	k.drained()
	return err
}

// rtDirect reports whether block i can be pulled from where it is.
func rtDirect(bl *rtBlocks, i int) bool {
	return bl.size(i) == 0 || bl.dt.Contiguous() && bl.disp[i]%4 == 0
}

// crayAlltoallPull is MPI_Alltoall(v, w) on the X1 (pull_scan): every rank
// stores, into each other rank's slot, the address and count of the block
// for it, the start flag last, in the order me+1, me+2, ... (the paper
// gives none; this one spreads the first stores over the ranks). Then it
// scans its start flags, pulling from any sender whose flag is set and
// decrementing that sender's check-in counter, until it has heard from
// every rank: "the use of the scan loop allows for receives to be
// processed out of order". Each pass of the scan goes round the flags from
// me+1 and takes every one that is set; a pass that finds none waits until
// a flag is set. (The paper does not say where a scan starts. Starting
// each rank at rank 0 makes ranks that enter together all pull from rank 0
// first, then all from rank 1: a convoy, serialised on one NIU at a time.) Last, it waits until its own check-in count
// is zero: every rank has pulled its blocks. ss and rs are the staged
// send and receive blocks (alltoallRun), the rank's own block moved.
func (x *coll) crayAlltoallPull(_, _ []allBlock, ss, rs *alltoallStage) error {
	P, me := x.c.Size(), x.c.Rank()
	if P == 1 {
		return nil
	}
	k := x.cray()
	k.expose(P - 1)
	for j := 1; j < P; j++ {
		i := (me + j) % P
		if err := k.post(i, ss.view[i].Addr, ss.view[i].Len()); err != nil {
			return err
		}
	}
	var late error
	left := P - 1
	heard := make([]bool, P)
	heard[me] = true
	any := func() bool {
		for i := range P {
			if !heard[i] && k.started(i) {
				return true
			}
		}
		return false
	}
	for left > 0 {
		k.waitFor(any)
		for j := 1; j < P; j++ {
			i := (me + j) % P
			if heard[i] || !k.started(i) {
				continue
			}
			src, got := k.take(i)
			want := rs.view[i].Len()
			if err := k.fetch(i, src, rs.view[i], min(got, want)); err != nil {
				return err
			}
			if got != want && late == nil { // as in crayBcastPull: reported once all is pulled
				late = mpierr.Errorf(mpierr.ErrTruncate, x.name, "rank %d: rank %d sends %d bytes for a %d-byte block", x.r.rank, x.c.group.WorldRank(i), got, want)
			}
			heard[i] = true
			left--
		}
	}
	k.drained()
	return late
}
