package mpi

import (
	"fmt"
	"slices"

	sched "nocsim/coll"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// ----------------------------------------------------------------- alltoall

// Alltoall is MPI_Alltoall. With sbuf == InPlace the data to send is taken
// from rbuf (and replaced by what arrives).
func (r *Rank) Alltoall(sbuf datatype.Buffer, scount int, sdt *datatype.Datatype, rbuf datatype.Buffer, rcount int, rdt *datatype.Datatype, c *Comm) error {
	n := rcount * rdt.Size()
	x, err := r.beginColl("MPI_Alltoall", c, argsI("%d bytes to each rank", n))
	if err != nil {
		return err
	}
	P := c.Size()
	defer x.end(P * n)
	if err := x.check("receive", rbuf, P*rcount, rdt); err != nil {
		return err
	}
	rb := make([]allBlock, P)
	for j := range rb {
		rb[j] = allBlock{rbuf, j * rcount * rdt.Extent(), rcount, rdt}
	}
	var sb []allBlock
	if !isInPlace(sbuf) {
		if err := x.check("send", sbuf, P*scount, sdt); err != nil {
			return err
		}
		if scount*sdt.Size() != n {
			return mpierr.Errorf(mpierr.ErrCount, x.name, "sends %d bytes to each rank but receives %d", scount*sdt.Size(), n)
		}
		sb = make([]allBlock, P)
		for j := range sb {
			sb[j] = allBlock{sbuf, j * scount * sdt.Extent(), scount, sdt}
		}
	}
	alg := x.pick("alltoall", r.w.Cfg.Alltoall, n)
	return x.alltoallRun(alg, sb, rb, true)
}

// Alltoallv is MPI_Alltoallv: displacements in extents of the datatypes.
// With sbuf == InPlace the data to send is taken from rbuf as described
// by the receive arguments.
func (r *Rank) Alltoallv(sbuf datatype.Buffer, scounts, sdispls []int, sdt *datatype.Datatype, rbuf datatype.Buffer, rcounts, rdispls []int, rdt *datatype.Datatype, c *Comm) error {
	P := allSize(c)
	x, err := r.beginColl("MPI_Alltoallv", c, argsI("MPI_Alltoallv, %d ranks", P))
	if err != nil {
		return err
	}
	total := 0
	for j := 0; j < min(P, len(rcounts)); j++ {
		total += rcounts[j] * rdt.Size()
	}
	defer x.end(total)
	if len(rcounts) < P || len(rdispls) < P {
		return mpierr.Errorf(mpierr.ErrArg, x.name, "%d receive counts and %d displacements for %d ranks", len(rcounts), len(rdispls), P)
	}
	rb := make([]allBlock, P)
	for j := range rb {
		rb[j] = allBlock{rbuf, rdispls[j] * rdt.Extent(), rcounts[j], rdt}
	}
	var sb []allBlock
	if !isInPlace(sbuf) {
		if len(scounts) < P || len(sdispls) < P {
			return mpierr.Errorf(mpierr.ErrArg, x.name, "%d send counts and %d displacements for %d ranks", len(scounts), len(sdispls), P)
		}
		sb = make([]allBlock, P)
		for j := range sb {
			sb[j] = allBlock{sbuf, sdispls[j] * sdt.Extent(), scounts[j], sdt}
		}
	}
	return x.alltoallVariable(sb, rb)
}

// Alltoallw is MPI_Alltoallw: a datatype per peer and displacements in
// bytes. With sbuf == InPlace the data to send is taken from rbuf.
func (r *Rank) Alltoallw(sbuf datatype.Buffer, scounts, sdispls []int, sdts []*datatype.Datatype, rbuf datatype.Buffer, rcounts, rdispls []int, rdts []*datatype.Datatype, c *Comm) error {
	P := allSize(c)
	x, err := r.beginColl("MPI_Alltoallw", c, argsI("MPI_Alltoallw, %d ranks", P))
	if err != nil {
		return err
	}
	total := 0
	for j := 0; j < min(P, len(rcounts), len(rdts)); j++ {
		total += rcounts[j] * rdts[j].Size()
	}
	defer x.end(total)
	if len(rcounts) < P || len(rdispls) < P || len(rdts) < P {
		return mpierr.Errorf(mpierr.ErrArg, x.name, "%d receive counts, %d displacements and %d datatypes for %d ranks", len(rcounts), len(rdispls), len(rdts), P)
	}
	rb := make([]allBlock, P)
	for j := range rb {
		rb[j] = allBlock{rbuf, rdispls[j], rcounts[j], rdts[j]}
	}
	var sb []allBlock
	if !isInPlace(sbuf) {
		if len(scounts) < P || len(sdispls) < P || len(sdts) < P {
			return mpierr.Errorf(mpierr.ErrArg, x.name, "%d send counts, %d displacements and %d datatypes for %d ranks", len(scounts), len(sdispls), len(sdts), P)
		}
		sb = make([]allBlock, P)
		for j := range sb {
			sb[j] = allBlock{sbuf, sdispls[j], scounts[j], sdts[j]}
		}
	}
	return x.alltoallVariable(sb, rb)
}

// alltoallVariable runs Alltoallv and Alltoallw once their blocks are
// described.
func (x *coll) alltoallVariable(sb, rb []allBlock) error {
	total := 0
	for j := range rb {
		if err := x.allBlockCheck(fmt.Sprintf("receive block %d", j), rb[j]); err != nil {
			return err
		}
		total += rb[j].bytes()
	}
	for j := range sb {
		if err := x.allBlockCheck(fmt.Sprintf("send block %d", j), sb[j]); err != nil {
			return err
		}
	}
	// Counts differ between ranks, so each picks by its own mean block;
	// the two choices that can result (pairwise, and post_all standing in
	// for bruck) send the same messages, so ranks choosing differently
	// still match.
	alg := x.pick("alltoall", x.r.w.Cfg.Alltoall, total/len(rb))
	return x.alltoallRun(alg, sb, rb, false)
}

// alltoallStage gives each block a word-aligned run of bytes to send or
// receive: the user's memory when the block is contiguous and starts on a
// word, else a slot of one scratch buffer, packed on the way out and
// unpacked on the way in.
type alltoallStage struct {
	x      *coll
	blocks []allBlock
	view   []datatype.Buffer
	staged []bool
	tmp    *datatype.Buffer
}

// alltoallStageBlocks builds the views of every block but skip's; out packs
// the staged ones (they are to be sent).
func (x *coll) alltoallStageBlocks(blocks []allBlock, skip int, out bool) (*alltoallStage, error) {
	st := &alltoallStage{x: x, blocks: blocks, view: make([]datatype.Buffer, len(blocks)), staged: make([]bool, len(blocks))}
	offs := make([]int, len(blocks))
	size := 0
	for j, b := range blocks {
		switch {
		case j == skip:
		case b.count == 0:
			st.view[j] = datatype.Buffer{Addr: b.buf.Addr, Bytes: b.buf.Bytes[:0]}
		case b.dt.Contiguous() && b.off%4 == 0:
			st.view[j], _ = b.buf.Slice(b.off, b.bytes())
		default:
			st.staged[j], offs[j] = true, size
			size += sched.Pad4(b.bytes())
		}
	}
	if size == 0 {
		return st, nil
	}
	tmp, err := x.alloc(size)
	if err != nil {
		return nil, err
	}
	st.tmp = &tmp
	for j, b := range blocks {
		if !st.staged[j] {
			continue
		}
		st.view[j], _ = tmp.Slice(offs[j], b.bytes())
		if out {
			if err := x.allBlockPack(b, st.view[j].Bytes); err != nil {
				st.free()
				return nil, err
			}
		}
	}
	return st, nil
}

// unstage unpacks the staged blocks that were received.
func (st *alltoallStage) unstage() error {
	for j, b := range st.blocks {
		if st.staged[j] {
			if err := st.x.allBlockUnpack(st.view[j].Bytes, b); err != nil {
				return err
			}
		}
	}
	return nil
}

func (st *alltoallStage) free() {
	if st.tmp != nil {
		st.x.free(*st.tmp)
		st.tmp = nil
	}
}

// alltoallSelf moves a rank's block to itself.
func (x *coll) alltoallSelf(s, d allBlock) error {
	n := s.bytes()
	if n != d.bytes() {
		return mpierr.Errorf(mpierr.ErrTruncate, x.name, "rank %d sends itself %d bytes but receives %d", x.c.Rank(), n, d.bytes())
	}
	if n == 0 {
		return nil
	}
	if s.dt.Contiguous() && d.dt.Contiguous() {
		x.charge(n)
		copy(d.buf.Bytes[d.off:d.off+n], s.buf.Bytes[s.off:s.off+n])
		return nil
	}
	tmp, err := x.alloc(n)
	if err != nil {
		return err
	}
	defer x.free(tmp)
	if err := x.allBlockPack(s, tmp.Bytes); err != nil {
		return err
	}
	return x.allBlockUnpack(tmp.Bytes, d)
}

// alltoallRun runs algorithm alg; sb is nil for in-place. uniform says
// every block on every rank has the same size.
func (x *coll) alltoallRun(alg string, sb, rb []allBlock, uniform bool) error {
	me := x.c.Rank()
	var staged alltoallRun // the code run on staged blocks
	var prog sched.Program
	switch run := lookupAlg("alltoall", alg).run.(type) {
	case alltoallRun:
		staged = run
	case *sched.Algorithm:
		if run.Varying != nil && uniform {
			if sb == nil {
				sb = rb // bruck copies every block out before anything arrives
			}
			return x.runProgram(run.Program, alltoallArgs(sb, rb), callBufs{}, &blockBufs{send: sb, recv: rb})
		}
		prog = run.Program
		if run.Varying != nil {
			prog = run.Varying
		}
	default:
		return mpierr.Errorf(mpierr.ErrArg, x.name, "unknown alltoall algorithm %q", alg)
	}
	inPlace := sb == nil
	if inPlace {
		// The outgoing blocks are copied away before any arrives.
		cp := slices.Clone(rb)
		cp[me].count = 0 // stays where it is
		st, err := x.alltoallStagePacked(cp)
		if err != nil {
			return err
		}
		defer x.free(st.buf)
		sb = st.blocks
	}
	ss, err := x.alltoallStageBlocks(sb, me, true)
	if err != nil {
		return err
	}
	defer ss.free()
	rs, err := x.alltoallStageBlocks(rb, me, false)
	if err != nil {
		return err
	}
	defer rs.free()
	if !inPlace {
		if err := x.alltoallSelf(sb[me], rb[me]); err != nil {
			return err
		}
	}
	if staged != nil {
		err = staged(x, sb, rb, ss, rs)
	} else {
		err = x.runProgram(prog, alltoallArgs(sb, rb), callBufs{}, &blockBufs{send: sb, recv: rb, sview: ss.view, rview: rs.view})
	}
	if err != nil {
		return err
	}
	return rs.unstage()
}

type alltoallPacked struct {
	buf    datatype.Buffer
	blocks []allBlock
}

// alltoallStagePacked copies every block into one scratch buffer, each
// word-aligned, and describes the copies as blocks of bytes.
func (x *coll) alltoallStagePacked(blocks []allBlock) (*alltoallPacked, error) {
	size := 0
	for _, b := range blocks {
		size += sched.Pad4(b.bytes())
	}
	buf, err := x.alloc(size)
	if err != nil {
		return nil, err
	}
	out := &alltoallPacked{buf: buf, blocks: make([]allBlock, len(blocks))}
	off := 0
	for j, b := range blocks {
		if err := x.allBlockPack(b, buf.Bytes[off:]); err != nil {
			x.free(buf)
			return nil, err
		}
		out.blocks[j] = allBlock{buf, off, b.bytes(), datatype.Byte}
		off += sched.Pad4(b.bytes())
	}
	return out, nil
}

// alltoallArgs gives a program the bytes of every block.
func alltoallArgs(sb, rb []allBlock) sched.Args {
	a := sched.Args{Send: make([]int, len(sb)), Recv: make([]int, len(rb))}
	for j := range sb {
		a.Send[j] = sb[j].bytes()
	}
	for j := range rb {
		a.Recv[j] = rb[j].bytes()
	}
	return a
}
