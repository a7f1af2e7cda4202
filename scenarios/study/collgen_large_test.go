package study

import (
	"testing"

	"nocsim/coll"
	"nocsim/logp/collgen"
)

// One description at large communicators: TestGeneratedMatchesRecorded's
// check (per rank the same messages in the same order, with the same
// waits) for every algorithm on MPI messages on a 10x10 mesh: at P = 37
// three sizes (reductions: one past MeshLongBytes, where the mesh
// allreduce changes form), at P = 100 the largest (the smallest for the
// P^2-message algorithms and for allgather and alltoall, whose size is
// per block), to keep the test's CPU time near half a
// minute; rooted operations from a middle root.
// With TestGeneratedMatchesRecorded (P = 1..16) and logp's
// TestClosedFormsOnGeneratedSchedules (every form equals the tier on the
// generated schedule, P = 2..100) this is the completeness check of the
// three engines.
func TestGeneratedMatchesRecordedLargeP(t *testing.T) {
	if testing.Short() {
		t.Skip("about a thousand chip runs of up to 100 ranks; skipped under -short")
	}
	sc, opt := collgenSetup()
	sc.Network.Mesh = "10x10"
	opt.MeshW = 10
	byteSizes, redSizes := []int{5, 1000, 5000}, []int{8, 1000, 8200}
	checked := 0
	for a, op := range generatedOps() {
		sizes := byteSizes
		if collgen.IsReduction(op) {
			sizes = redSizes
		}
		for _, P := range []int{37, 100} {
			root := 0
			if collgen.Rooted(op) {
				root = P / 2
			}
			sz := sizes
			switch {
			case P == 100 && (a.Growth == coll.Quadratic || op == "allgather" || op == "alltoall"):
				sz = sizes[:1] // every rank ends with P blocks
			case P == 100:
				sz = sizes[2:]
			}
			for _, n := range sz {
				matchRecorded(t, sc, opt, op, a.Name, P, n, root)
				checked++
			}
		}
	}
	t.Logf("%d runs compared", checked)
}
