package datatype

import (
	"fmt"

	"nocsim/mpi/mpierr"
)

// The type constructors of MPI-3.1 section 4.1.2: each describes its
// blocks and leaves the typemap, bounds and alignment to build.

// TypeContiguous is MPI_Type_contiguous: count copies of old, extent apart.
func TypeContiguous(count int, old *Datatype) (*Datatype, error) {
	const op = "MPI_Type_contiguous"
	if err := checkType(op, "old type", old); err != nil {
		return nil, err
	}
	if err := checkCount(op, "count", count); err != nil {
		return nil, err
	}
	return build(op, 1, func(int) block { return block{old, 0, count} })
}

// TypeVector is MPI_Type_vector: count blocks of blocklen elements of old,
// the blocks stride elements (stride * extent of old bytes) apart.
func TypeVector(count, blocklen, stride int, old *Datatype) (*Datatype, error) {
	return vector("MPI_Type_vector", count, blocklen, stride, true, old)
}

// TypeCreateHvector is MPI_Type_create_hvector: TypeVector with the stride
// in bytes.
func TypeCreateHvector(count, blocklen, strideBytes int, old *Datatype) (*Datatype, error) {
	return vector("MPI_Type_create_hvector", count, blocklen, strideBytes, false, old)
}

func vector(op string, count, blocklen, stride int, inElems bool, old *Datatype) (*Datatype, error) {
	if err := checkType(op, "old type", old); err != nil {
		return nil, err
	}
	if err := checkCount(op, "count", count); err != nil {
		return nil, err
	}
	if err := checkCount(op, "blocklen", blocklen); err != nil {
		return nil, err
	}
	if inElems {
		bytes, ok := MulBytes(stride, old.Extent())
		if !ok {
			return nil, mpierr.Errorf(mpierr.ErrArg, op, "stride %d elements exceeds %d bytes", stride, maxBytes)
		}
		stride = bytes
	}
	blockBytes, ok := MulBytes(blocklen, old.Extent())
	switch {
	case blocklen == 0 || len(old.runs) == 0 && !old.sticky:
		// No data: the result is the empty type whatever count is, and
		// build need not walk count empty blocks.
		count = 0
	case ok && stride == blockBytes:
		// Blocks that abut are one long block, which build places in O(1)
		// when old tiles its extent.
		n, ok := MulBytes(count, blocklen)
		if !ok {
			return nil, mpierr.Errorf(mpierr.ErrCount, op, "count %d times blocklen %d is too large", count, blocklen)
		}
		return build(op, 1, func(int) block { return block{old, 0, n} })
	case len(old.runs) == 0 && count > 2:
		// Only markers: blocks sit at i*stride, so the first and the
		// last block hold the extreme markers.
		if _, ok := MulBytes(count-1, stride); !ok {
			return nil, mpierr.Errorf(mpierr.ErrArg, op, "count %d times stride %d bytes exceeds %d bytes", count, stride, maxBytes)
		}
		ends := [2]int{0, (count - 1) * stride}
		return build(op, 2, func(i int) block { return block{old, ends[i], blocklen} })
	case count > maxRuns:
		// Blocks that do not abut each start a run of their own.
		return nil, mpierr.Errorf(mpierr.ErrCount, op, "count %d: typemap needs more than %d runs", count, maxRuns)
	}
	if _, ok := MulBytes(count, stride); !ok {
		return nil, mpierr.Errorf(mpierr.ErrArg, op, "count %d times stride %d bytes exceeds %d bytes", count, stride, maxBytes)
	}
	return build(op, count, func(i int) block { return block{old, i * stride, blocklen} })
}

// TypeIndexed is MPI_Type_indexed: blocks of blocklens[i] elements of old at
// displs[i] elements (displs[i] * extent of old bytes).
func TypeIndexed(blocklens, displs []int, old *Datatype) (*Datatype, error) {
	return indexed("MPI_Type_indexed", blocklens, displs, true, old)
}

// TypeCreateIndexedBlock is MPI_Type_create_indexed_block: TypeIndexed with
// every block blocklen elements long.
func TypeCreateIndexedBlock(blocklen int, displs []int, old *Datatype) (*Datatype, error) {
	const op = "MPI_Type_create_indexed_block"
	if err := checkType(op, "old type", old); err != nil {
		return nil, err
	}
	if err := checkCount(op, "blocklen", blocklen); err != nil {
		return nil, err
	}
	blocklens := make([]int, len(displs))
	for i := range blocklens {
		blocklens[i] = blocklen
	}
	return indexed(op, blocklens, displs, true, old)
}

// TypeCreateHindexed is MPI_Type_create_hindexed: TypeIndexed with the
// displacements in bytes.
func TypeCreateHindexed(blocklens []int, displsBytes []int, old *Datatype) (*Datatype, error) {
	return indexed("MPI_Type_create_hindexed", blocklens, displsBytes, false, old)
}

func indexed(op string, blocklens, displs []int, inElems bool, old *Datatype) (*Datatype, error) {
	if err := checkType(op, "old type", old); err != nil {
		return nil, err
	}
	types := make([]*Datatype, len(blocklens))
	for i := range types {
		types[i] = old
	}
	return structure(op, blocklens, displs, types, inElems)
}

// TypeCreateStruct is MPI_Type_create_struct: blocks of blocklens[i]
// elements of types[i] at displsBytes[i] bytes.
func TypeCreateStruct(blocklens []int, displsBytes []int, types []*Datatype) (*Datatype, error) {
	return structure("MPI_Type_create_struct", blocklens, displsBytes, types, false)
}

