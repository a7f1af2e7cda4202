package thesis

import (
	"math"
	"testing"
)

// The transcribed times reproduce the thesis's printed ratios to their
// three decimals: a typo in either time would show.
func TestThesisTablesTranscription(t *testing.T) {
	for table, rows := range Tables {
		want := printedRatios[table]
		if len(want) != len(rows) {
			t.Fatalf("table %s: %d rows, %d printed ratios", table, len(rows), len(want))
		}
		for i, r := range rows {
			if got := r.Ratio(); math.Abs(got-want[i]) > 0.0006 {
				t.Errorf("table %s row %d (%d, P=%d): ratio %.4f from the times, printed %.3f", table, i, r.Size(), r.Procs, got, want[i])
			}
		}
	}
}
