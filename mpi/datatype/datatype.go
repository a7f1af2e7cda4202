package datatype

import "nocsim/mpi/mpierr"

// Kind is a basic (predefined, non-derived) type: the unit of a typemap
// entry. One-sided Accumulate applies an operation element by element of
// a kind, so the kind travels in its messages.
type Kind uint8

const (
	kByte Kind = iota
	kInt32
	kInt64
	kUint32
	kFloat32
	kFloat64
	kPacked
)

var kindSize = [...]int{kByte: 1, kInt32: 4, kInt64: 8, kUint32: 4, kFloat32: 4, kFloat64: 8, kPacked: 1}

// run is count consecutive entries of one basic kind starting at byte offset off:
// the typemap {(kind, off), (kind, off+size), ...} kept compact.
type run struct {
	kind  Kind
	off   int
	count int
}

// Size is the kind's size in bytes.
func (k Kind) Size() int { return kindSize[k] }

// String is the MPI name of the predefined type of kind k.
func (k Kind) String() string {
	return []string{"MPI_BYTE", "MPI_INT32", "MPI_INT64", "MPI_UINT32", "MPI_FLOAT32", "MPI_FLOAT64", "MPI_PACKED"}[k]
}

func (r run) bytes() int { return r.count * kindSize[r.kind] }

// segment is a byte range copied as one piece by Pack and Unpack.
type segment struct{ off, n int }

// Limits that keep typemaps representable: every size, bound, count and
// displacement is checked against maxBytes so offset arithmetic cannot
// overflow, and maxRuns bounds the memory of a flattened typemap at 24 MiB
// (a vector of a million strided doubles still fits).
const (
	maxBytes = 1 << 48
	maxRuns  = 1 << 20
)

// Datatype is an MPI datatype: a typemap of basic entries at byte offsets.
//
// Bounds follow MPI-3.1 section 4.1.6. Each basic entry must sit at a
// multiple of its alignment (its size; 1 for Byte and Packed), and a type's
// alignment is the largest of its entries'. Unless lb and ub were set with
// TypeCreateResized, lb is the lowest byte the typemap touches and ub one
// past the highest, rounded up so that the extent ub - lb is a multiple of
// the alignment: {(double,0),(char,8)} has extent 16, as in thesis section
// 3.3, so the doubles of consecutive elements stay aligned. TypeCreateResized
// sets lb and ub explicitly (MPI's lb and ub markers); constructors carry
// such bounds into the types built from it, and then a type's lb is the
// lowest marker and its ub the highest, with no padding. The true bounds
// ignore markers and padding: they are the bytes the data occupies. An empty
// typemap has all bounds 0.
type Datatype struct {
	name           string
	size           int
	lb, ub         int       // MPI bounds: the markers if sticky, else the true bounds padded to align
	trueLB, trueUB int       // the bytes the data occupies (0, 0 without data)
	align          int       // largest alignment of any entry; 1 without data
	sticky         bool      // lb and ub come from TypeCreateResized markers
	runs           []run     // the typemap, in typemap order
	segs           []segment // runs merged across kinds; built by Commit
	contig         bool
	committed      bool
	freed          bool
	predef         bool
}

func predefined(name string, k Kind) *Datatype {
	n := kindSize[k]
	t := &Datatype{name: name, size: n, ub: n, trueUB: n, align: n, runs: []run{{kind: k, count: 1}}, predef: true}
	t.finish()
	t.commit()
	return t
}

// The predefined datatypes; all are committed and cannot be freed. Packed is
// MPI_PACKED: bytes produced by Pack.
var (
	Byte    = predefined("MPI_BYTE", kByte)
	Int32   = predefined("MPI_INT32", kInt32)
	Int64   = predefined("MPI_INT64", kInt64)
	Uint32  = predefined("MPI_UINT32", kUint32)
	Float32 = predefined("MPI_FLOAT32", kFloat32)
	Float64 = predefined("MPI_FLOAT64", kFloat64)
	Packed  = predefined("MPI_PACKED", kPacked)
)

// Name is the MPI name of a predefined type, or "derived".
func (t *Datatype) Name() string {
	if t == nil {
		return "<nil>"
	}
	return t.name
}

// Size is the number of data bytes in one element.
func (t *Datatype) Size() int {
	if t == nil {
		return 0
	}
	return t.size
}

// Extent is ub - lb: the stride between consecutive elements of a buffer.
func (t *Datatype) Extent() int {
	if t == nil {
		return 0
	}
	return t.ub - t.lb
}

// LB is the lower bound: the lowest byte offset the typemap touches, or the
// lower bound TypeCreateResized set (it may be negative).
func (t *Datatype) LB() int {
	if t == nil {
		return 0
	}
	return t.lb
}

// UB is the upper bound: one past the highest byte the typemap touches,
// rounded up to the alignment, or lb + extent as TypeCreateResized set.
func (t *Datatype) UB() int {
	if t == nil {
		return 0
	}
	return t.ub
}

