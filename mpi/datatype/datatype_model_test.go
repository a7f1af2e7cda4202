package datatype

import (
	"bytes"
	"testing"

	"nocsim/mpi/mpierr"
)

// This file is the tests' own model of MPI datatypes: a spec builds a type
// with the constructors under test and, independently, flattens it into the
// typemap MPI-3.1 section 4.1 defines (every basic entry and every lb/ub
// marker at its displacement), from which bounds follow by the standard's
// formulas rather than by the library's incremental arithmetic.

// spec describes a datatype the way the constructors take it, so the tests
// can both build it and flatten it on their own.
type spec struct {
	op        string // basic, contig, vector, hvector, indexed, iblock, hindexed, struct, resized, dup
	basic     *Datatype
	count     int   // contig, vector, hvector
	blocklen  int   // vector, hvector, iblock
	stride    int   // vector (elements), hvector (bytes)
	blocklens []int // indexed, hindexed, struct
	displs    []int // indexed, iblock (elements); hindexed, struct (bytes)
	lb, ext   int   // resized
	kids      []*spec
}

func basic(t *Datatype) *spec { return &spec{op: "basic", basic: t} }
func contig(n int, old *spec) *spec {
	return &spec{op: "contig", count: n, kids: []*spec{old}}
}
func vec(n, bl, stride int, old *spec) *spec {
	return &spec{op: "vector", count: n, blocklen: bl, stride: stride, kids: []*spec{old}}
}
func hvec(n, bl, stride int, old *spec) *spec {
	return &spec{op: "hvector", count: n, blocklen: bl, stride: stride, kids: []*spec{old}}
}
func idx(bls, ds []int, old *spec) *spec {
	return &spec{op: "indexed", blocklens: bls, displs: ds, kids: []*spec{old}}
}
func iblock(bl int, ds []int, old *spec) *spec {
	return &spec{op: "iblock", blocklen: bl, displs: ds, kids: []*spec{old}}
}
func hidx(bls, ds []int, old *spec) *spec {
	return &spec{op: "hindexed", blocklens: bls, displs: ds, kids: []*spec{old}}
}
func strct(bls, ds []int, types ...*spec) *spec {
	return &spec{op: "struct", blocklens: bls, displs: ds, kids: types}
}
func resized(lb, ext int, old *spec) *spec {
	return &spec{op: "resized", lb: lb, ext: ext, kids: []*spec{old}}
}
func dup(old *spec) *spec { return &spec{op: "dup", kids: []*spec{old}} }

// make builds s with the constructors under test.
func (s *spec) make() (*Datatype, error) {
	if s.op == "basic" {
		return s.basic, nil
	}
	kids := make([]*Datatype, len(s.kids))
	for i, k := range s.kids {
		t, err := k.make()
		if err != nil {
			return nil, err
		}
		kids[i] = t
	}
	switch s.op {
	case "contig":
		return TypeContiguous(s.count, kids[0])
	case "vector":
		return TypeVector(s.count, s.blocklen, s.stride, kids[0])
	case "hvector":
		return TypeCreateHvector(s.count, s.blocklen, s.stride, kids[0])
	case "indexed":
		return TypeIndexed(s.blocklens, s.displs, kids[0])
	case "iblock":
		return TypeCreateIndexedBlock(s.blocklen, s.displs, kids[0])
	case "hindexed":
		return TypeCreateHindexed(s.blocklens, s.displs, kids[0])
	case "struct":
		return TypeCreateStruct(s.blocklens, s.displs, kids)
	case "resized":
		return TypeCreateResized(kids[0], s.lb, s.ext)
	case "dup":
		return TypeDup(kids[0])
	}
	panic("unknown op " + s.op)
}

// entry is one basic element of a typemap: size bytes at off. Every basic
// type's alignment is its size.
type entry struct{ off, size int }

// tmap is a typemap as MPI-3.1 section 4.1.6 defines it: the basic entries
// in order and the positions of the lb and ub markers (MPI's pseudo-types
// that MPI_Type_create_resized places).
type tmap struct {
	es       []entry
	lbs, ubs []int
}

