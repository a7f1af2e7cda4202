package mpi

import (
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// Building blocks of the rooted collectives (coll_rooted.go), which other
// families use too: local data movement charged to the processor, and
// rtStep, a set of messages in flight.

// Local data movement, charged to the processor.

// rtPack packs block i of bl into dst.
func (x *coll) rtPack(bl *rtBlocks, i int, dst []byte) error {
	x.charge(bl.size(i))
	pos := 0
	return datatype.Pack(bl.buf.Bytes[bl.disp[i]:], bl.cnt[i], bl.dt, dst, &pos)
}

// rtUnpack unpacks block i of bl from src.
func (x *coll) rtUnpack(bl *rtBlocks, i int, src []byte) error {
	x.charge(bl.size(i))
	pos := 0
	return datatype.Unpack(src[:bl.size(i)], &pos, bl.buf.Bytes[bl.disp[i]:], bl.cnt[i], bl.dt)
}

// rtMove copies the root's own block between its send and receive
// buffers, through a packed copy when either type is not contiguous.
func (x *coll) rtMove(src []byte, scount int, sdt *datatype.Datatype, dst []byte, rcount int, rdt *datatype.Datatype) error {
	n := scount * sdt.Size()
	if sdt.Contiguous() && rdt.Contiguous() {
		x.copy(datatype.Buffer{Bytes: dst}, datatype.Buffer{Bytes: src}, n)
		return nil
	}
	tmp, err := x.alloc(n)
	if err != nil {
		return err
	}
	defer x.free(tmp)
	pos := 0
	x.charge(2 * n)
	if err := datatype.Pack(src, scount, sdt, tmp.Bytes, &pos); err != nil {
		return err
	}
	pos = 0
	return datatype.Unpack(tmp.Bytes[:n], &pos, dst, rcount, rdt)
}

// rtRecvArea is where count elements of t arrive as contiguous bytes: buf
// itself when t is contiguous, otherwise scratch that finish unpacks
// (when ok) and frees.
func (x *coll) rtRecvArea(buf datatype.Buffer, count int, t *datatype.Datatype) (datatype.Buffer, func(ok bool) error, error) {
	n := count * t.Size()
	if t.Contiguous() {
		b, err := buf.Slice(0, n)
		return b, func(bool) error { return nil }, err
	}
	tmp, err := x.alloc(n)
	if err != nil {
		return datatype.Buffer{}, nil, err
	}
	return tmp, func(ok bool) error {
		defer x.free(tmp)
		if !ok {
			return nil
		}
		return x.scatterBack(tmp, buf, count, t)
	}, nil
}

// rtStep is a set of messages in flight, with what to do once they are
// all done.
type rtStep struct {
	x     *coll
	qs    []*Request
	after []func(ok bool) error
	err   error
}

func (x *coll) rtStep() *rtStep { return &rtStep{x: x} }

func (s *rtStep) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

func (s *rtStep) post(q *Request, err error) {
	if err != nil {
		s.fail(err)
		return
	}
	s.qs = append(s.qs, q)
}

func (s *rtStep) later(f func(ok bool) error) { s.after = append(s.after, f) }

// bytesAt is n bytes from byte off of b; off need not be word-aligned.
func (s *rtStep) bytesAt(b datatype.Buffer, off, n int) ([]byte, bool) {
	if off < 0 || off+n > b.Len() {
		s.fail(mpierr.Errorf(mpierr.ErrBuffer, s.x.name, "bytes %d..%d of a %d-byte buffer", off, off+n, b.Len()))
		return nil, false
	}
	return b.Bytes[off : off+n], true
}

// send sends n bytes from byte off of b. The DMA engine reads whole words
// from a word address, so data not starting on a word is staged through
// scratch (a charged copy).
func (s *rtStep) send(b datatype.Buffer, off, n, dst int) {
	x := s.x
	switch {
	case s.err != nil:
	case n == 0:
		s.post(x.isend(datatype.Buffer{}, 0, dst))
	case off%4 != 0:
		src, ok := s.bytesAt(b, off, n)
		if !ok {
			return
		}
		tmp, err := x.alloc(n)
		if err != nil {
			s.fail(err)
			return
		}
		x.copy(tmp, datatype.Buffer{Bytes: src}, n)
		s.later(func(bool) error { x.free(tmp); return nil })
		s.post(x.isend(tmp, n, dst))
	default:
		bb, err := b.Slice(off, n)
		if err != nil {
			s.fail(err)
			return
		}
		s.post(x.isend(bb, n, dst))
	}
}

// recv receives n bytes at byte off of b, staging them through scratch
// when off is not word-aligned.
func (s *rtStep) recv(b datatype.Buffer, off, n, src int) {
	x := s.x
	switch {
	case s.err != nil:
	case n == 0:
		s.post(x.irecv(datatype.Buffer{}, 0, src))
	case off%4 != 0:
		dst, ok := s.bytesAt(b, off, n)
		if !ok {
			return
		}
		tmp, err := x.alloc(n)
		if err != nil {
			s.fail(err)
			return
		}
		s.later(func(ok bool) error {
			if ok {
				x.copy(datatype.Buffer{Bytes: dst}, tmp, n)
			}
			x.free(tmp)
			return nil
		})
		s.post(x.irecv(tmp, n, src))
	default:
		bb, err := b.Slice(off, n)
		if err != nil {
			s.fail(err)
			return
		}
		s.post(x.irecv(bb, n, src))
	}
}

// sendBlock sends the root's block i, packing it first if its type is not
// contiguous.
func (s *rtStep) sendBlock(bl *rtBlocks, i, dst int) {
	n := bl.size(i)
	if bl.dt.Contiguous() || n == 0 {
		s.send(bl.buf, bl.disp[i], n, dst)
		return
	}
	if s.err != nil {
		return
	}
	tmp, err := s.x.alloc(n)
	if err != nil {
		s.fail(err)
		return
	}
	s.later(func(bool) error { s.x.free(tmp); return nil })
	if err := s.x.rtPack(bl, i, tmp.Bytes); err != nil {
		s.fail(err)
		return
	}
	s.send(tmp, 0, n, dst)
}

// recvBlock receives the root's block i, unpacking it afterwards if its
// type is not contiguous.
func (s *rtStep) recvBlock(bl *rtBlocks, i, src int) {
	n := bl.size(i)
	if bl.dt.Contiguous() || n == 0 {
		s.recv(bl.buf, bl.disp[i], n, src)
		return
	}
	if s.err != nil {
		return
	}
	tmp, err := s.x.alloc(n)
	if err != nil {
		s.fail(err)
		return
	}
	s.later(func(ok bool) error {
		defer s.x.free(tmp)
		if !ok {
			return nil
		}
		return s.x.rtUnpack(bl, i, tmp.Bytes)
	})
	s.recv(tmp, 0, n, src)
}

// wait completes every message of the step, then runs its finishing work.
// After a failure to post, what was posted is abandoned: the run is in
// error anyway.
func (s *rtStep) wait() error {
	err := s.err
	if err == nil && len(s.qs) > 0 {
		err = s.x.waitall(s.qs...)
	}
	for _, f := range s.after {
		if e := f(err == nil); err == nil {
			err = e
		}
	}
	s.qs, s.after, s.err = nil, nil, nil
	return err
}
