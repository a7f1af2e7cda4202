package mpi

import (
	"nocsim/mpi/mpierr"

	"nocsim/mpi/datatype"
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
	alg := x.pick("scatter", x.r.w.Cfg.Scatter, per, "binomial", "flat")
	if run, ok := lookupAlg("scatter", alg).run.(scatterRun); ok {
		err = run(x, rtPart{bl: bl, b: rb, mine: mine, root: root, vec: vec, own: own, late: &late})
	} else {
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
	alg := x.pick("gather", x.r.w.Cfg.Gather, per, "binomial", "flat")
	if run, ok := lookupAlg("gather", alg).run.(gatherRun); ok {
		err = run(x, rtPart{bl: bl, b: sb, mine: mine, root: root, vec: vec, own: own})
	} else {
		err = x.rtUnknown(alg)
	}
	if err == nil {
		err = late
	}
	return err
}

func (x *coll) rtScatterFlat(p rtPart) error {
	bl, rb, mine, root, own := p.bl, p.b, p.mine, p.root, p.own
	P, me := x.c.Size(), x.c.Rank()
	if me != root {
		return x.recv(rb, mine, root)
	}
	s := x.rtStep()
	for i := 0; i < P; i++ {
		if i != root {
			s.sendBlock(bl, i, i)
		}
	}
	err := own()
	if e := s.wait(); err == nil {
		err = e
	}
	return err
}

func (x *coll) rtGatherFlat(p rtPart) error {
	bl, sb, mine, root, own := p.bl, p.b, p.mine, p.root, p.own
	P, me := x.c.Size(), x.c.Rank()
	if me != root {
		return x.send(sb, mine, root)
	}
	s := x.rtStep()
	for i := 0; i < P; i++ {
		if i != root {
			s.recvBlock(bl, i, i)
		}
	}
	err := own()
	if e := s.wait(); err == nil {
		err = e
	}
	return err
}

// rtGatherPush: the root posts every receive, then tells each rank it is
// ready; the data then lands straight in place, never queued unexpected.
func (x *coll) rtGatherPush(p rtPart) error {
	bl, sb, mine, root, own := p.bl, p.b, p.mine, p.root, p.own
	P, me := x.c.Size(), x.c.Rank()
	if me != root {
		if err := x.recv(datatype.Buffer{}, 0, root); err != nil {
			return err
		}
		return x.send(sb, mine, root)
	}
	s := x.rtStep()
	for i := 0; i < P; i++ {
		if i != root {
			s.recvBlock(bl, i, i)
		}
	}
	for i := 0; i < P; i++ {
		if i != root {
			s.send(datatype.Buffer{}, 0, 0, i)
		}
	}
	err := own()
	if e := s.wait(); err == nil {
		err = e
	}
	return err
}
