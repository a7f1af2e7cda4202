package mpi

import (
	"fmt"
	"slices"

	"nocsim/des"
	"nocsim/mpi/group"
	"nocsim/mpi/mpierr"
)

// Fence is MPI_Win_fence, collective over the window's communicator: it
// completes every RMA operation of the epoch and opens the next one. Each
// origin sends one round trip to every target it put or accumulated to
// since the last fence (a THREAD message answered by a DATA flag, ordered
// behind its data, so the answer means the data landed and accumulates
// were applied), waits for those and its Gets' answers, and then the
// ranks meet in a barrier: after it, every rank's window holds every
// operation of the epoch. Assertions (MPI_MODE_NOPRECEDE and the like)
// are not taken.
func (win *Win) Fence() error {
	r := win.r
	const name = "MPI_Win_fence"
	start := r.enter(opWinFence, "%s", name)
	var blocked des.Time
	defer func() { r.leave(opWinFence, start, 0, blocked) }()
	if err := win.check(r, name); err != nil {
		return err
	}
	if win.startGroup != nil || win.postGroup != nil {
		return mpierr.Errorf(mpierr.ErrRMASync, name, "rank %d: a post-start-complete-wait epoch is open", r.rank)
	}
	for j, d := range win.dirty {
		if !d {
			continue
		}
		win.dirty[j] = false
		win.seq[j]++
		ack := win.flags.Addr + uint32(flagAck*len(win.peers)+j)
		if err := r.t.CreateThread(win.peers[j].world, r.w.rma.sync, uint32(r.node.ID), ack, win.seq[j]); err != nil {
			return mpierr.Errorf(mpierr.ErrOther, name, "rank %d: %v", r.rank, err)
		}
	}
	blocked = r.wait(func() bool { return win.answered(nil) })
	win.release()
	if err := r.Barrier(win.comm); err != nil {
		return err
	}
	win.fenced = true
	return nil
}

// answered reports whether every round trip to the targets in group (all
// when nil) has come back and every put's DMA has read its data.
func (win *Win) answered(group []int) bool {
	for j := range win.peers {
		if (group == nil || slices.Contains(group, j)) && win.flag(flagAck, j) != win.seq[j] {
			return false
		}
	}
	for _, x := range win.xfers {
		if !x.Sent {
			return false
		}
	}
	return true
}

// release forgets completed puts and frees their packed copies.
func (win *Win) release() {
	win.xfers = win.xfers[:0]
	for _, b := range win.temps {
		win.r.Free(b)
	}
	win.temps = win.temps[:0]
}

// commRanks turns a group of world ranks into ranks of the window's
// communicator.
func (win *Win) commRanks(name string, g *group.Group) ([]int, error) {
	if g == nil {
		return nil, mpierr.Errorf(mpierr.ErrGroup, name, "nil group")
	}
	out := make([]int, 0, g.Size())
	for _, wr := range g.Members() {
		j := win.comm.group.Rank(wr)
		if j == group.Undefined {
			return nil, mpierr.Errorf(mpierr.ErrGroup, name, "world rank %d is not in the window's communicator", wr)
		}
		out = append(out, j)
	}
	return out, nil
}

// Post is MPI_Win_post: the window is exposed to the ranks of group
// (world ranks, as the library's groups hold them) until Wait. Each gets a
// DATA message raising its post flag for this rank; Post does not block.
func (win *Win) Post(g *group.Group) error {
	r := win.r
	const name = "MPI_Win_post"
	start := r.enter(opWinPost, "%s", name)
	defer func() { r.leave(opWinPost, start, 0, 0) }()
	if err := win.check(r, name); err != nil {
		return err
	}
	if win.postGroup != nil {
		return mpierr.Errorf(mpierr.ErrRMASync, name, "rank %d: an exposure epoch is already open (call MPI_Win_wait first)", r.rank)
	}
	js, err := win.commRanks(name, g)
	if err != nil {
		return err
	}
	win.postGroup = js
	win.fenced = false
	for _, j := range js {
		win.postSent[j]++
		if j == win.comm.rank {
			win.setFlag(flagPost, j, win.postSent[j])
			continue
		}
		if err := r.t.SendInt(win.peers[j].world, win.remoteFlag(flagPost, j), win.postSent[j]); err != nil {
			return mpierr.Errorf(mpierr.ErrOther, name, "rank %d: %v", r.rank, err)
		}
	}
	return nil
}

