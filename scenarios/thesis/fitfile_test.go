package thesis

import (
	"bytes"
	"strings"
	"testing"

	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// FitKeysNamed returns the named keys in the order given, and names the
// first unknown one.
func TestFitKeysNamed(t *testing.T) {
	keys, bad := FitKeysNamed("poll_cycles, mem_cycles")
	if bad != "" || len(keys) != 2 || keys[0].Key != "poll_cycles" || keys[1].Key != "mem_cycles" {
		t.Errorf("FitKeysNamed(poll_cycles, mem_cycles) = %v, %q", keys, bad)
	}
	if keys, bad := FitKeysNamed("mem_cycles,vcs,nope"); keys != nil || bad != "vcs" {
		t.Errorf("FitKeysNamed with vcs = %v, %q: want nil, vcs", keys, bad)
	}
	for _, k := range FitKeys {
		if !strings.Contains(","+FitKeyNames()+",", ","+k.Key+",") {
			t.Errorf("FitKeyNames() = %q lacks %s", FitKeyNames(), k.Key)
		}
	}
}

// SetApart holds exactly the keys said to be set apart, with the
// scenario's values.
func TestSetApart(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.VCs, sc.Node.CallCycles = 3, 77
	set, err := SetApart(&sc, func(section, key string) bool { return key == "vcs" || key == "call_cycles" })
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != 2 || set["network.vcs"] != "3" || set["node.call_cycles"] != "77" {
		t.Errorf("SetApart = %v, want network.vcs 3 and node.call_cycles 77", set)
	}
}

// WriteText prints each fitted key in its section with its value in
// cycles, the RMS over both times of every row, then the table.
func TestFitResultWriteText(t *testing.T) {
	res := []report.ThesisResult{{Row: Tables["5.1"][0], Native: 1000, MPI: 2000, Correct: true}}
	f := FitResult{Keys: []string{"node.call_cycles"}, Values: []float64{12.5}, Results: res, RMSLog: 0.1, Start: 0.4}
	var b bytes.Buffer
	if err := f.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "[node] call_cycles = 12.5 cycles\nRMS of log(nocsim/thesis) over Table 5.1's 2 times: 0.1000 (start 0.4000)\n\n"
	var table bytes.Buffer
	if err := report.WriteThesisTable(&table, res); err != nil {
		t.Fatal(err)
	}
	if b.String() != want+table.String() {
		t.Errorf("WriteText:\n%s\nwant\n%s", b.String(), want+table.String())
	}
}
