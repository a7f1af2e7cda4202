package report

import (
	"strings"
	"testing"
)

// Energy adds columns after the thesis's own and changes none of them:
// with energy every line begins with the line printed without it, and the
// new cells are each version's energy (uJ) and power and their ratio.
func TestThesisTableEnergyOnlyAdds(t *testing.T) {
	row := ThesisRow{Table: "5.1", Nonzeros: 2000, Procs: 4, NativeK: 1695, MPIK: 2717}
	plain := []ThesisResult{{Row: row, Native: 1359000, MPI: 2502000, Correct: true}}
	priced := []ThesisResult{plain[0]}
	priced[0].NativeEnergy = &Energy{TotalPJ: 1179.9e6, PowerMW: 868.5}
	priced[0].MPIEnergy = &Energy{TotalPJ: 1542.8e6, PowerMW: 616.7}
	var a, b strings.Builder
	if err := WriteThesisTable(&a, plain); err != nil {
		t.Fatal(err)
	}
	if err := WriteThesisTable(&b, priced); err != nil {
		t.Fatal(err)
	}
	was, is := strings.Split(strings.TrimRight(a.String(), "\n"), "\n"), strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(was) != 3 || len(is) != 3 {
		t.Fatalf("lines:\n%s\n%s", a.String(), b.String())
	}
	for i := range was {
		if !strings.HasPrefix(is[i], was[i]) {
			t.Errorf("line %d changed:\n%q\n%q", i, was[i], is[i])
		}
	}
	added := strings.Fields(strings.TrimPrefix(is[2], was[2]))
	if want := []string{"1179.9", "868.5", "1542.8", "616.7", "1.308"}; strings.Join(added, " ") != strings.Join(want, " ") {
		t.Errorf("energy cells %q, want %q", added, want)
	}
	if !strings.Contains(is[1], "(uJ)") || !strings.Contains(is[0], "energy ratio") {
		t.Errorf("header does not say the unit:\n%s", b.String())
	}
}
