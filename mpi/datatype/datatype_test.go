package datatype

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"nocsim/mpi/mpierr"
)

func TestConstructors(t *testing.T) {
	i32, f64 := basic(Int32), basic(Float64)
	dblChar := strct([]int{1, 1}, []int{0, 8}, f64, basic(Byte))
	tests := []struct {
		name         string
		s            *spec
		offs         []int // hand-derived typemap offsets, nil to skip
		size, lb, ub int
	}{
		{"predefined int64", basic(Int64), []int{0}, 8, 0, 8},
		{"contiguous 3 int32", contig(3, i32), []int{0, 4, 8}, 12, 0, 12},
		{"contiguous 0", contig(0, i32), []int{}, 0, 0, 0},
		{"vector 2x2 stride 3 (thesis)", vec(2, 2, 3, i32), []int{0, 4, 12, 16}, 16, 0, 20},
		{"vector negative stride", vec(3, 1, -2, i32), []int{0, -8, -16}, 12, -16, 4},
		{"vector stride 0 overlaps", vec(2, 1, 0, i32), []int{0, 0}, 8, 0, 4},
		{"vector count 0", vec(0, 2, 3, i32), []int{}, 0, 0, 0},
		{"vector blocklen 0", vec(3, 0, 3, i32), []int{}, 0, 0, 0},
		{"hvector bytes", hvec(2, 2, 20, i32), []int{0, 4, 20, 24}, 16, 0, 28},
		{"indexed", idx([]int{2, 1}, []int{3, 0}, i32), []int{12, 16, 0}, 12, 0, 20},
		{"indexed zero block", idx([]int{0, 1}, []int{9, 1}, i32), []int{4}, 4, 4, 8},
		{"indexed block", iblock(2, []int{1, 5}, basic(Int64)), []int{8, 16, 40, 48}, 32, 8, 56},
		{"hindexed negative, padded to int32", hidx([]int{1, 2}, []int{-4, 10}, i32), []int{-4, 10, 14}, 12, -4, 20},
		{"struct double char, padded (thesis 3.3)", dblChar, []int{0, 8}, 9, 0, 16},
		{"struct empty", strct(nil, nil), []int{}, 0, 0, 0},
		{"vector of struct", vec(2, 1, 2, dblChar), []int{0, 8, 32, 40}, 18, 0, 48},
		{"indexed of vector", idx([]int{1, 1}, []int{0, 2}, vec(2, 1, 3, i32)), []int{0, 12, 32, 44}, 16, 0, 48},
		{"contiguous of hvector", contig(2, hvec(2, 1, -8, i32)), []int{0, -8, 12, 4}, 16, -8, 16},
		{"struct of mixed", strct([]int{2, 1}, []int{4, 0}, basic(Float32), basic(Uint32)), []int{4, 8, 0}, 12, 0, 12},
		{"vector of empty", vec(4, 2, 1, contig(0, f64)), []int{}, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dt, err := tc.s.make()
			if err != nil {
				t.Fatal(err)
			}
			model := tc.s.flatten()
			if tc.offs != nil {
				// The model itself must agree with the hand derivation.
				got := make([]int, len(model.es))
				for i, e := range model.es {
					got[i] = e.off
				}
				if fmt.Sprint(got) != fmt.Sprint(tc.offs) {
					t.Fatalf("model typemap offsets %v, hand-derived %v", got, tc.offs)
				}
			}
			if lb, ub := model.bounds(); lb != tc.lb || ub != tc.ub {
				t.Fatalf("model bounds %d, %d; hand-derived %d, %d", lb, ub, tc.lb, tc.ub)
			}
			checkModel(t, dt, model)
			if dt.Size() != tc.size || dt.LB() != tc.lb || dt.UB() != tc.ub || dt.Extent() != tc.ub-tc.lb {
				t.Fatalf("size %d lb %d ub %d extent %d; want %d %d %d %d",
					dt.Size(), dt.LB(), dt.UB(), dt.Extent(), tc.size, tc.lb, tc.ub, tc.ub-tc.lb)
			}
			if dt.Committed() != (tc.s.op == "basic") {
				t.Fatalf("Committed() = %v before Commit", dt.Committed())
			}
			if err := dt.Commit(); err != nil {
				t.Fatal(err)
			}
			if tc.lb < 0 {
				// Data before offset 0 reaches before any byte slice
				// (no type here is resized, so lb is the data's).
				var pos int
				err := Pack(pattern(100), 1, dt, make([]byte, 100), &pos)
				if class(err) != mpierr.ErrBuffer {
					t.Fatalf("Pack of negative-lb type: %v, want %v", err, mpierr.ErrBuffer)
				}
			}
			s := shiftable(tc.s, tc.lb)
			sdt, err := s.make()
			if err != nil {
				t.Fatal(err)
			}
			if err := sdt.Commit(); err != nil {
				t.Fatal(err)
			}
			for _, count := range []int{0, 1, 3} {
				checkRoundTrip(t, sdt, s.flatten(), count)
			}
		})
	}
}