func structure(op string, blocklens, displs []int, types []*Datatype, inElems bool) (*Datatype, error) {
	if len(displs) != len(blocklens) || len(types) != len(blocklens) {
		if len(types) != len(blocklens) {
			return nil, mpierr.Errorf(mpierr.ErrArg, op, "%d types for %d blocklens", len(types), len(blocklens))
		}
		return nil, mpierr.Errorf(mpierr.ErrArg, op, "%d displacements for %d blocklens", len(displs), len(blocklens))
	}
	blocks := make([]block, len(blocklens))
	for i, n := range blocklens {
		if err := checkType(op, fmt.Sprintf("type %d", i), types[i]); err != nil {
			return nil, err
		}
		if err := checkCount(op, fmt.Sprintf("blocklen %d", i), n); err != nil {
			return nil, err
		}
		d := displs[i]
		if inElems {
			var ok bool
			if d, ok = MulBytes(d, types[i].Extent()); !ok {
				return nil, mpierr.Errorf(mpierr.ErrArg, op, "displacement %d of %d elements exceeds %d bytes", i, displs[i], maxBytes)
			}
		} else if d < -maxBytes || d > maxBytes {
			return nil, mpierr.Errorf(mpierr.ErrArg, op, "displacement %d of %d bytes exceeds %d bytes", i, d, maxBytes)
		}
		blocks[i] = block{types[i], d, n}
	}
	return build(op, len(blocks), func(i int) block { return blocks[i] })
}

// PackSize is MPI_Pack_size: the bytes Pack produces for count elements of t.
func PackSize(count int, t *Datatype) (int, error) {
	const op = "MPI_Pack_size"
	if err := checkType(op, "datatype", t); err != nil {
		return 0, err
	}
	if err := checkCount(op, "count", count); err != nil {
		return 0, err
	}
	n, ok := MulBytes(count, t.size)
	if !ok {
		return 0, mpierr.Errorf(mpierr.ErrCount, op, "count %d of %d-byte elements exceeds %d bytes", count, t.size, maxBytes)
	}
	return n, nil
}

// checkTransfer validates a Pack or Unpack call: the typed buffer typed,
// the packed buffer packed and its position. It returns the packed length.
// Everything is checked before any byte moves, so a failed call leaves both
// buffers untouched.
func checkTransfer(op string, typed []byte, count int, t *Datatype, packed []byte, pos *int) (int, error) {
	if err := checkType(op, "datatype", t); err != nil {
		return 0, err
	}
	if !t.committed {
		return 0, mpierr.Errorf(mpierr.ErrType, op, "datatype is not committed")
	}
	if err := checkCount(op, "count", count); err != nil {
		return 0, err
	}
	if pos == nil {
		return 0, mpierr.Errorf(mpierr.ErrArg, op, "position is nil")
	}
	if *pos < 0 || *pos > len(packed) {
		return 0, mpierr.Errorf(mpierr.ErrArg, op, "position %d outside the %d-byte packed buffer", *pos, len(packed))
	}
	n, ok := MulBytes(count, t.size)
	if !ok {
		return 0, mpierr.Errorf(mpierr.ErrCount, op, "count %d of %d-byte elements exceeds %d bytes", count, t.size, maxBytes)
	}
	if n == 0 {
		return 0, nil
	}
	if t.trueLB < 0 {
		return 0, mpierr.Errorf(mpierr.ErrBuffer, op, "datatype reaches %d bytes before the buffer start", -t.trueLB)
	}
	if s := t.Span(count); s > len(typed) {
		return 0, mpierr.Errorf(mpierr.ErrBuffer, op, "%d elements reach byte %d of a %d-byte buffer", count, s, len(typed))
	}
	return n, nil
}

// Pack is MPI_Pack: it gathers count elements of t from in, element i at
// i*extent, into out[*pos:] and advances *pos.
func Pack(in []byte, count int, t *Datatype, out []byte, pos *int) error {
	const op = "MPI_Pack"
	n, err := checkTransfer(op, in, count, t, out, pos)
	if err != nil {
		return err
	}
	if n > len(out)-*pos {
		return mpierr.Errorf(mpierr.ErrBuffer, op, "%d packed bytes do not fit the %d bytes left in the output", n, len(out)-*pos)
	}
	p := *pos
	if t.contig {
		copy(out[p:p+n], in)
	} else {
		ext := t.Extent()
		for i := 0; i < count; i++ {
			base := i * ext
			for _, s := range t.segs {
				p += copy(out[p:p+s.n], in[base+s.off:])
			}
		}
	}
	*pos += n
	return nil
}

// Unpack is MPI_Unpack, the inverse of Pack: it scatters count elements of t
// from in[*pos:] into out and advances *pos. Running past the end of in is
// ErrTruncate: the message is shorter than the receive expects.
func Unpack(in []byte, pos *int, out []byte, count int, t *Datatype) error {
	const op = "MPI_Unpack"
	n, err := checkTransfer(op, out, count, t, in, pos)
	if err != nil {
		return err
	}
	if n > len(in)-*pos {
		return mpierr.Errorf(mpierr.ErrTruncate, op, "%d bytes to unpack but %d left in the input", n, len(in)-*pos)
	}
	p := *pos
	if t.contig {
		copy(out, in[p:p+n])
	} else {
		ext := t.Extent()
		for i := 0; i < count; i++ {
			base := i * ext
			for _, s := range t.segs {
				p += copy(out[base+s.off:base+s.off+s.n], in[p:p+s.n])
			}
		}
	}
	*pos += n
	return nil
}
