package main

import (
	"encoding/json"
	"slices"
	"testing"
)

// The flat gather of the slides' parameters through the CLI: capacity 2,
// senders 3..7 stalled 6, 10, 14, 18, 22 cycles, the root done at 34.
func TestPredictOptimalGather(t *testing.T) {
	code, out, stderr := nocsim(t, "predict", "--optimal", "gather", "--procs", "8", "--L", "6", "--o", "2", "--g", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var g struct {
		Finish    float64   `json:"finish_cycles"`
		Capacity  int       `json:"capacity"`
		InTransit int       `json:"max_in_transit_to_root"`
		Stall     []float64 `json:"stall_cycles"`
	}
	if err := json.Unmarshal([]byte(out), &g); err != nil {
		t.Fatal(err)
	}
	if g.Finish != 34 || g.Capacity != 2 || g.InTransit != 2 || !slices.Equal(g.Stall, []float64{0, 0, 0, 6, 10, 14, 18, 22}) {
		t.Errorf("gather: %+v", g)
	}
}
