package study

import (
	"reflect"
	"testing"

	"nocsim/logp"
	"nocsim/logp/loggops"
)

// UseFixed gives the same parameters at every P, builds the optimal
// broadcast for L, the mean overhead and g, and names the values.
func TestTierSweepUseFixed(t *testing.T) {
	p := loggops.Params{L: 6, Os: 2, Or: 4, Gap: 5, G: 0.5, O: 0.25, S: 256}
	var sw TierSweep
	sw.UseFixed(p)
	for _, procs := range []int{2, 1 << 20} {
		if got, err := sw.Params(procs); err != nil || !reflect.DeepEqual(got, p) {
			t.Errorf("Params(%d) = %+v, %v; want %+v", procs, got, err, p)
		}
	}
	if L, o, g := sw.OptimalLogP(4096); L != 6 || o != 3 || g != 5 {
		t.Errorf("OptimalLogP = %v, %v, %v; want 6, 3, 5", L, o, g)
	}
	if want := "L=6 o_s=2 o_r=4 g=5 G=0.5 O=0.25 S=256"; sw.ParamsName != want {
		t.Errorf("ParamsName = %q, want %q", sw.ParamsName, want)
	}
}

// UseFitted takes L, o and g per size from the fitted segments, the
// mesh width from the fitted mesh and names the file.
func TestTierSweepUseFitted(t *testing.T) {
	p := logp.Params{P: 16, Mesh: "4x4", AvgHops: 2, Protocol: "scmp", Source: logp.SourceSimulator, Segments: []logp.Segment{
		{MaxBytes: 64, L: 10, Lh: 1, Os: 2, Or: 4, Gap: 3}, {L: 40, Lh: 2, Os: 20, Or: 30, Gap: 8},
	}}
	var sw TierSweep
	sw.UseFitted("dir/p.toml", p)
	if L, o, g := sw.OptimalLogP(8); L != 12 || o != 3 || g != 3 {
		t.Errorf("OptimalLogP(8) = %v, %v, %v; want 12, 3, 3 (the first segment at 2 hops)", L, o, g)
	}
	if L, o, g := sw.OptimalLogP(1024); L != 44 || o != 25 || g != 8 {
		t.Errorf("OptimalLogP(1024) = %v, %v, %v; want 44, 25, 8 (the second segment)", L, o, g)
	}
	if sw.MeshWidth == nil || sw.MeshWidth(16) != 4 {
		t.Errorf("MeshWidth: want the fitted 4x4 mesh's width 4 for 16 ranks")
	}
	if want := FittedParamsName("dir/p.toml", p); sw.ParamsName != want {
		t.Errorf("ParamsName = %q, want %q", sw.ParamsName, want)
	}
}
