package mpi

import (
	"errors"

	sched "nocsim/coll"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// Scatter and gather.

// rtBlocks is the root's buffer of a scatter or gather: rank i's block is
// cnt[i] elements of dt at byte disp[i] of buf.
type rtBlocks struct {
	buf       datatype.Buffer
	dt        *datatype.Datatype
	disp, cnt []int
}

func (bl *rtBlocks) size(i int) int { return bl.cnt[i] * bl.dt.Size() }

// treeView is the root's buffer seen as the tree layout when it already
// is one (a contiguous type, every block at its tree offset, and no block
// but the last a part word, so no padding lands in the user's buffer).
func (bl *rtBlocks) treeView(root int, sz, off []int) (datatype.Buffer, bool) {
	P := len(sz)
	base := bl.disp[root]
	if !bl.dt.Contiguous() || base%4 != 0 {
		return datatype.Buffer{}, false
	}
	for j := 0; j < P; j++ {
		i := (root + j) % P
		if sz[j] == 0 {
			continue
		}
		if bl.disp[i]-base != off[j] || j < P-1 && sz[j]%4 != 0 || bl.disp[i]+sz[j] > bl.buf.Len() {
			return datatype.Buffer{}, false
		}
	}
	b, err := bl.buf.Slice(base, bl.buf.Len()-base)
	return b, err == nil
}

// rtRegular is the root's buffer of MPI_Scatter or MPI_Gather: P blocks of
// count elements, one after the other.
func (x *coll) rtRegular(what string, buf datatype.Buffer, count int, dt *datatype.Datatype, root int) (*rtBlocks, error) {
	if err := x.rtCheckRoot(root); err != nil {
		return nil, err
	}
	P := x.c.Size()
	if err := x.check(what, buf, P*count, dt); err != nil {
		return nil, err
	}
	bl := &rtBlocks{buf: buf, dt: dt, disp: make([]int, P), cnt: make([]int, P)}
	for i := range P {
		bl.disp[i], bl.cnt[i] = i*count*dt.Extent(), count
	}
	return bl, nil
}

// rtVector is the root's buffer of MPI_Scatterv or MPI_Gatherv.
func (x *coll) rtVector(what string, buf datatype.Buffer, counts, displs []int, dt *datatype.Datatype, root int) (*rtBlocks, error) {
	if err := x.rtCheckRoot(root); err != nil {
		return nil, err
	}
	P := x.c.Size()
	if len(counts) < P || len(displs) < P {
		return nil, mpierr.Errorf(mpierr.ErrArg, x.name, "%s: %d counts and %d displacements for %d ranks", what, len(counts), len(displs), P)
	}
	if err := x.check(what, buf, 0, dt); err != nil {
		return nil, err
	}
	bl := &rtBlocks{buf: buf, dt: dt, disp: make([]int, P), cnt: make([]int, P)}
	for i := range P {
		if counts[i] < 0 {
			return nil, mpierr.Errorf(mpierr.ErrCount, x.name, "%s: count %d for rank %d must be >= 0", what, counts[i], i)
		}
		d, ok := datatype.MulBytes(displs[i], dt.Extent())
		if !ok || d < 0 {
			return nil, mpierr.Errorf(mpierr.ErrBuffer, x.name, "%s: displacement %d for rank %d reaches before the buffer", what, displs[i], i)
		}
		if counts[i] > 0 {
			if dt.TrueLB() < 0 {
				return nil, mpierr.Errorf(mpierr.ErrBuffer, x.name, "%s datatype starts %d bytes before the buffer", what, -dt.TrueLB())
			}
			if end, ok := datatype.AddBytes(d, dt.Span(counts[i])); !ok || end > buf.Len() {
				return nil, mpierr.Errorf(mpierr.ErrBuffer, x.name, "%s: %d elements at displacement %d for rank %d pass the end of the %d-byte buffer", what, counts[i], displs[i], i, buf.Len())
			}
		}
		bl.disp[i], bl.cnt[i] = d, counts[i]
	}
	return bl, nil
}

// rtScatter runs a scatter: bl is the root's data (nil elsewhere), per the
// bytes every rank gets (MPI_Scatter) and vec marks MPI_Scatterv, whose
// sizes only the root knows.
func (x *coll) rtScatter(bl *rtBlocks, rbuf datatype.Buffer, rcount int, rdt *datatype.Datatype, root, per int, vec bool) error {
	P, me := x.c.Size(), x.c.Rank()
	moved := 0
	defer func() { x.end(moved) }()
	if err := x.rtCheckRoot(root); err != nil {
		return err
	}
	inPlace := me == root && isInPlace(rbuf)
	if !inPlace {
		if err := x.check("receive buffer", rbuf, rcount, rdt); err != nil {
			return err
		}
	} else {
		rcount, rdt = 0, datatype.Byte
	}
	mine := rcount * rdt.Size()
	var late error // an error of this rank alone: the others still get their data
	own := func() error { return nil }
	if me == root {
		for i := range P {
			if i != root {
				moved += bl.size(i)
			}
		}
		if !inPlace {
			if bl.size(root) != mine {
				late = mpierr.Errorf(mpierr.ErrArg, x.name, "the root's own block is %d bytes, its receive %d", bl.size(root), mine)
			} else {
				own = func() error {
					return x.rtMove(bl.buf.Bytes[bl.disp[root]:], bl.cnt[root], bl.dt, rbuf.Bytes, rcount, rdt)
				}
			}
		}
	} else {
		moved = mine
	}
	rb, finish := datatype.Buffer{}, func(bool) error { return nil }
	if me != root {
		var err error
		if rb, finish, err = x.rtRecvArea(rbuf, rcount, rdt); err != nil {
			return err
		}
	}
	var err error
	if vec {
		// Only the root knows a vector call's sizes, and every rank must
		// make the same choice: auto takes the short-message algorithm.
		per = 0
	}
	alg := x.pick("scatter", x.r.w.Cfg.Scatter, per)
	part := rtPart{bl: bl, b: rb, mine: mine, root: root, vec: vec, own: own, late: &late}
	switch run := lookupAlg("scatter", alg).run.(type) {
	case scatterRun:
		err = run(x, part)
	case *sched.Algorithm:
		err = x.runRooted(run.Program, part)
	default:
		err = x.rtUnknown(alg)
	}
	if e := finish(err == nil); err == nil {
		err = e
	}
	if err == nil {
		err = late
	}
	return err
}

// rtGather runs a gather; the arguments mirror rtScatter's.
func (x *coll) rtGather(sbuf datatype.Buffer, scount int, sdt *datatype.Datatype, bl *rtBlocks, root, per int, vec bool) error {
	P, me := x.c.Size(), x.c.Rank()
	moved := 0
	defer func() { x.end(moved) }()
	if err := x.rtCheckRoot(root); err != nil {
		return err
	}
	inPlace := isInPlace(sbuf)
	if inPlace && me != root {
		return mpierr.Errorf(mpierr.ErrBuffer, x.name, "only the root may pass MPI_IN_PLACE")
	}
	if !inPlace {
		if err := x.check("send buffer", sbuf, scount, sdt); err != nil {
			return err
		}
	} else {
		scount, sdt = 0, datatype.Byte
	}
	mine := scount * sdt.Size()
	var late error
	own := func() error { return nil }
	if me == root {
		for i := range P {
			if i != root {
				moved += bl.size(i)
			}
		}
		if !inPlace {
			if bl.size(root) != mine {
				late = mpierr.Errorf(mpierr.ErrArg, x.name, "the root sends %d bytes to its own block of %d", mine, bl.size(root))
			} else {
				own = func() error {
					return x.rtMove(sbuf.Bytes, scount, sdt, bl.buf.Bytes[bl.disp[root]:], bl.cnt[root], bl.dt)
				}
			}
		}
	} else {
		moved = mine
	}
	var sb datatype.Buffer
	done := func() {}
	if me != root {
		var err error
		if sb, done, err = x.contig(sbuf, scount, sdt); err != nil {
			return err
		}
	}
	defer done()
	if vec {
		per = 0 // as in rtScatter
	}
	var err error
	alg := x.pick("gather", x.r.w.Cfg.Gather, per)
	part := rtPart{bl: bl, b: sb, mine: mine, root: root, vec: vec, own: own}
	switch run := lookupAlg("gather", alg).run.(type) {
	case gatherRun:
		err = run(x, part)
	case *sched.Algorithm:
		err = x.runRooted(run.Program, part)
	default:
		err = x.rtUnknown(alg)
	}
	if err == nil {
		err = late
	}
	return err
}

// runRooted runs a scatter or gather program: this rank's own data is
// Data, the root's blocks are RootBlock. A size mismatch the program
// finds once the data has moved (sched.Truncated) is the call's late
// error, reported after the call completes.
func (x *coll) runRooted(prog sched.Program, p rtPart) error {
	a := sched.Args{Root: p.root, N: p.mine, Vec: p.vec}
	if p.bl != nil {
		a.Blocks = make([]int, len(p.bl.cnt))
		for i := range a.Blocks {
			a.Blocks[i] = p.bl.size(i)
		}
	}
	err := x.runProgram(prog, a, callBufs{sched.Data: p.b}, &blockBufs{part: &p})
	var t *sched.Truncated
	if errors.As(err, &t) {
		if *p.late == nil {
			*p.late = mpierr.Errorf(mpierr.ErrTruncate, x.name, "rank %d: %v", x.r.rank, t)
		}
		return nil
	}
	return err
}
