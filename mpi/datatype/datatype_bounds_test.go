package datatype

import (
	"bytes"
	"fmt"
	"testing"

	"nocsim/mpi/mpierr"
)

// dblChar is the type of thesis section 3.3 and MPI-3.1 Example 4.1:
// {(double, 0), (char, 8)}; nocsim's Byte stands for char.
func dblChar() *spec { return strct([]int{1, 1}, []int{0, 8}, basic(Float64), basic(Byte)) }

// TestExtentWorkedExamples checks bounds against the worked examples of
// thesis section 3.3 and MPI-3.1 sections 4.1.1-4.1.7, each lb and ub
// derived by hand from the standard's rule (the extent of a typemap without
// markers is rounded up to a multiple of its largest alignment; markers set
// by MPI_Type_create_resized override it), and against the test model.
func TestExtentWorkedExamples(t *testing.T) {
	i32, f64 := basic(Int32), basic(Float64)
	tests := []struct {
		name           string
		s              *spec
		offs           []int // the typemap's offsets, from the standard's text
		size, lb, ub   int
		trueLB, trueUB int
	}{
		{"thesis 3.3 {double, char}", dblChar(), []int{0, 8}, 9, 0, 16, 0, 9},
		{"MPI 4.1 char then double", strct([]int{1, 1}, []int{0, 1}, basic(Byte), f64), []int{0, 1}, 9, 0, 16, 0, 9},
		{"MPI 4.1.2 contiguous(3)", contig(3, dblChar()), []int{0, 8, 16, 24, 32, 40}, 27, 0, 48, 0, 41},
		{"MPI 4.1.2 vector(2,3,4)", vec(2, 3, 4, dblChar()),
			[]int{0, 8, 16, 24, 32, 40, 64, 72, 80, 88, 96, 104}, 54, 0, 112, 0, 105},
		{"MPI 4.1.2 vector(3,1,-2)", vec(3, 1, -2, dblChar()), []int{0, 8, -32, -24, -64, -56}, 27, -64, 16, -64, 9},
		{"MPI 4.1.2 hvector(2,3,4)", hvec(2, 3, 4, dblChar()),
			[]int{0, 8, 16, 24, 32, 40, 4, 12, 20, 28, 36, 44}, 54, 0, 48, 0, 45},
		{"MPI 4.1.2 indexed((3,1),(4,0))", idx([]int{3, 1}, []int{4, 0}, dblChar()),
			[]int{64, 72, 80, 88, 96, 104, 0, 8}, 36, 0, 112, 0, 105},
		{"MPI 4.1.2 hindexed((3,1),(4,0))", hidx([]int{3, 1}, []int{4, 0}, dblChar()),
			[]int{4, 12, 20, 28, 36, 44, 0, 8}, 36, 0, 48, 0, 45},
		{"MPI 4.1.2 struct((2,1,3),(0,16,26))", strct([]int{2, 1, 3}, []int{0, 16, 26}, basic(Float32), dblChar(), basic(Byte)),
			[]int{0, 4, 16, 24, 26, 27, 28}, 20, 0, 32, 0, 29},
		{"thesis 3.3 vector(2,2,3) of int", vec(2, 2, 3, i32), []int{0, 4, 12, 16}, 16, 0, 20, 0, 20},
		{"bytes need no padding", hidx([]int{1, 1}, []int{0, 6}, basic(Byte)), []int{0, 6}, 2, 0, 7, 0, 7},
		{"int32 pads to 4", strct([]int{1, 1}, []int{0, 4}, i32, basic(Byte)), []int{0, 4}, 5, 0, 8, 0, 5},
		{"padding follows a negative lb", strct([]int{1, 1}, []int{-8, 0}, f64, basic(Byte)), []int{-8, 0}, 9, -8, 8, -8, 1},
		// MPI-3.1 4.1.7: resized sets lb and ub whatever the data.
		{"resized {double, char} to 9", resized(0, 9, dblChar()), []int{0, 8}, 9, 0, 9, 0, 9},
		{"resized double, lb below", resized(-8, 24, f64), []int{0}, 8, -8, 16, 0, 8},
		{"resized double, lb above", resized(4, 2, f64), []int{0}, 8, 4, 6, 0, 8},
		// Markers carry into derived types: copies sit extent apart and
		// the markers alone give lb and ub, without padding.
		{"contiguous of resized", contig(3, resized(0, 12, f64)), []int{0, 12, 24}, 24, 0, 36, 0, 32},
		{"vector of resized", vec(2, 1, 2, resized(-4, 12, i32)), []int{0, 24}, 8, -4, 32, 0, 28},
		{"struct of resized and double", strct([]int{1, 1}, []int{0, 100}, resized(-4, 12, i32), f64), []int{0, 100}, 12, -4, 8, 0, 108},
		{"resized of resized", resized(2, 3, resized(-4, 12, i32)), []int{0}, 4, 2, 5, 0, 4},
		{"resized without data", vec(3, 1, 2, resized(0, 8, contig(0, f64))), []int{}, 0, 0, 40, 0, 0},
		{"resized without data, many blocks", vec(1<<40, 1, 3, resized(0, 8, contig(0, f64))), []int{}, 0, 0, (1<<40-1)*24 + 8, 0, 0},
		{"dup keeps the bounds", dup(resized(-8, 24, f64)), []int{0}, 8, -8, 16, 0, 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dt, err := tc.s.make()
			if err != nil {
				t.Fatal(err)
			}
			if tc.ub <= 1<<20 { // the model places every copy
				model := tc.s.flatten()
				got := []int{}
				for _, e := range model.es {
					got = append(got, e.off)
				}
				if fmt.Sprint(got) != fmt.Sprint(tc.offs) {
					t.Fatalf("model typemap offsets %v, the standard's %v", got, tc.offs)
				}
				if lb, ub := model.bounds(); lb != tc.lb || ub != tc.ub {
					t.Fatalf("model bounds %d, %d; hand-derived %d, %d", lb, ub, tc.lb, tc.ub)
				}
				checkModel(t, dt, model)
			}
			lb, ext, err := TypeGetExtent(dt)
			if err != nil || lb != tc.lb || ext != tc.ub-tc.lb || dt.UB() != tc.ub || dt.Size() != tc.size {
				t.Fatalf("TypeGetExtent = %d, %d, %v; ub %d size %d; want lb %d extent %d ub %d size %d",
					lb, ext, err, dt.UB(), dt.Size(), tc.lb, tc.ub-tc.lb, tc.ub, tc.size)
			}
			tlb, text, err := TypeGetTrueExtent(dt)
			if err != nil || tlb != tc.trueLB || text != tc.trueUB-tc.trueLB {
				t.Fatalf("TypeGetTrueExtent = %d, %d, %v; want %d, %d", tlb, text, err, tc.trueLB, tc.trueUB-tc.trueLB)
			}
			if len(tc.offs) == 0 {
				return
			}
			s := shiftable(tc.s, tc.trueLB)
			sdt, err := s.make()
			if err == nil {
				err = sdt.Commit()
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, count := range []int{0, 1, 3} {
				checkRoundTrip(t, sdt, s.flatten(), count)
			}
		})
	}
}

