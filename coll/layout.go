package coll

// Layout places blocks of the given bytes one after the other, each
// starting on a word, so any run of consecutive blocks is one message.
type Layout struct {
	Off, N []int
}

// NewLayout is the layout of blocks of n[i] bytes.
func NewLayout(n []int) Layout {
	off := make([]int, len(n))
	size := 0
	for i, b := range n {
		off[i] = size
		size += Pad4(b)
	}
	return Layout{off, n}
}

// Size is the bytes the layout takes.
func (l Layout) Size() int {
	if len(l.N) == 0 {
		return 0
	}
	return l.Off[len(l.N)-1] + Pad4(l.N[len(l.N)-1])
}

// Span is blocks a..b-1 (a < b) of Data as one region.
func (l Layout) Span(a, b int) Region { return l.SpanIn(Data, a, b) }

// SpanIn is blocks a..b-1 (a < b) of buffer buf as one region.
func (l Layout) SpanIn(buf Buf, a, b int) Region {
	return buf.At(l.Off[a], l.Off[b-1]+l.N[b-1]-l.Off[a])
}
