package router

import "testing"

// Offsets round-trip every value a topology can give (mesh.MaxDim = 256
// tiles a side: -255..255; a bus's ids split into a byte and the rest),
// and a delivered head (offsets 0, 0) reads position 0.
func TestFlitOffsetsRoundTrip(t *testing.T) {
	for _, dx := range []int{-255, -128, -1, 0, 1, 127, 255} {
		for _, dy := range []int{-255, -129, -1, 0, 1, 128, 255} {
			f := Flit{Head: true, Index: 7}
			f.SetOffsets(dx, dy)
			if gx, gy := f.Offsets(); gx != dx || gy != dy {
				t.Errorf("SetOffsets(%d, %d): Offsets = %d, %d", dx, dy, gx, gy)
			}
			if f.Pos() != 0 {
				t.Errorf("head with offsets (%d, %d): Pos %d, want 0", dx, dy, f.Pos())
			}
		}
	}
	f := Flit{Head: true}
	f.SetOffsets(0, 0)
	if f.Index != 0 {
		t.Errorf("delivered head: Index %d, want 0", f.Index)
	}
	if b := (Flit{Index: 9}); b.Pos() != 9 {
		t.Errorf("body flit: Pos %d, want 9", b.Pos())
	}
}

// FuzzFlitOffsets: any pair in the 16-bit range survives the packing.
func FuzzFlitOffsets(f *testing.F) {
	f.Add(int16(-255), int16(255))
	f.Fuzz(func(t *testing.T, dx, dy int16) {
		var fl Flit
		fl.SetOffsets(int(dx), int(dy))
		if gx, gy := fl.Offsets(); gx != int(dx) || gy != int(dy) {
			t.Fatalf("(%d, %d) -> (%d, %d)", dx, dy, gx, gy)
		}
	})
}
