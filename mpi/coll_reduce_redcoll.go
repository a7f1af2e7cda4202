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
	o  *datatype.Op
	t  *datatype.Datatype
	es int
	// eng runs the call's program; it lives in the record, which its
	// rank reuses, so that a call allocates no engine.
	eng engine
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
	*rd = redColl{coll: x, o: o, t: t, es: t.Size(), eng: engine{alloc: rd.eng.alloc[:0]}}
	return rd, nil
}

// lookup is op's algorithm alg, or, when alg combines operands out of
// rank order and the op is not commutative, the algorithm it names
// instead (sched.Algorithm.Ordered), which the call then records; nil if
// there is none.
func (rd *redColl) lookup(op, alg string) *sched.Algorithm {
	a, _ := lookupAlg(op, alg).run.(*sched.Algorithm)
	if a != nil && a.Ordered != "" && !rd.o.Commutative() {
		rd.alg = a.Ordered
		a, _ = lookupAlg(op, a.Ordered).run.(*sched.Algorithm)
	}
	return a
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

// release hands the record back to its rank.
func (rd *redColl) release() {
	r := rd.r
	*rd = redColl{eng: engine{alloc: rd.eng.alloc[:0]}}
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