// Start is MPI_Win_start: an access epoch to the ranks of group; it waits
// until each of them has posted (the chip's DMA could write a window that
// is not yet exposed, so the library waits here rather than deferring the
// puts).
func (win *Win) Start(g *group.Group) error {
	r := win.r
	const name = "MPI_Win_start"
	start := r.enter(opWinStart, "%s", name)
	var blocked des.Time
	defer func() { r.leave(opWinStart, start, 0, blocked) }()
	if err := win.check(r, name); err != nil {
		return err
	}
	if win.startGroup != nil {
		return mpierr.Errorf(mpierr.ErrRMASync, name, "rank %d: an access epoch is already open (call MPI_Win_complete first)", r.rank)
	}
	js, err := win.commRanks(name, g)
	if err != nil {
		return err
	}
	if win.pending() {
		return mpierr.Errorf(mpierr.ErrRMASync, name, "rank %d: operations of the previous fence epoch are incomplete (call MPI_Win_fence first)", r.rank)
	}
	for _, j := range js {
		win.postSeen[j]++
	}
	win.startGroup = js
	win.fenced = false
	r.call = textCall(fmt.Sprintf("%s(waiting for the posts of ranks %v)", name, js))
	blocked = r.wait(func() bool {
		for _, j := range js {
			if win.flag(flagPost, j) < win.postSeen[j] {
				return false
			}
		}
		return true
	})
	return nil
}

// Complete is MPI_Win_complete: it ends the access epoch. To each target
// it sends two DATA words, ordered behind its puts: how many accumulate
// messages it has sent there, then its completion count. It returns once
// its Gets are answered and its puts' data has left.
func (win *Win) Complete() error {
	r := win.r
	const name = "MPI_Win_complete"
	start := r.enter(opWinComplete, "%s", name)
	var blocked des.Time
	defer func() { r.leave(opWinComplete, start, 0, blocked) }()
	if err := win.check(r, name); err != nil {
		return err
	}
	js := win.startGroup
	if js == nil {
		return mpierr.Errorf(mpierr.ErrRMASync, name, "rank %d: no access epoch (MPI_Win_start) is open", r.rank)
	}
	for _, j := range js {
		win.complSnt[j]++
		win.dirty[j] = false
		if j == win.comm.rank {
			win.setFlag(flagAccs, j, win.accSent[j])
			win.setFlag(flagComplete, j, win.complSnt[j])
			continue
		}
		dst := win.peers[j].world
		err := r.t.SendInt(dst, win.remoteFlag(flagAccs, j), win.accSent[j])
		if err == nil {
			err = r.t.SendInt(dst, win.remoteFlag(flagComplete, j), win.complSnt[j])
		}
		if err != nil {
			return mpierr.Errorf(mpierr.ErrOther, name, "rank %d: %v", r.rank, err)
		}
	}
	blocked = r.wait(func() bool { return win.answered(js) })
	win.release()
	win.startGroup = nil
	return nil
}

// Wait is MPI_Win_wait: it ends the exposure epoch once every rank of the
// Post group has completed and every accumulate it announced has been
// applied here.
func (win *Win) Wait() error {
	r := win.r
	const name = "MPI_Win_wait"
	start := r.enter(opWinWait, "%s", name)
	var blocked des.Time
	defer func() { r.leave(opWinWait, start, 0, blocked) }()
	if err := win.check(r, name); err != nil {
		return err
	}
	js := win.postGroup
	if js == nil {
		return mpierr.Errorf(mpierr.ErrRMASync, name, "rank %d: no exposure epoch (MPI_Win_post) is open", r.rank)
	}
	for _, j := range js {
		win.waitSeen[j]++
	}
	r.call = textCall(fmt.Sprintf("%s(waiting for ranks %v to complete)", name, js))
	blocked = r.wait(func() bool { return win.completed(js) })
	win.postGroup = nil
	return nil
}

// completed reports whether every origin of js has closed the epoch Wait
// waits for, with its accumulates applied.
func (win *Win) completed(js []int) bool {
	for _, j := range js {
		if win.flag(flagComplete, j) < win.waitSeen[j] || win.accApplied[j] < win.flag(flagAccs, j) {
			return false
		}
	}
	return true
}

// Test is MPI_Win_test: Wait that does not block; done reports whether
// the exposure epoch has ended.
func (win *Win) Test() (done bool, err error) {
	r := win.r
	const name = "MPI_Win_test"
	if err := win.check(r, name); err != nil {
		return false, err
	}
	js := win.postGroup
	if js == nil {
		return false, mpierr.Errorf(mpierr.ErrRMASync, name, "rank %d: no exposure epoch (MPI_Win_post) is open", r.rank)
	}
	r.t.Compute(r.w.M.CPU.CallCycles)
	for _, j := range js {
		if win.flag(flagComplete, j) < win.waitSeen[j]+1 || win.accApplied[j] < win.flag(flagAccs, j) {
			return false, nil
		}
	}
	for _, j := range js {
		win.waitSeen[j]++
	}
	win.postGroup = nil
	return true, nil
}