// flatten is the naive typemap of s, straight from the MPI definitions:
// every block is copies of the old type's typemap, markers included, shifted
// by displacement plus j extents.
func (s *spec) flatten() tmap {
	switch s.op {
	case "basic":
		return tmap{es: []entry{{0, s.basic.Size()}}}
	case "dup":
		return s.kids[0].flatten()
	case "resized":
		// The old markers are erased and a new pair placed.
		return tmap{es: s.kids[0].flatten().es, lbs: []int{s.lb}, ubs: []int{s.lb + s.ext}}
	}
	var out tmap
	place := func(old *spec, disp, n int) {
		sub := old.flatten()
		ext := sub.extent()
		for j := range n {
			at := disp + j*ext
			for _, e := range sub.es {
				out.es = append(out.es, entry{at + e.off, e.size})
			}
			for _, m := range sub.lbs {
				out.lbs = append(out.lbs, at+m)
			}
			for _, m := range sub.ubs {
				out.ubs = append(out.ubs, at+m)
			}
		}
	}
	if s.op == "struct" {
		for i, d := range s.displs {
			place(s.kids[i], d, s.blocklens[i])
		}
		return out
	}
	old := s.kids[0]
	ext := old.flatten().extent()
	switch s.op {
	case "contig":
		place(old, 0, s.count)
	case "vector":
		for i := range s.count {
			place(old, i*s.stride*ext, s.blocklen)
		}
	case "hvector":
		for i := range s.count {
			place(old, i*s.stride, s.blocklen)
		}
	case "indexed":
		for i, d := range s.displs {
			place(old, d*ext, s.blocklens[i])
		}
	case "iblock":
		for _, d := range s.displs {
			place(old, d*ext, s.blocklen)
		}
	case "hindexed":
		for i, d := range s.displs {
			place(old, d, s.blocklens[i])
		}
	}
	return out
}

// trueBounds are the lowest and one past the highest byte of the entries;
// 0, 0 without entries.
func (m tmap) trueBounds() (lb, ub int) {
	for i, e := range m.es {
		if i == 0 || e.off < lb {
			lb = e.off
		}
		if i == 0 || e.off+e.size > ub {
			ub = e.off + e.size
		}
	}
	return lb, ub
}

// bounds are MPI's lb and ub: lb = min of the lb markers if there are any,
// else of the entries' displacements; ub = max of the ub markers if there
// are any, else max(disp + size) + epsilon, the least increment that makes
// ub - lb a multiple of the largest alignment.
func (m tmap) bounds() (lb, ub int) {
	if len(m.lbs) > 0 {
		lb, ub = m.lbs[0], m.ubs[0]
		for _, x := range m.lbs {
			lb = min(lb, x)
		}
		for _, x := range m.ubs {
			ub = max(ub, x)
		}
		return lb, ub
	}
	lb, ub = m.trueBounds()
	k := 1
	for _, e := range m.es {
		k = max(k, e.size)
	}
	for (ub-lb)%k != 0 {
		ub++
	}
	return lb, ub
}

func (m tmap) extent() int {
	lb, ub := m.bounds()
	return ub - lb
}

func (m tmap) size() int {
	n := 0
	for _, e := range m.es {
		n += e.size
	}
	return n
}

// pattern is a buffer of non-zero bytes, distinct within any 251 bytes, so
// copied bytes are told apart from untouched zeros and from each other.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i%251 + 1)
	}
	return b
}

// checkRoundTrip packs count elements of t from a patterned buffer and
// unpacks them into a zeroed one. The packed bytes must be the model
// typemap's bytes in typemap order, element i at i extents, and the unpacked
// buffer must hold exactly those bytes with every other byte still zero.
// The buffers are exactly as long as the data reaches (the last element's
// padding need not be there).
func checkRoundTrip(t *testing.T, dt *Datatype, model tmap, count int) {
	t.Helper()
	lb, ub := model.trueBounds()
	ext := model.extent()
	if lb < 0 {
		t.Fatalf("checkRoundTrip needs the data at offsets >= 0, got %d", lb)
	}
	span := 0
	if count > 0 {
		span = (count-1)*ext + ub
	}
	if got := dt.Span(count); got != span {
		t.Fatalf("Span(%d) = %d, the model's data reach %d", count, got, span)
	}
	in := pattern(span)
	var wantPacked []byte
	wantOut := make([]byte, span)
	for i := range count {
		for _, e := range model.es {
			at := i*ext + e.off
			wantPacked = append(wantPacked, in[at:at+e.size]...)
			copy(wantOut[at:at+e.size], in[at:at+e.size])
		}
	}
	n, err := PackSize(count, dt)
	if err != nil || n != len(wantPacked) {
		t.Fatalf("PackSize(%d) = %d, %v; want %d", count, n, err, len(wantPacked))
	}
	const off = 3 // pack after a prefix, as a message header would be
	packed := make([]byte, off+n)
	pos := off
	if err := Pack(in, count, dt, packed, &pos); err != nil {
		t.Fatalf("Pack: %v", err)
	}
	if pos != off+n {
		t.Fatalf("Pack advanced pos to %d, want %d", pos, off+n)
	}
	if !bytes.Equal(packed[off:], wantPacked) || !bytes.Equal(packed[:off], make([]byte, off)) {
		t.Fatalf("packed\n%v\nwant\n%v", packed[off:], wantPacked)
	}
	out := make([]byte, span)
	pos = off
	if err := Unpack(packed, &pos, out, count, dt); err != nil {
		t.Fatalf("Unpack: %v", err)
	}
	if pos != off+n {
		t.Fatalf("Unpack advanced pos to %d, want %d", pos, off+n)
	}
	if !bytes.Equal(out, wantOut) {
		t.Fatalf("unpacked\n%v\nwant\n%v", out, wantOut)
	}
}

