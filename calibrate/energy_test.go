package calibrate

import (
	"math"
	"testing"

	"nocsim/logp"
)

// FitEnergy recovers the terms that made the samples, per segment: energies
// generated from known per-message, per-byte, per-byte-hop and copy terms
// (two segments, two distances, copied and whole-word sizes) come back
// exactly, with intervals of 0; too few samples for the terms drop the
// terms the samples cannot tell apart instead of writing intervals of
// unknown width.
func TestFitEnergyRecoversTheTerms(t *testing.T) {
	want := logp.EnergyParams{Word: 4, Segments: []logp.EnergySegment{
		{MaxBytes: 64, MessagePJ: 5000, HopPJ: 300, BytePJ: 26, ByteHopPJ: 1.5, CopyBytePJ: 18},
		{MaxBytes: 0, MessagePJ: 13000, HopPJ: 420, BytePJ: 51.5, ByteHopPJ: 1.2, CopyBytePJ: 17.5},
	}}
	var samples []EnergySample
	for _, h := range []int{1, 6} {
		for _, m := range []int{8, 13, 32, 64, 128, 127, 1024, 4099, 65536} {
			samples = append(samples, EnergySample{Bytes: m, Hops: h, Messages: 4, DynamicPJ: 4 * want.MessageEnergy(m, float64(h))})
		}
	}
	got, err := FitEnergy(samples, 129, 16, 4, []int{64, 0}, "test")
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range got.Segments {
		w := want.Segments[i]
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"message", s.MessagePJ, w.MessagePJ}, {"hop", s.HopPJ, w.HopPJ}, {"byte", s.BytePJ, w.BytePJ}, {"byte-hop", s.ByteHopPJ, w.ByteHopPJ}, {"copy", s.CopyBytePJ, w.CopyBytePJ}} {
			if math.Abs(c.got-c.want) > 1e-6*math.Max(1, c.want) {
				t.Errorf("segment %d %s term %g, want %g", i, c.name, c.got, c.want)
			}
		}
		if s.MaxBytes != w.MaxBytes || s.MessageCI > 1e-6 {
			t.Errorf("segment %d: max_bytes %d, message interval %g", i, s.MaxBytes, s.MessageCI)
		}
	}
	if got.MaxResidual > 1e-9 || got.StaticMW != 129 || got.Samples != len(samples) {
		t.Errorf("residual %g, static %g, samples %d", got.MaxResidual, got.StaticMW, got.Samples)
	}
	// Three whole-word sizes at one distance: only the message and byte
	// terms can be fitted, with a degree of freedom left.
	few := []EnergySample{{8, 1, 2, 2 * 5208}, {16, 1, 2, 2 * 5416}, {32, 1, 2, 2 * 5832}}
	f, err := FitEnergy(few, 1, 4, 4, nil, "test")
	if err != nil || f.Segments[0].ByteHopPJ != 0 || f.Segments[0].HopPJ != 0 || f.Segments[0].CopyBytePJ != 0 || math.IsNaN(f.Segments[0].ByteCI) {
		t.Errorf("three samples: %+v, %v", f, err)
	}
	if _, err := FitEnergy(few[:2], 1, 4, 4, nil, "test"); err == nil {
		t.Error("two samples fitted two terms with no interval")
	}
}
