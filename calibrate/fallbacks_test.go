package calibrate

import (
	"strings"
	"testing"
)

// Every machine column a CSV may lack is named with the value it is
// fitted with, in the file's order; none lacking names none.
func TestTableFallbacks(t *testing.T) {
	all := Table{Absent: MachineColumns}.Fallbacks()
	for _, c := range MachineColumns {
		if !strings.Contains(all, c+" = ") {
			t.Errorf("Fallbacks %q does not name %s's value", all, c)
		}
	}
	if got := (Table{}).Fallbacks(); got != "" {
		t.Errorf("no column absent: %q, want nothing", got)
	}
}
