package mpi

import (
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// Allgather(v) and Alltoall(v, w).
//
// Messages always carry packed bytes. Allgather algorithms move runs of
// consecutive blocks, so they work on one buffer holding every block in
// rank order, each block starting on a word (the DMA engine moves whole
// words); that layout is the same on every rank, so a run is the same
// number of bytes at both ends. Alltoall moves single blocks, which go
// straight from and to the user's memory when contiguous and word-aligned,
// through a packed scratch slot otherwise.

// allSize is c's size, or 0 for an invalid communicator (beginColl then
// reports it).
func allSize(c *Comm) int {
	if c == nil {
		return 0
	}
	return c.Size()
}

// allBlock is count elements of dt at byte off of buf: one rank's block of
// a collective buffer.
type allBlock struct {
	buf   datatype.Buffer
	off   int
	count int
	dt    *datatype.Datatype
}

func (b allBlock) bytes() int { return b.count * b.dt.Size() }

// allBlockCheck validates a block. A block of no elements may sit anywhere.
func (x *coll) allBlockCheck(what string, b allBlock) error {
	switch {
	case b.count < 0:
		return mpierr.Errorf(mpierr.ErrCount, x.name, "%s count %d must be >= 0", what, b.count)
	case b.dt == nil || !b.dt.Committed():
		return mpierr.Errorf(mpierr.ErrType, x.name, "%s datatype not committed", what)
	case b.count == 0:
		return nil
	case b.off < 0 || b.off > b.buf.Len():
		return mpierr.Errorf(mpierr.ErrBuffer, x.name, "%s displacement of %d bytes is outside the %d-byte buffer", what, b.off, b.buf.Len())
	}
	return x.check(what, datatype.Buffer{Bytes: b.buf.Bytes[b.off:]}, b.count, b.dt)
}

// allBlockPack packs b into dst, charging the copy.
func (x *coll) allBlockPack(b allBlock, dst []byte) error {
	if b.count == 0 {
		return nil
	}
	x.charge(b.bytes())
	pos := 0
	return datatype.Pack(b.buf.Bytes[b.off:], b.count, b.dt, dst, &pos)
}

// allBlockUnpack unpacks src into b, charging the copy.
func (x *coll) allBlockUnpack(src []byte, b allBlock) error {
	if b.count == 0 {
		return nil
	}
	x.charge(b.bytes())
	pos := 0
	return datatype.Unpack(src[:b.bytes()], &pos, b.buf.Bytes[b.off:], b.count, b.dt)
}
