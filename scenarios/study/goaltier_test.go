package study

import (
	"reflect"
	"testing"

	"nocsim/logp"
	"nocsim/scenarios"
)

// GoalTierParams keeps a given S, else takes the fitted protocol's, and
// refuses parameters that are not physical.
func TestGoalTierParams(t *testing.T) {
	p := logp.Params{P: 16, Mesh: "4x4", AvgHops: 2, Protocol: "eager", Source: logp.SourceSimulator, Segments: []logp.Segment{{L: 10, Lh: 1, Os: 2, Or: 4, Gap: 3}}}
	for _, c := range []struct {
		keepS bool
		wantS uint64
	}{{true, 77}, {false, scenarios.ProtocolThreshold("eager")}} {
		got, err := GoalTierParams(p, 8, 77, c.keepS)
		if err != nil {
			t.Fatal(err)
		}
		want, err := scenarios.TierParamsFor(p, 8, c.wantS)
		if err != nil {
			t.Fatal(err)
		}
		got.Hops, want.Hops = nil, nil // functions: compared through S and the rest
		if !reflect.DeepEqual(got, want) || got.S != c.wantS {
			t.Errorf("keepS %v: S = %d, params %+v; want S %d, %+v", c.keepS, got.S, got, c.wantS, want)
		}
	}
	p.Segments = nil
	if _, err := GoalTierParams(p, 8, 77, true); err == nil {
		t.Errorf("parameters without a segment: no error")
	}
}
