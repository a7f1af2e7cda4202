package scenarios

import (
	"slices"
	"sort"
	"testing"
)

// Every kind a file may name has exactly one runner, and no runner serves
// a kind the checks refuse: Run can never fall through.
func TestKindRunnersCoverWorkloadKinds(t *testing.T) {
	var runners []string
	for k := range kindRunners {
		runners = append(runners, k)
	}
	sort.Strings(runners)
	kinds := slices.Clone(WorkloadKinds)
	sort.Strings(kinds)
	if !slices.Equal(runners, kinds) {
		t.Errorf("runners for %v, workload kinds %v", runners, kinds)
	}
}
