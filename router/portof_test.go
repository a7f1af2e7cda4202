package router

import (
	"testing"

	"nocsim/des"
	"nocsim/mesh"
)

// portOf and vcOf, computed by a multiply (Router.vdiv), agree with the
// division they replace for every input-VC index below 64 and every VC
// count up to MaxVCs.
func TestPortOfDividesExactly(t *testing.T) {
	m, err := mesh.New(2, 2)
	if err != nil {
		t.Fatal(err)
	}
	for v := 1; v <= MaxVCs; v++ {
		spec := DefaultSpec()
		spec.VCs = v
		r := newRouter(des.New(), &spec, m, 0)
		for k := range 64 {
			if p, i := r.portOf(k), r.vcOf(k); int(p) != k/v || i != k%v {
				t.Errorf("vcs %d, input VC %d: port %d vc %d, want %d and %d", v, k, p, i, k/v, k%v)
			}
		}
	}
}
