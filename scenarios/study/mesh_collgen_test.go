package study

import (
	"fmt"
	"testing"

	"nocsim/logp/collgen"
)

// TestGeneratedMatchesRecordedMeshLong: TestGeneratedMatchesRecorded's
// comparison for the mesh allreduce's long-vector form (from 4 KiB: row
// reduce-scatter, column allreduce of a block, row allgather), which its
// sizes stay under, on whole, leading and ragged rows of the 4x4 mesh.
func TestGeneratedMatchesRecordedMeshLong(t *testing.T) {
	sc, opt := collgenSetup()
	for _, P := range []int{3, 6, 13, 16} {
		for _, n := range []int{4096, 8200} {
			name := fmt.Sprintf("allreduce/mesh/P=%d/%dB", P, n)
			tr := recordColl(t, sc, "allreduce", "mesh", P, n, 0)
			s, err := collgen.Generate("allreduce", "mesh", P, int64(n), opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			compareSchedules(t, name, tr, s, false, 0)
		}
	}
}