func TestTypeGetExtentErrors(t *testing.T) {
	freed, _ := TypeContiguous(2, Int32)
	_ = freed.Free()
	for _, dt := range []*Datatype{nil, freed} {
		if _, _, err := TypeGetExtent(dt); class(err) != mpierr.ErrType {
			t.Errorf("TypeGetExtent(%v): %v, want %v", dt.Name(), err, mpierr.ErrType)
		}
		if _, _, err := TypeGetTrueExtent(dt); class(err) != mpierr.ErrType {
			t.Errorf("TypeGetTrueExtent(%v): %v, want %v", dt.Name(), err, mpierr.ErrType)
		}
	}
	var nilType *Datatype
	if nilType.TrueLB() != 0 || nilType.TrueExtent() != 0 {
		t.Error("nil type true bounds")
	}
}

// TestTypeDup checks that a duplicate is an equal type: the same size,
// bounds, true bounds, contiguity and committed state, and the same bytes
// packed from the same buffer; and that it is a type of its own.
func TestTypeDup(t *testing.T) {
	for _, s := range []*spec{
		basic(Int32), basic(Float64), dblChar(), vec(3, 1, -2, dblChar()), contig(4, basic(Int64)),
		resized(-8, 24, basic(Float64)), strct([]int{1, 1}, []int{0, 100}, resized(-4, 12, basic(Int32)), basic(Float64)),
	} {
		for _, commit := range []bool{false, true} {
			old, err := s.make()
			if err != nil {
				t.Fatal(err)
			}
			if commit {
				if err := old.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			d, err := TypeDup(old)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("dup of %s (committed %v)", s.op, old.Committed())
			if d == old || d.Size() != old.Size() || d.LB() != old.LB() || d.UB() != old.UB() ||
				d.TrueLB() != old.TrueLB() || d.TrueExtent() != old.TrueExtent() ||
				d.Contiguous() != old.Contiguous() || d.Committed() != old.Committed() || d.Name() != "derived" {
				t.Fatalf("%s differs: size %d/%d lb %d/%d ub %d/%d true %d+%d/%d+%d contig %v/%v committed %v/%v name %q",
					name, d.Size(), old.Size(), d.LB(), old.LB(), d.UB(), old.UB(), d.TrueLB(), d.TrueExtent(),
					old.TrueLB(), old.TrueExtent(), d.Contiguous(), old.Contiguous(), d.Committed(), old.Committed(), d.Name())
			}
			if !commit {
				if err := old.Commit(); err != nil {
					t.Fatal(err)
				}
				if err := d.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			// The same typemap: equal bytes packed from one buffer.
			const count = 3
			if old.TrueLB() >= 0 {
				in := pattern(old.Span(count))
				n, _ := PackSize(count, old)
				a, b := make([]byte, n), make([]byte, n)
				var pa, pb int
				if err := Pack(in, count, old, a, &pa); err != nil {
					t.Fatal(err)
				}
				if err := Pack(in, count, d, b, &pb); err != nil || !bytes.Equal(a, b) {
					t.Fatalf("%s packs differently: %v", name, err)
				}
			}
			// Each can be freed without the other.
			if err := d.Free(); err != nil {
				t.Fatalf("%s: Free: %v", name, err)
			}
			if !old.Committed() {
				t.Fatalf("%s: freeing the duplicate freed the original", name)
			}
		}
	}
}
