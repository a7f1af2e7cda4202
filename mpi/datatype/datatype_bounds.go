package datatype

import "nocsim/mpi/mpierr"

// TrueLB is the true lower bound (MPI_Type_get_true_extent): the lowest
// byte the data occupies, ignoring bounds set by TypeCreateResized. It is
// what a buffer must hold before its start.
func (t *Datatype) TrueLB() int {
	if t == nil {
		return 0
	}
	return t.trueLB
}

// TrueExtent is the true extent (MPI_Type_get_true_extent): the bytes from
// the lowest to one past the highest the data occupies, with no alignment
// padding and ignoring bounds set by TypeCreateResized.
func (t *Datatype) TrueExtent() int {
	if t == nil {
		return 0
	}
	return t.trueUB - t.trueLB
}

// TypeGetExtent is MPI_Type_get_extent: the lower bound and the extent, the
// stride between consecutive elements of a buffer.
func TypeGetExtent(t *Datatype) (lb, extent int, err error) {
	if err := checkType("MPI_Type_get_extent", "datatype", t); err != nil {
		return 0, 0, err
	}
	return t.lb, t.Extent(), nil
}

// TypeGetTrueExtent is MPI_Type_get_true_extent: the true lower bound and
// the true extent (see TrueLB and TrueExtent).
func TypeGetTrueExtent(t *Datatype) (trueLB, trueExtent int, err error) {
	if err := checkType("MPI_Type_get_true_extent", "datatype", t); err != nil {
		return 0, 0, err
	}
	return t.trueLB, t.TrueExtent(), nil
}

// TypeCreateResized is MPI_Type_create_resized: old's typemap with lower
// bound lb and upper bound lb + extent, whatever its data and alignment.
// Consecutive elements then sit extent bytes apart, and the bounds carry
// into the types built from the result (MPI's lb and ub markers). The new
// type must be committed before use. nocsim refuses a negative extent,
// which MPI allows: it would lay elements out backwards, before the buffer
// start that every buffer check here takes as the lowest byte reached.
func TypeCreateResized(old *Datatype, lb, extent int) (*Datatype, error) {
	const op = "MPI_Type_create_resized"
	if err := checkType(op, "old type", old); err != nil {
		return nil, err
	}
	if extent < 0 {
		return nil, mpierr.Errorf(mpierr.ErrArg, op, "extent %d must be >= 0", extent)
	}
	ub, ok := AddBytes(lb, extent)
	if !ok {
		return nil, mpierr.Errorf(mpierr.ErrArg, op, "lb %d plus extent %d exceeds %d bytes", lb, extent, maxBytes)
	}
	t := old.clone()
	t.lb, t.ub, t.sticky = lb, ub, true
	t.finish()
	return t, nil
}

// TypeDup is MPI_Type_dup: a new type with old's typemap and bounds,
// committed if old is. A duplicate of a predefined type is a derived type:
// it can be freed, and operations that need a predefined type refuse it.
func TypeDup(old *Datatype) (*Datatype, error) {
	if err := checkType("MPI_Type_dup", "old type", old); err != nil {
		return nil, err
	}
	t := old.clone()
	if old.committed {
		t.commit()
	}
	return t, nil
}

// clone is an uncommitted derived copy of t's typemap and bounds. The runs
// are shared: no type changes its runs once built (Free drops its own
// reference only).
func (t *Datatype) clone() *Datatype {
	return &Datatype{
		name: "derived", size: t.size, lb: t.lb, ub: t.ub, trueLB: t.trueLB, trueUB: t.trueUB,
		align: t.align, sticky: t.sticky, runs: t.runs, contig: t.contig,
	}
}
