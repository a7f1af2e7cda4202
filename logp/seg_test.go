package logp

import "testing"

// The segment of a message is the first whose MaxBytes covers it: 128
// bytes is still eager with a 128-byte bound, 129 is not.
func TestSegBoundaries(t *testing.T) {
	p := Params{P: 4, Segments: []Segment{{MaxBytes: 128, L: 1}, {MaxBytes: 1024, L: 2}, {L: 3}}}
	for _, c := range []struct {
		m    int
		want float64
	}{{0, 1}, {1, 1}, {128, 1}, {129, 2}, {1024, 2}, {1025, 3}, {1 << 30, 3}} {
		if got := p.Seg(c.m).L; got != c.want {
			t.Errorf("Seg(%d) is the segment with L = %v, want %v", c.m, got, c.want)
		}
	}
	// Predict costs every message with its own segment: a 2-rank bcast is
	// one message, so it crosses the boundary between 128 and 129 bytes.
	for _, c := range []struct {
		m    int
		want float64
	}{{128, 1}, {129, 2}} {
		got, err := p.Predict("bcast", "flat", 2, c.m)
		if err != nil {
			t.Fatal(err)
		}
		if got.Cycles != c.want {
			t.Errorf("bcast of %d bytes on 2 ranks = %v cycles, want L = %v", c.m, got.Cycles, c.want)
		}
	}
}