func TestPredefined(t *testing.T) {
	tests := []struct {
		t    *Datatype
		name string
		size int
	}{
		{Byte, "MPI_BYTE", 1},
		{Int32, "MPI_INT32", 4},
		{Int64, "MPI_INT64", 8},
		{Uint32, "MPI_UINT32", 4},
		{Float32, "MPI_FLOAT32", 4},
		{Float64, "MPI_FLOAT64", 8},
		{Packed, "MPI_PACKED", 1},
	}
	for _, tc := range tests {
		if tc.t.Name() != tc.name || tc.t.Size() != tc.size || tc.t.Extent() != tc.size || tc.t.LB() != 0 ||
			!tc.t.Committed() || !tc.t.Contiguous() {
			t.Errorf("%s: name %q size %d extent %d lb %d committed %v contiguous %v", tc.name,
				tc.t.Name(), tc.t.Size(), tc.t.Extent(), tc.t.LB(), tc.t.Committed(), tc.t.Contiguous())
		}
		if err := tc.t.Free(); class(err) != mpierr.ErrType {
			t.Errorf("Free(%s) = %v, want %v", tc.name, err, mpierr.ErrType)
		}
		if !tc.t.Committed() {
			t.Errorf("%s unusable after a refused Free", tc.name)
		}
	}
	if d, _ := TypeContiguous(1, Int32); d.Name() != "derived" {
		t.Errorf("derived Name() = %q", d.Name())
	}
}