// Committed reports whether the type may be used for communication.
func (t *Datatype) Committed() bool { return t != nil && t.committed && !t.freed }

// Contiguous reports whether an element's typemap, in order, covers exactly
// bytes [0, Size()) with no gap or overlap and extent == size, so that count
// elements are count*Size() consecutive bytes that need no packing. Basic
// kinds do not matter: nocsim moves bytes without representation conversion.
// The empty type is contiguous.
func (t *Datatype) Contiguous() bool { return t != nil && t.contig }

// Span is how many bytes from the buffer start a (count, t) message reaches:
// (count-1)*extent + true ub, or 0 for count <= 0. Callers check buffer
// lengths with it; the padding after the last element's data need not be
// there. A type whose data starts before offset 0 (TrueLB < 0) also reaches
// before the start, which no byte slice can hold; Pack and Unpack report
// that as ErrBuffer. A span too large for an int is reported as the largest
// int, so it fails any check.
func (t *Datatype) Span(count int) int {
	if t == nil || count <= 0 {
		return 0
	}
	s, ok := MulBytes(count-1, t.Extent())
	if ok {
		s, ok = AddBytes(s, t.trueUB)
	}
	if !ok {
		return int(^uint(0) >> 1)
	}
	return s
}

// Commit is MPI_Type_commit: it readies the type for Pack and Unpack.
// Committing twice is harmless.
func (t *Datatype) Commit() error {
	if err := checkType("MPI_Type_commit", "datatype", t); err != nil {
		return err
	}
	t.commit()
	return nil
}

func (t *Datatype) commit() {
	if t.committed {
		return
	}
	// Adjacent runs of different kinds merge here, so a struct of packed
	// fields copies as one piece.
	var segs []segment
	for _, r := range t.runs {
		n := r.bytes()
		if k := len(segs) - 1; k >= 0 && segs[k].off+segs[k].n == r.off {
			segs[k].n += n
			continue
		}
		segs = append(segs, segment{r.off, n})
	}
	t.segs = segs
	t.committed = true
}

// Free is MPI_Type_free. Types built from t earlier stay valid, as MPI
// requires, because each derived type holds its own flattened typemap.
func (t *Datatype) Free() error {
	if err := checkType("MPI_Type_free", "datatype", t); err != nil {
		return err
	}
	if t.predef {
		return mpierr.Errorf(mpierr.ErrType, "MPI_Type_free", "cannot free predefined datatype %s", t.name)
	}
	t.freed = true
	t.runs, t.segs = nil, nil
	return nil
}

func checkType(op, what string, t *Datatype) error {
	switch {
	case t == nil:
		return mpierr.Errorf(mpierr.ErrType, op, "%s is nil", what)
	case t.freed:
		return mpierr.Errorf(mpierr.ErrType, op, "%s has been freed", what)
	}
	return nil
}

// MulBytes and AddBytes are the byte arithmetic of typemaps, confined to
// ±2^48 so no offset can overflow; ok is false when an operand or the
// result leaves that range. Callers that place elements in a buffer by
// displacement use them to keep the same bounds.
func MulBytes(a, b int) (int, bool) {
	if a < -maxBytes || a > maxBytes || b < -maxBytes || b > maxBytes {
		return 0, false
	}
	if a != 0 && abs(b) > maxBytes/abs(a) {
		return 0, false
	}
	return a * b, true
}

