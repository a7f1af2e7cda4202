package study

import (
	"strings"
	"testing"

	"nocsim/scenarios"
)

// A trace is allowed exactly where the workload runs MPI on the chip; the
// refusal names the key that rules it out.
func TestCheckTrace(t *testing.T) {
	for _, c := range []struct {
		kind, tier string
		versions   []string
		refusedBy  string // "" when allowed
	}{
		{kind: "pingpong"},
		{kind: "coll"},
		{kind: "coll", tier: scenarios.TierChip},
		{kind: "coll", tier: scenarios.TierLogGOPS, refusedBy: "[workload] tier = loggops"},
		{kind: "app", versions: []string{"mpi", "native"}},
		{kind: "app", versions: []string{"native"}, refusedBy: "[workload] versions = native"},
		{kind: "pairs", versions: []string{"mpi"}},
		{kind: "pairs", versions: []string{"native"}, refusedBy: "[workload] versions = native"},
		{kind: "noc", refusedBy: "[workload] kind = noc"},
		{kind: "calibrate", refusedBy: "[workload] kind = calibrate"},
		{kind: "thesis", refusedBy: "[workload] kind = thesis"},
	} {
		sc := scenarios.Defaults()
		sc.Workload.Kind, sc.Workload.Tier, sc.Workload.Versions = c.kind, c.tier, c.versions
		err := CheckTrace(&sc)
		switch {
		case c.refusedBy == "" && err != nil:
			t.Errorf("%s %s %v: refused: %v", c.kind, c.tier, c.versions, err)
		case c.refusedBy != "" && (err == nil || !strings.HasPrefix(err.Error(), c.refusedBy) || !strings.Contains(err.Error(), "allowed")):
			t.Errorf("%s %s %v: error %v, want one starting %q and saying what is allowed", c.kind, c.tier, c.versions, err, c.refusedBy)
		}
	}
}
