package datatype

// Layouts recognised from a typemap: those the DMA engine moves with its
// strides and one-sided Accumulate applies an operation to, unpacked.

// WordStride recognises count elements of t that are single words at a
// constant word stride (a vector of 4-byte elements, one per block): the
// first word's index and the stride. The DMA engine moves such a layout
// with its source or destination stride, without packing.
func (t *Datatype) WordStride(count int) (first, stride int, ok bool) {
	var offs []int
	for i := 0; i < count; i++ {
		for _, s := range t.segs {
			if s.n%4 != 0 {
				return 0, 0, false
			}
			for k := 0; k < s.n; k += 4 {
				offs = append(offs, i*t.Extent()+s.off+k)
			}
		}
	}
	if len(offs) < 2 || offs[0] < 0 || offs[0]%4 != 0 {
		return 0, 0, false
	}
	d := offs[1] - offs[0]
	if d <= 0 || d%4 != 0 || d/4 > 0xffff {
		return 0, 0, false
	}
	for i := 2; i < len(offs); i++ {
		if offs[i]-offs[i-1] != d {
			return 0, 0, false
		}
	}
	return offs[0] / 4, d / 4, true
}

// ElemLayout describes count elements of t as n basic elements of kind k
// at byte offsets first, first+stride, ...: the layout Accumulate applies
// its operation to element by element. ok is false when the typemap mixes
// kinds or the offsets are not evenly spaced; no elements (a nil or empty
// type, count <= 0) is n = 0 and ok.
func (t *Datatype) ElemLayout(count int) (k Kind, first, stride, n int, ok bool) {
	if t == nil || len(t.runs) == 0 || count <= 0 {
		return 0, 0, 0, 0, true
	}
	k0 := t.runs[0].kind
	ks := kindSize[k0]
	for _, rn := range t.runs {
		if rn.kind != k0 {
			return 0, 0, 0, 0, false
		}
	}
	if t.Contiguous() {
		return k0, 0, ks, count * t.Size() / ks, true
	}
	var offs []int
	for i := 0; i < count; i++ {
		for _, rn := range t.runs {
			for e := 0; e < rn.count; e++ {
				offs = append(offs, i*t.Extent()+rn.off+e*ks)
			}
		}
	}
	stride = ks
	if len(offs) > 1 {
		stride = offs[1] - offs[0]
	}
	for i := 1; i < len(offs); i++ {
		if offs[i]-offs[i-1] != stride || stride < ks {
			return 0, 0, 0, 0, false
		}
	}
	if offs[0] < 0 {
		return 0, 0, 0, 0, false
	}
	return k0, offs[0], stride, len(offs), true
}
