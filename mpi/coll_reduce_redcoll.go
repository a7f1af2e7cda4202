package mpi

import (
	sched "nocsim/coll"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// redColl is a reduction in progress: the collective, its op and the type
// of its elements, which the algorithms handle packed, es bytes each.
type redColl struct {
	*coll
	o       *datatype.Op
	t       *datatype.Datatype
	es      int
	scratch []datatype.Buffer // freed by release
}

// newRed checks that op can combine elements of t.
func (x *coll) newRed(o *datatype.Op, t *datatype.Datatype) (*redColl, error) {
	switch {
	case o == nil:
		return nil, mpierr.Errorf(mpierr.ErrArg, x.name, "op is nil")
	case t == nil || !t.Committed():
		return nil, mpierr.Errorf(mpierr.ErrType, x.name, "datatype not committed")
	}
	if err := o.Check(x.name, t); err != nil {
		return nil, err
	}
	r := x.r
	var rd *redColl
	if k := len(r.freeRed); k > 0 {
		rd = r.freeRed[k-1]
		r.freeRed[k-1] = nil
		r.freeRed = r.freeRed[:k-1]
	} else {
		rd = &redColl{}
	}
	*rd = redColl{coll: x, o: o, t: t, es: t.Size(), scratch: rd.scratch[:0]}
	return rd, nil
}

// lookup is the runner registered for op's algorithm alg, or, when alg
// reorders operands and the op is not commutative, ordered's, the
// algorithm the call then records.
func (rd *redColl) lookup(op, alg, ordered string) any {
	e := lookupAlg(op, alg)
	if e.reorders && !rd.o.Commutative() {
		rd.alg = ordered
		e = lookupAlg(op, ordered)
	}
	return e.run
}

// buffers checks and packs the arguments of an operation whose every rank
// has an input of n elements and a result of m: sbuf, or rbuf with InPlace.
// The result goes to the start of out.
func (rd *redColl) buffers(sbuf, rbuf datatype.Buffer, n, m int) (in, out datatype.Buffer, inPlace bool, done func(), err error) {
	x := rd.coll
	inPlace = isInPlace(sbuf)
	if inPlace {
		if err = x.check("receive buffer", rbuf, n, rd.t); err != nil {
			return
		}
		if in, done, err = x.contig(rbuf, n, rd.t); err != nil {
			return
		}
		out, err = in.Slice(0, m*rd.es)
		return
	}
	if err = x.check("send buffer", sbuf, n, rd.t); err == nil {
		err = x.check("receive buffer", rbuf, m, rd.t)
	}
	if err != nil {
		return
	}
	in, d1, err := x.contig(sbuf, n, rd.t)
	if err != nil {
		return
	}
	out, d2, err := x.contig(rbuf, m, rd.t)
	if err != nil {
		d1()
		return
	}
	if rd.t.Contiguous() {
		return in, out, false, noop, nil // nothing was packed
	}
	return in, out, false, func() { d2(); d1() }, nil
}

func noop() {}

// newBuf is scratch of n bytes, freed when the operation ends.
func (rd *redColl) newBuf(n int) (datatype.Buffer, error) {
	b, err := rd.alloc(n)
	if err != nil {
		return datatype.Buffer{}, err
	}
	rd.scratch = append(rd.scratch, b)
	return b, nil
}

// release frees the scratch and hands the record back to its rank.
func (rd *redColl) release() {
	for _, b := range rd.scratch {
		rd.free(b)
	}
	clear(rd.scratch)
	r := rd.r
	*rd = redColl{scratch: rd.scratch[:0]}
	r.freeRed = append(r.freeRed, rd)
}

// combine computes inout = in op inout over count packed elements.
func (rd *redColl) combine(in, inout datatype.Buffer, count int) error {
	if count == 0 {
		return nil
	}
	if !rd.o.UserDefined() || rd.t.Contiguous() {
		return rd.reduce(rd.o, in, inout, count, rd.t)
	}
	// A user function works on its datatype's layout, not on packed bytes.
	span := rd.t.Span(count)
	a, err := rd.alloc(span)
	if err != nil {
		return err
	}
	defer rd.free(a)
	b, err := rd.alloc(span)
	if err != nil {
		return err
	}
	defer rd.free(b)
	p, q := 0, 0
	if err := datatype.Unpack(in.Bytes, &p, a.Bytes, count, rd.t); err != nil {
		return err
	}
	if err := datatype.Unpack(inout.Bytes, &q, b.Bytes, count, rd.t); err != nil {
		return err
	}
	if err := rd.reduce(rd.o, a, b, count, rd.t); err != nil {
		return err
	}
	p = 0
	rd.r.t.Compute(3 * rd.r.w.M.CPU.CopyCyclesPerWord * int64((count*rd.es+3)/4))
	return datatype.Pack(b.Bytes, count, rd.t, inout.Bytes, &p)
}

// redAt is n bytes of b from byte off, for local work only: off need not
// be a word boundary, which the DMA engine needs.
func redAt(b datatype.Buffer, off, n int) datatype.Buffer {
	return datatype.Buffer{Addr: b.Addr + uint32(off/4), Bytes: b.Bytes[off : off+n]}
}

// redSame reports whether a and b start at the same byte.
func redSame(a, b datatype.Buffer) bool {
	return len(a.Bytes) > 0 && len(b.Bytes) > 0 && &a.Bytes[0] == &b.Bytes[0]
}

// msg is n bytes of b from byte off ready to send: a slice when off is a
// word boundary, else a copy in *scr (grown as needed).
func (rd *redColl) msg(b datatype.Buffer, off, n int, scr *datatype.Buffer) (datatype.Buffer, error) {
	if off%4 == 0 {
		return b.Slice(off, n)
	}
	if scr.Len() < n {
		s, err := rd.newBuf(n)
		if err != nil {
			return datatype.Buffer{}, err
		}
		*scr = s
	}
	rd.copy(*scr, redAt(b, off, n), n)
	return scr.Slice(0, n)
}

// redSplit cuts count elements of es bytes into parts blocks, block i
// being elements off[i]..off[i+1], every block starting on a word.
func redSplit(count, parts, es int) []int {
	g := 1
	for g*es%4 != 0 {
		g++
	}
	units := count / g
	off := make([]int, parts+1)
	for i := range parts {
		off[i] = g * (units * i / parts)
	}
	off[parts] = count
	return off
}

// absorbFolded is the fold's first step on an odd rank below 2*rem: it
// takes its even partner's vector and combines it into acc.
func (rd *redColl) absorbFolded(acc datatype.Buffer, n, count, me int, f sched.Fold) error {
	if me >= 2*f.Rem {
		return nil
	}
	tmp, err := rd.newBuf(n)
	if err != nil {
		return err
	}
	if err := rd.recv(tmp, n, me-1); err != nil {
		return err
	}
	return rd.combine(tmp, acc, count)
}