// shiftable wraps a type whose data starts at trueLB < 0 in a struct that
// moves the data to 0, so it can be packed from a byte slice.
func shiftable(s *spec, trueLB int) *spec {
	if trueLB >= 0 {
		return s
	}
	return strct([]int{1}, []int{-trueLB}, s)
}

// checkModel compares dt's size and bounds with the model's.
func checkModel(t *testing.T, dt *Datatype, m tmap) {
	t.Helper()
	lb, ub := m.bounds()
	tlb, tub := m.trueBounds()
	if dt.Size() != m.size() || dt.LB() != lb || dt.UB() != ub || dt.Extent() != ub-lb ||
		dt.TrueLB() != tlb || dt.TrueExtent() != tub-tlb {
		t.Fatalf("size %d lb %d ub %d extent %d true lb %d true extent %d; model %d %d %d %d %d %d",
			dt.Size(), dt.LB(), dt.UB(), dt.Extent(), dt.TrueLB(), dt.TrueExtent(),
			m.size(), lb, ub, ub-lb, tlb, tub-tlb)
	}
}

// fuzzSpec decodes a small nested datatype from fuzz bytes. A byte in 16
// makes a count or blocklen -1, so invalid arguments are fuzzed too.
type fuzzSpec struct{ b []byte }

func (f *fuzzSpec) next() int {
	if len(f.b) == 0 {
		return 0
	}
	v := f.b[0]
	f.b = f.b[1:]
	return int(v)
}

func (f *fuzzSpec) in(lo, hi int) int { return lo + f.next()%(hi-lo+1) }

func (f *fuzzSpec) count() int {
	if v := f.next(); v%16 != 15 {
		return v % 4
	}
	return -1
}

func (f *fuzzSpec) ints(n, lo, hi int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = f.in(lo, hi)
	}
	return out
}

func (f *fuzzSpec) counts(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = f.count()
	}
	return out
}

var basics = []*Datatype{Byte, Int32, Int64, Uint32, Float32, Float64, Packed}

func (f *fuzzSpec) spec(depth int) *spec {
	op := f.next() % 10
	if depth == 0 || op == 0 {
		return basic(basics[f.next()%len(basics)])
	}
	switch op {
	case 1:
		return contig(f.count(), f.spec(depth-1))
	case 2:
		return vec(f.count(), f.count(), f.in(-3, 3), f.spec(depth-1))
	case 3:
		return hvec(f.count(), f.count(), f.in(-16, 32), f.spec(depth-1))
	case 4:
		n := f.in(0, 3)
		return idx(f.counts(n), f.ints(n, -3, 4), f.spec(depth-1))
	case 5:
		return iblock(f.count(), f.ints(f.in(0, 3), -3, 4), f.spec(depth-1))
	case 6:
		n := f.in(0, 3)
		return hidx(f.counts(n), f.ints(n, -16, 32), f.spec(depth-1))
	case 7:
		// A negative extent is refused with ErrArg; see valid.
		return resized(f.in(-16, 16), f.in(-2, 40), f.spec(depth-1))
	case 8:
		return dup(f.spec(depth - 1))
	default:
		n := f.in(0, 3)
		kids := make([]*spec, n)
		bls, ds := f.counts(n), f.ints(n, -16, 32)
		for i := range kids {
			kids[i] = f.spec(depth - 1)
		}
		return strct(bls, ds, kids...)
	}
}

// valid reports whether every count and blocklen in s is non-negative
// (else the class of the error is ErrCount) and every resized extent is
// non-negative (else ErrArg). Counts are checked first, innermost first, as
// the constructors run.
func (s *spec) valid() (bool, mpierr.Class) {
	for _, k := range s.kids {
		if ok, c := k.valid(); !ok {
			return false, c
		}
	}
	ok := s.count >= 0 && s.blocklen >= 0
	for _, n := range s.blocklens {
		ok = ok && n >= 0
	}
	if !ok {
		return false, mpierr.ErrCount
	}
	if s.op == "resized" && s.ext < 0 {
		return false, mpierr.ErrArg
	}
	return true, 0
}
