package calibrate

import (
	"math"
	"testing"
)

// Sizes that are not a multiple of 4 bytes are copied through a buffer
// by nocsim's MPI (the DMA engine moves whole words). Fitted with O, their
// one-way times are predicted within the aligned sizes' bound (5%); with O = 0
// (the model before O) they are predicted far too fast.
func TestOddSizesWithinAlignedError(t *testing.T) {
	sizes := []int{8, 13, 16, 32, 64, 127, 128, 256, 512, 1024, 1027, 4096, 4099, 16384, 16387}
	for _, proto := range []string{"eager", "scmp"} {
		var ms []Measurement
		for _, p := range []struct{ from, to, hops int }{{0, 1, 1}, {0, 15, 6}} {
			got, err := Run(simWorld(4, 4, proto), p.from, p.to, p.hops, sizes, 1)
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, got...)
		}
		rep, err := Fit(ms, Options{P: 16, Protocol: proto, ClockHz: 1e9, Source: "simulated 4x4", Machine: Machine{Word: 4}})
		if err != nil {
			t.Fatal(err)
		}
		noO := rep.Params
		noO.Segments = append(noO.Segments[:0:0], noO.Segments...)
		for i := range noO.Segments {
			noO.Segments[i].O = 0
		}
		var aligned, odd, oddNoO float64 // worst |relative error|
		for _, m := range ms {
			if m.Kind != KindRTT {
				continue
			}
			want := m.Cycles / 2
			rel := math.Abs(rep.Params.PointToPoint(m.Bytes, float64(m.Hops))-want) / want
			if m.Bytes%4 == 0 {
				aligned = max(aligned, rel)
				continue
			}
			odd = max(odd, rel)
			oddNoO = max(oddNoO, math.Abs(noO.PointToPoint(m.Bytes, float64(m.Hops))-want)/want)
		}
		t.Logf("%s: worst one-way error aligned %.2f%%, odd sizes %.2f%% (%.2f%% with O = 0); O = %v cycles/byte", proto, 100*aligned, 100*odd, 100*oddNoO, rep.Params.Segments[len(rep.Params.Segments)-1].O)
		// The calibration's acceptance bound (TestRoundTrip4x4) for both.
		if odd > 0.05 || aligned > 0.05 {
			t.Errorf("%s: odd sizes predicted within %.2f%%, aligned within %.2f%%; want both within 5%%", proto, 100*odd, 100*aligned)
		}
		if oddNoO < 0.2 {
			t.Errorf("%s: without O odd sizes are within %.2f%%: the sizes do not exercise the copy", proto, 100*oddNoO)
		}
	}
}