func TestContiguous(t *testing.T) {
	i32 := basic(Int32)
	tests := []struct {
		name string
		s    *spec
		want bool
	}{
		{"contiguous", contig(5, i32), true},
		{"vector with abutting blocks", vec(3, 2, 2, i32), true},
		{"struct double int32 abutting", strct([]int{1, 1}, []int{0, 8}, basic(Float64), basic(Int32)), false},
		{"struct int32 int32 abutting", strct([]int{1, 1}, []int{0, 4}, basic(Int32), basic(Uint32)), true},
		{"struct double char, padded", strct([]int{1, 1}, []int{0, 8}, basic(Float64), basic(Byte)), false},
		{"resized to its size", resized(0, 12, contig(3, i32)), true},
		{"resized wider", resized(0, 16, contig(3, i32)), false},
		{"dup of contiguous", dup(contig(2, i32)), true},
		{"resized with lb below the data", resized(-4, 12, contig(3, i32)), false},
		{"empty", contig(0, i32), true},
		{"vector with gaps", vec(2, 1, 2, i32), false},
		{"indexed out of order", idx([]int{1, 1}, []int{1, 0}, i32), false},
		{"offset from 0", hidx([]int{1}, []int{4}, i32), false},
		{"overlapping", vec(2, 1, 0, i32), false},
	}
	for _, tc := range tests {
		dt, err := tc.s.make()
		if err != nil {
			t.Fatal(err)
		}
		// Independently: contiguous iff the model's entries, in order,
		// tile [0, size) and the bounds are [0, size).
		model, next := tc.s.flatten(), 0
		tiles := true
		for _, e := range model.es {
			tiles = tiles && e.off == next
			next += e.size
		}
		if lb, ub := model.bounds(); lb != 0 || ub != next {
			tiles = false
		}
		if tiles != tc.want {
			t.Fatalf("%s: the model says contiguous=%v, the table %v", tc.name, tiles, tc.want)
		}
		if got := dt.Contiguous(); got != tc.want {
			t.Errorf("%s: Contiguous() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSpan(t *testing.T) {
	for _, s := range []*spec{
		vec(2, 2, 3, basic(Int32)),
		hidx([]int{1, 2}, []int{6, 1}, basic(Int64)),
		strct([]int{1, 1}, []int{0, 8}, basic(Float64), basic(Byte)),
		contig(0, basic(Int32)),
	} {
		dt, err := s.make()
		if err != nil {
			t.Fatal(err)
		}
		if err := dt.Commit(); err != nil {
			t.Fatal(err)
		}
		model := s.flatten()
		ext := model.extent()
		for count := range 4 {
			// The span is one past the highest byte any element touches.
			want := 0
			for i := range count {
				for _, e := range model.es {
					want = max(want, i*ext+e.off+e.size)
				}
			}
			if got := dt.Span(count); got != want {
				t.Errorf("Span(%d) = %d, want %d", count, got, want)
			}
			if dt.Size() == 0 || count == 0 {
				continue
			}
			var pos int
			out := make([]byte, count*dt.Size())
			if err := Pack(make([]byte, want), count, dt, out, &pos); err != nil {
				t.Errorf("Pack with a %d-byte buffer: %v", want, err)
			}
			pos = 0
			if err := Pack(make([]byte, want-1), count, dt, out, &pos); class(err) != mpierr.ErrBuffer {
				t.Errorf("Pack with a %d-byte buffer: %v, want %v", want-1, err, mpierr.ErrBuffer)
			}
		}
	}
	if got := Byte.Span(-1); got != 0 {
		t.Errorf("Span(-1) = %d", got)
	}
}

// TestPackedInterop checks that Pack output is plain bytes: it unpacks as
// Byte, and bytes packed as Packed unpack as the original type.
func TestPackedInterop(t *testing.T) {
	s := vec(3, 2, 3, basic(Float64))
	dt, _ := s.make()
	if err := dt.Commit(); err != nil {
		t.Fatal(err)
	}
	const count = 4
	in := pattern(dt.Span(count))
	n, _ := PackSize(count, dt)
	packed := make([]byte, n)
	var pos int
	if err := Pack(in, count, dt, packed, &pos); err != nil {
		t.Fatal(err)
	}
	asBytes := make([]byte, n)
	pos = 0
	if err := Unpack(packed, &pos, asBytes, n, Byte); err != nil || !bytes.Equal(asBytes, packed) {
		t.Fatalf("Unpack as Byte: %v, equal %v", err, bytes.Equal(asBytes, packed))
	}
	// Send side packs with Packed, receive side unpacks with the type.
	wire := make([]byte, n)
	pos = 0
	if err := Pack(asBytes, n, Packed, wire, &pos); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, len(in))
	pos = 0
	if err := Unpack(wire, &pos, out, count, dt); err != nil {
		t.Fatal(err)
	}
	for _, e := range s.flatten().es {
		for i := range count {
			at := i*dt.Extent() + e.off
			if !bytes.Equal(out[at:at+e.size], in[at:at+e.size]) {
				t.Fatalf("element %d offset %d differs after Packed round trip", i, e.off)
			}
		}
	}
}

func TestFreeKeepsDerived(t *testing.T) {
	inner, _ := TypeVector(2, 1, 2, Int32)
	outer, _ := TypeContiguous(2, inner)
	if err := inner.Free(); err != nil {
		t.Fatal(err)
	}
	if err := outer.Commit(); err != nil {
		t.Fatalf("commit of a type derived from a freed one: %v", err)
	}
	checkRoundTrip(t, outer, contig(2, vec(2, 1, 2, basic(Int32))).flatten(), 2)
	if inner.Committed() {
		t.Error("freed type reports committed")
	}
}

func TestLargeTypes(t *testing.T) {
	// Abutting copies must not cost a run or a loop trip each.
	big, err := TypeContiguous(1<<40, Byte)
	if err != nil || big.Size() != 1<<40 || !big.Contiguous() {
		t.Fatalf("contiguous 2^40 bytes: %v size %d", err, big.Size())
	}
	v, err := TypeVector(1<<30, 2, 2, Int32)
	if err != nil || v.Size() != 1<<33 || !v.Contiguous() {
		t.Fatalf("vector with abutting blocks: %v size %d", err, v.Size())
	}
	if _, err := TypeVector(maxRuns+1, 1, 2, Byte); class(err) != mpierr.ErrCount {
		t.Fatalf("vector of %d separate runs: %v, want %v", maxRuns+1, err, mpierr.ErrCount)
	}
	// Data that could not fit a buffer is refused, not overflowed.
	if _, err := TypeContiguous(1<<50, big); class(err) != mpierr.ErrCount {
		t.Fatalf("contiguous of 2^90 bytes: %v, want %v", err, mpierr.ErrCount)
	}
	if _, err := TypeCreateHvector(2, 1, 1<<62, Byte); class(err) != mpierr.ErrArg {
		t.Fatalf("hvector with stride 2^62: %v, want %v", err, mpierr.ErrArg)
	}
	if _, err := TypeVector(1<<40, 1<<40, 1<<40, Byte); class(err) != mpierr.ErrCount {
		t.Fatalf("vector of 2^80 abutting bytes: %v, want %v", err, mpierr.ErrCount)
	}
	// Copies of a type with gaps add runs, up to the limit: a byte and an
	// int32 never merge, so each copy adds two.
	gappy, _ := TypeCreateStruct([]int{1, 1}, []int{0, 2}, []*Datatype{Byte, Int32})
	if _, err := TypeContiguous(maxRuns/2, gappy); err != nil {
		t.Fatalf("contiguous of %d runs: %v", maxRuns, err)
	}
	for _, n := range []int{maxRuns/2 + 1, maxRuns + 1} {
		if _, err := TypeContiguous(n, gappy); class(err) != mpierr.ErrCount {
			t.Fatalf("contiguous of %d runs: %v, want %v", 2*n, err, mpierr.ErrCount)
		}
	}
	var pos int
	if err := Pack(nil, 1<<62, Int64, nil, &pos); class(err) != mpierr.ErrCount {
		t.Fatalf("Pack of 2^62 elements: %v, want %v", err, mpierr.ErrCount)
	}
	if n, err := PackSize(1<<62, Int64); class(err) != mpierr.ErrCount {
		t.Fatalf("PackSize overflow: %d, %v", n, err)
	}
	if got := Int64.Span(1 << 62); got < 1<<62 {
		t.Fatalf("Span overflowed to %d", got)
	}
}

func class(err error) mpierr.Class {
	var e *mpierr.Error
	if errors.As(err, &e) {
		return e.Class
	}
	return 0
}

func TestConstructorErrors(t *testing.T) {
	freed, _ := TypeContiguous(2, Int32)
	if err := freed.Free(); err != nil {
		t.Fatal(err)
	}
	two := []int{1, 1}
	tests := []struct {
		name  string
		f     func() (*Datatype, error)
		class mpierr.Class
		op    string
	}{
		{"contiguous nil", func() (*Datatype, error) { return TypeContiguous(1, nil) }, mpierr.ErrType, "MPI_Type_contiguous"},
		{"contiguous freed", func() (*Datatype, error) { return TypeContiguous(1, freed) }, mpierr.ErrType, "MPI_Type_contiguous"},
		{"contiguous count", func() (*Datatype, error) { return TypeContiguous(-1, Int32) }, mpierr.ErrCount, "MPI_Type_contiguous"},
		{"vector nil", func() (*Datatype, error) { return TypeVector(1, 1, 1, nil) }, mpierr.ErrType, "MPI_Type_vector"},
		{"vector count", func() (*Datatype, error) { return TypeVector(-1, 1, 1, Int32) }, mpierr.ErrCount, "MPI_Type_vector"},
		{"vector blocklen", func() (*Datatype, error) { return TypeVector(1, -2, 1, Int32) }, mpierr.ErrCount, "MPI_Type_vector"},
		{"vector stride", func() (*Datatype, error) { return TypeVector(2, 1, 1<<60, Int32) }, mpierr.ErrArg, "MPI_Type_vector"},
		{"hvector freed", func() (*Datatype, error) { return TypeCreateHvector(1, 1, 1, freed) }, mpierr.ErrType, "MPI_Type_create_hvector"},
		{"hvector count", func() (*Datatype, error) { return TypeCreateHvector(-3, 1, 8, Int32) }, mpierr.ErrCount, "MPI_Type_create_hvector"},
		{"hvector blocklen", func() (*Datatype, error) { return TypeCreateHvector(1, -1, 8, Int32) }, mpierr.ErrCount, "MPI_Type_create_hvector"},
		{"indexed nil", func() (*Datatype, error) { return TypeIndexed(two, two, nil) }, mpierr.ErrType, "MPI_Type_indexed"},
		{"indexed lengths", func() (*Datatype, error) { return TypeIndexed(two, []int{0}, Int32) }, mpierr.ErrArg, "MPI_Type_indexed"},
		{"indexed blocklen", func() (*Datatype, error) { return TypeIndexed([]int{1, -1}, two, Int32) }, mpierr.ErrCount, "MPI_Type_indexed"},
		{"indexed displ", func() (*Datatype, error) { return TypeIndexed(two, []int{0, 1 << 60}, Int32) }, mpierr.ErrArg, "MPI_Type_indexed"},
		{"indexed block freed", func() (*Datatype, error) { return TypeCreateIndexedBlock(1, two, freed) }, mpierr.ErrType, "MPI_Type_create_indexed_block"},
		{"indexed block blocklen", func() (*Datatype, error) { return TypeCreateIndexedBlock(-1, two, Int32) }, mpierr.ErrCount, "MPI_Type_create_indexed_block"},
		{"hindexed nil", func() (*Datatype, error) { return TypeCreateHindexed(two, two, nil) }, mpierr.ErrType, "MPI_Type_create_hindexed"},
		{"hindexed lengths", func() (*Datatype, error) { return TypeCreateHindexed([]int{1}, two, Int32) }, mpierr.ErrArg, "MPI_Type_create_hindexed"},
		{"hindexed blocklen", func() (*Datatype, error) { return TypeCreateHindexed([]int{-5}, []int{0}, Int32) }, mpierr.ErrCount, "MPI_Type_create_hindexed"},
		{"hindexed displ", func() (*Datatype, error) { return TypeCreateHindexed([]int{1}, []int{-1 << 62}, Int32) }, mpierr.ErrArg, "MPI_Type_create_hindexed"},
		{"struct types length", func() (*Datatype, error) { return TypeCreateStruct(two, two, []*Datatype{Int32}) }, mpierr.ErrArg, "MPI_Type_create_struct"},
		{"struct displs length", func() (*Datatype, error) {
			return TypeCreateStruct(two, nil, []*Datatype{Int32, Byte})
		}, mpierr.ErrArg, "MPI_Type_create_struct"},
		{"struct nil type", func() (*Datatype, error) { return TypeCreateStruct(two, two, []*Datatype{Int32, nil}) }, mpierr.ErrType, "MPI_Type_create_struct"},
		{"struct freed type", func() (*Datatype, error) {
			return TypeCreateStruct(two, two, []*Datatype{freed, Int32})
		}, mpierr.ErrType, "MPI_Type_create_struct"},
		{"struct blocklen", func() (*Datatype, error) {
			return TypeCreateStruct([]int{1, -1}, two, []*Datatype{Int32, Int32})
		}, mpierr.ErrCount, "MPI_Type_create_struct"},
		{"resized nil", func() (*Datatype, error) { return TypeCreateResized(nil, 0, 4) }, mpierr.ErrType, "MPI_Type_create_resized"},
		{"resized freed", func() (*Datatype, error) { return TypeCreateResized(freed, 0, 4) }, mpierr.ErrType, "MPI_Type_create_resized"},
		{"resized negative extent", func() (*Datatype, error) { return TypeCreateResized(Int32, 0, -4) }, mpierr.ErrArg, "MPI_Type_create_resized"},
		{"resized past the limit", func() (*Datatype, error) { return TypeCreateResized(Int32, maxBytes, 1) }, mpierr.ErrArg, "MPI_Type_create_resized"},
		{"resized lb past the limit", func() (*Datatype, error) { return TypeCreateResized(Int32, -1<<62, 0) }, mpierr.ErrArg, "MPI_Type_create_resized"},
		{"dup nil", func() (*Datatype, error) { return TypeDup(nil) }, mpierr.ErrType, "MPI_Type_dup"},
		{"dup freed", func() (*Datatype, error) { return TypeDup(freed) }, mpierr.ErrType, "MPI_Type_dup"},
	}
	for _, tc := range tests {
		dt, err := tc.f()
		var e *mpierr.Error
		if !errors.As(err, &e) || e.Class != tc.class || e.Op != tc.op || dt != nil {
			t.Errorf("%s: got %v, %v; want class %v from %s", tc.name, dt, err, tc.class, tc.op)
		}
	}
}

func TestTransferErrors(t *testing.T) {
	uncommitted, _ := TypeVector(2, 1, 2, Int32)
	freed, _ := TypeContiguous(2, Int32)
	_ = freed.Commit()
	_ = freed.Free()
	vecT, _ := TypeVector(2, 1, 2, Int32) // size 8, extent 12: span 12 for one, 24 for two
	_ = vecT.Commit()
	neg, _ := TypeCreateHindexed([]int{1}, []int{-4}, Int32)
	_ = neg.Commit()

	type call struct {
		name               string
		unpack             bool
		dt                 *Datatype
		count              int
		typed, packed, pos int // buffer lengths and start position
		nilPos             bool
		class              mpierr.Class
	}
	tests := []call{
		{name: "nil type", dt: nil, count: 1, typed: 12, packed: 8, class: mpierr.ErrType},
		{name: "uncommitted", dt: uncommitted, count: 1, typed: 12, packed: 8, class: mpierr.ErrType},
		{name: "freed", dt: freed, count: 1, typed: 12, packed: 8, class: mpierr.ErrType},
		{name: "negative count", dt: vecT, count: -1, typed: 12, packed: 8, class: mpierr.ErrCount},
		{name: "nil position", dt: vecT, count: 1, typed: 12, packed: 8, nilPos: true, class: mpierr.ErrArg},
		{name: "position past end", dt: vecT, count: 1, typed: 12, packed: 8, pos: 9, class: mpierr.ErrArg},
		{name: "negative position", dt: vecT, count: 1, typed: 12, packed: 8, pos: -1, class: mpierr.ErrArg},
		{name: "output too small", dt: vecT, count: 2, typed: 24, packed: 15, class: mpierr.ErrBuffer},
		{name: "output too small after pos", dt: vecT, count: 1, typed: 12, packed: 8, pos: 1, class: mpierr.ErrBuffer},
		{name: "input too small", dt: vecT, count: 2, typed: 23, packed: 16, class: mpierr.ErrBuffer},
		{name: "negative lb", dt: neg, count: 1, typed: 12, packed: 8, class: mpierr.ErrBuffer},
		{name: "ok", dt: vecT, count: 2, typed: 24, packed: 16},

		{name: "nil type", unpack: true, dt: nil, count: 1, typed: 12, packed: 8, class: mpierr.ErrType},
		{name: "uncommitted", unpack: true, dt: uncommitted, count: 1, typed: 12, packed: 8, class: mpierr.ErrType},
		{name: "freed", unpack: true, dt: freed, count: 1, typed: 12, packed: 8, class: mpierr.ErrType},
		{name: "negative count", unpack: true, dt: vecT, count: -1, typed: 12, packed: 8, class: mpierr.ErrCount},
		{name: "nil position", unpack: true, dt: vecT, count: 1, typed: 12, packed: 8, nilPos: true, class: mpierr.ErrArg},
		{name: "position past end", unpack: true, dt: vecT, count: 1, typed: 12, packed: 8, pos: 9, class: mpierr.ErrArg},
		{name: "truncated", unpack: true, dt: vecT, count: 2, typed: 24, packed: 15, class: mpierr.ErrTruncate},
		{name: "truncated after pos", unpack: true, dt: vecT, count: 1, typed: 12, packed: 8, pos: 4, class: mpierr.ErrTruncate},
		{name: "output too small", unpack: true, dt: vecT, count: 2, typed: 23, packed: 16, class: mpierr.ErrBuffer},
		{name: "negative lb", unpack: true, dt: neg, count: 1, typed: 12, packed: 8, class: mpierr.ErrBuffer},
		{name: "ok", unpack: true, dt: vecT, count: 2, typed: 24, packed: 16},
	}
	for _, tc := range tests {
		op := "MPI_Pack"
		if tc.unpack {
			op = "MPI_Unpack"
		}
		typed, packed := pattern(tc.typed), pattern(tc.packed)
		typed0, packed0 := bytes.Clone(typed), bytes.Clone(packed)
		pos := tc.pos
		p := &pos
		if tc.nilPos {
			p = nil
		}
		var err error
		if tc.unpack {
			err = Unpack(packed, p, typed, tc.count, tc.dt)
		} else {
			err = Pack(typed, tc.count, tc.dt, packed, p)
		}
		if tc.class == 0 {
			if err != nil {
				t.Errorf("%s %s: %v", op, tc.name, err)
			}
			continue
		}
		var e *mpierr.Error
		if !errors.As(err, &e) || e.Class != tc.class || e.Op != op {
			t.Errorf("%s %s: %v, want class %v", op, tc.name, err, tc.class)
		}
		// A failed call moves nothing.
		if pos != tc.pos || !bytes.Equal(typed, typed0) || !bytes.Equal(packed, packed0) {
			t.Errorf("%s %s: failed call changed its buffers or position", op, tc.name)
		}
	}
}

func TestTypeLifecycleErrors(t *testing.T) {
	d, _ := TypeContiguous(2, Int32)
	if err := d.Free(); err != nil {
		t.Fatal(err)
	}
	var nilType *Datatype
	for _, tc := range []struct {
		name string
		err  error
		op   string
	}{
		{"free twice", d.Free(), "MPI_Type_free"},
		{"commit freed", d.Commit(), "MPI_Type_commit"},
		{"commit nil", nilType.Commit(), "MPI_Type_commit"},
		{"free nil", nilType.Free(), "MPI_Type_free"},
	} {
		var e *mpierr.Error
		if !errors.As(tc.err, &e) || e.Class != mpierr.ErrType || e.Op != tc.op {
			t.Errorf("%s: %v", tc.name, tc.err)
		}
	}
	if _, err := PackSize(1, d); class(err) != mpierr.ErrType {
		t.Errorf("PackSize of freed type: %v", err)
	}
	if _, err := PackSize(-1, Int32); class(err) != mpierr.ErrCount {
		t.Errorf("PackSize(-1): %v", err)
	}
	if nilType.Name() != "<nil>" || nilType.LB() != 0 || nilType.UB() != 0 || nilType.Size() != 0 || nilType.Extent() != 0 || nilType.Committed() || nilType.Contiguous() || nilType.Span(3) != 0 {
		t.Error("nil type accessors")
	}
}

func TestErrorStrings(t *testing.T) {
	_, err := TypeVector(-1, 1, 1, Int32)
	if got, want := err.Error(), "MPI_Type_vector: MPI_ERR_COUNT: count -1 must be >= 0"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	for c, want := range map[mpierr.Class]string{
		mpierr.ErrOther: "MPI_ERR_OTHER", mpierr.ErrType: "MPI_ERR_TYPE", mpierr.ErrCount: "MPI_ERR_COUNT", mpierr.ErrArg: "MPI_ERR_ARG",
		mpierr.ErrTruncate: "MPI_ERR_TRUNCATE", mpierr.ErrRank: "MPI_ERR_RANK", mpierr.ErrGroup: "MPI_ERR_GROUP",
		mpierr.ErrBuffer: "MPI_ERR_BUFFER", 0: "MPI_ERR_CLASS(0)", 99: "MPI_ERR_CLASS(99)",
	} {
		if got := c.String(); got != want {
			t.Errorf("Class(%d).String() = %q, want %q", int(c), got, want)
		}
	}
}

func FuzzPackUnpack(f *testing.F) {
	f.Add([]byte{2, 2, 2, 3, 0, 1, 1})
	f.Add([]byte{9, 2, 1, 1, 0, 8, 0, 5, 0, 0})
	f.Add([]byte{4, 2, 1, 2, 3, 1, 6, 1, 3, 0, 2, 2})
	f.Add([]byte{1, 3, 2, 255, 3, 0, 3, 0, 2, 1})
	f.Add([]byte{6, 3, 2, 1, 0, 16, 40, 3, 3, 3, 7, 0, 4})
	f.Add([]byte{7, 20, 26, 9, 2, 1, 1, 0, 5, 8, 0, 0, 2})     // resized struct of int32 and double
	f.Add([]byte{2, 3, 2, 1, 7, 10, 2, 8, 0, 5, 3})            // vector of a resized dup
	f.Add([]byte{9, 2, 1, 1, 4, 20, 7, 16, 12, 0, 1, 0, 6, 1}) // struct of a resized type and a double
	f.Fuzz(func(t *testing.T, data []byte) {
		fs := &fuzzSpec{data}
		s := fs.spec(3)
		count := fs.in(0, 3)
		dt, err := s.make()
		if ok, want := s.valid(); !ok {
			if class(err) != want {
				t.Fatalf("invalid arguments gave %v, want %v", err, want)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		model := s.flatten()
		checkModel(t, dt, model)
		if err := dt.Commit(); err != nil {
			t.Fatal(err)
		}
		tlb, _ := model.trueBounds()
		s = shiftable(s, tlb)
		if dt, err = s.make(); err != nil {
			t.Fatal(err)
		}
		if err := dt.Commit(); err != nil {
			t.Fatal(err)
		}
		checkRoundTrip(t, dt, s.flatten(), count)
	})
}

func benchmarkPack(b *testing.B, dt *Datatype, count int) {
	if err := dt.Commit(); err != nil {
		b.Fatal(err)
	}
	in := pattern(dt.Span(count))
	n, _ := PackSize(count, dt)
	out := make([]byte, n)
	b.SetBytes(int64(n))
	for b.Loop() {
		pos := 0
		if err := Pack(in, count, dt, out, &pos); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPackVector packs 64 KiB of float64, every other one of a 128 KiB
// array.
func BenchmarkPackVector(b *testing.B) {
	dt, _ := TypeVector(64<<10/8, 1, 2, Float64)
	benchmarkPack(b, dt, 1)
}

// BenchmarkPackContiguous is the no-gather case for comparison.
func BenchmarkPackContiguous(b *testing.B) {
	benchmarkPack(b, Float64, 64<<10/8)
}
