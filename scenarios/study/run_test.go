package study

import (
	"nocsim/scenarios"
	"slices"
	"sort"
	"testing"
)

// Every kind a file may name has exactly one workload, and no workload
// serves a kind the checks refuse: Check and Run never miss.
func TestKindsCoverWorkloadKinds(t *testing.T) {
	var runners []string
	for k := range kinds {
		runners = append(runners, k)
	}
	sort.Strings(runners)
	names := slices.Clone(scenarios.WorkloadKinds)
	sort.Strings(names)
	if !slices.Equal(runners, names) {
		t.Errorf("workloads for %v, workload kinds %v", runners, names)
	}
}