func AddBytes(a, b int) (int, bool) {
	if a < -maxBytes || a > maxBytes || b < -maxBytes || b > maxBytes {
		return 0, false
	}
	s := a + b // cannot overflow: both operands are within ±2^48
	return s, s >= -maxBytes && s <= maxBytes
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// block is blocklen consecutive copies of old starting disp bytes from the
// new type's origin: every constructor is a list of blocks.
type block struct {
	old      *Datatype
	disp     int
	blocklen int
}

// build makes the derived type whose typemap is the typemaps of blocks
// blockAt(0), ..., blockAt(n-1) in order. Bounds and size are computed with
// checked arithmetic before any run is placed, so no offset below can
// overflow.
//
// Bounds follow MPI-3.1 section 4.1.6 on the flattened typemap: copies of
// old sit extent(old) apart, so a block's data reaches from its first copy's
// true lb to its last copy's true ub (extents are never negative), and the
// same holds for the lb and ub markers a resized old type carries. If any
// block carries markers they alone set lb and ub; otherwise lb and ub are
// the data's bounds with ub padded to the alignment.
func build(op string, n int, blockAt func(int) block) (*Datatype, error) {
	t := &Datatype{name: "derived", align: 1}
	data := false
	// A tiling block becomes one run; a copy of any other type adds all its
	// runs but the first, which may merge with the run before. gappy counts
	// the runs of the latter, at least half of which are new.
	tiling, gappy := 0, 0
	for i := range n {
		b := blockAt(i)
		bytes, ok := MulBytes(b.blocklen, b.old.size)
		if ok {
			t.size, ok = AddBytes(t.size, bytes)
		}
		if !ok {
			return nil, mpierr.Errorf(mpierr.ErrCount, op, "datatype size exceeds %d bytes", maxBytes)
		}
		if b.blocklen == 0 {
			continue
		}
		last, ok := MulBytes(b.blocklen-1, b.old.Extent())
		if !ok {
			return nil, mpierr.Errorf(mpierr.ErrArg, op, "datatype reaches beyond ±%d bytes", maxBytes)
		}
		if b.old.sticky {
			lo, hi, ok := reach(b.disp, last, b.old.lb, b.old.ub)
			if !ok {
				return nil, mpierr.Errorf(mpierr.ErrArg, op, "datatype reaches beyond ±%d bytes", maxBytes)
			}
			if !t.sticky || lo < t.lb {
				t.lb = lo
			}
			if !t.sticky || hi > t.ub {
				t.ub = hi
			}
			t.sticky = true
		}
		if len(b.old.runs) == 0 {
			continue
		}
		if b.old.tiles() {
			tiling++
		} else if r, ok := MulBytes(b.blocklen, len(b.old.runs)); !ok || r > 2*maxRuns-gappy {
			return nil, mpierr.Errorf(mpierr.ErrCount, op, "typemap needs more than %d runs", maxRuns)
		} else {
			gappy += r
		}
		lo, hi, ok := reach(b.disp, last, b.old.trueLB, b.old.trueUB)
		if !ok {
			return nil, mpierr.Errorf(mpierr.ErrArg, op, "datatype reaches beyond ±%d bytes", maxBytes)
		}
		if !data || lo < t.trueLB {
			t.trueLB = lo
		}
		if !data || hi > t.trueUB {
			t.trueUB = hi
		}
		t.align = max(t.align, b.old.align)
		data = true
	}
	if !t.sticky {
		// MPI's epsilon: the least increment that makes the extent a
		// multiple of the alignment.
		t.lb, t.ub = t.trueLB, t.trueUB
		if r := (t.ub - t.lb) % t.align; r != 0 {
			var ok bool
			if t.ub, ok = AddBytes(t.ub, t.align-r); !ok {
				return nil, mpierr.Errorf(mpierr.ErrArg, op, "datatype reaches beyond ±%d bytes", maxBytes)
			}
		}
	}
	t.runs = make([]run, 0, min(tiling+gappy, maxRuns))
	for i := range n {
		if !t.appendCopies(blockAt(i)) {
			return nil, mpierr.Errorf(mpierr.ErrCount, op, "typemap needs more than %d runs", maxRuns)
		}
	}
	t.finish()
	return t, nil
}

// reach is the range [disp+lo, disp+last+hi) that copies of a type with
// bounds lo, hi cover when the last copy starts last bytes after the first.
func reach(disp, last, lo, hi int) (int, int, bool) {
	l, ok1 := AddBytes(disp, lo)
	h, ok2 := AddBytes(disp, hi)
	if ok2 {
		h, ok2 = AddBytes(h, last)
	}
	return l, h, ok1 && ok2
}

// appendCopies appends b's copies of b.old to t's typemap; it reports false
// when the typemap grows beyond maxRuns.
func (t *Datatype) appendCopies(b block) bool {
	old := b.old
	if b.blocklen == 0 || len(old.runs) == 0 {
		return true
	}
	// Copies of a tiling type form one run. This keeps contiguous(10^9,
	// Byte) one run instead of 10^9 loop trips.
	if old.tiles() {
		r := old.runs[0]
		return t.appendRun(run{r.kind, b.disp + r.off, b.blocklen * r.count})
	}
	ext := old.Extent()
	// Otherwise each copy adds at least one run, so maxRuns bounds the loop.
	for i := 0; i < b.blocklen; i++ {
		base := b.disp + i*ext
		for _, r := range old.runs {
			if !t.appendRun(run{r.kind, base + r.off, r.count}) {
				return false
			}
		}
	}
	return true
}

// tiles reports whether t is a single run filling its extent, so that
// consecutive copies of t merge into one run.
func (t *Datatype) tiles() bool {
	return len(t.runs) == 1 && t.runs[0].bytes() == t.Extent()
}

func (t *Datatype) appendRun(r run) bool {
	if k := len(t.runs) - 1; k >= 0 {
		if p := &t.runs[k]; p.kind == r.kind && p.off+p.bytes() == r.off {
			p.count += r.count
			return true
		}
	}
	if len(t.runs) >= maxRuns {
		return false
	}
	t.runs = append(t.runs, r)
	return true
}

// finish derives the contiguity flag from the typemap.
func (t *Datatype) finish() {
	next := 0
	for _, r := range t.runs {
		if r.off != next {
			return
		}
		next += r.bytes()
	}
	t.contig = next == t.size && t.lb == 0 && t.ub == t.size
}

func checkCount(op, what string, n int) error {
	if n < 0 {
		return mpierr.Errorf(mpierr.ErrCount, op, "%s %d must be >= 0", what, n)
	}
	return nil
}
