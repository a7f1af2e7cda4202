package study

import (
	"strings"
	"testing"

	"nocsim/scenarios/report"
)

// The main job's energy line: per pattern, the power at the lightest and
// the heaviest load with its static part, and the energy per delivered
// flit at the lightest load and the heaviest one that did not saturate;
// nothing for rows without energy.
func TestEnergyHeadline(t *testing.T) {
	row := func(rate, mw, perFlit float64, sat bool) report.NocRow {
		return report.NocRow{Traffic: "uniform", OfferedRate: rate, Saturated: sat, Energy: &report.Energy{Model: "dsent", Tech: "45nm", FlitBits: 32,
			PowerMW: mw, PerFlitPJ: perFlit, Components: []report.EnergyComponent{{Kind: "clock", PowerMW: 9}, {Kind: "leakage", PowerMW: 120}, {Kind: "dynamic", PowerMW: mw - 129}}}}
	}
	got := energyHeadline([]report.NocRow{row(0.05, 140, 173.5, false), row(0.6, 263, 27.3, false), row(0.8, 293, 25, true)})
	want := "energy (dsent model, 45nm, 32-bit flits): uniform traffic 140 mW at 0.05 flits/node/cycle to 293 mW at 0.80 (129 mW leakage and clock); 173.5 pJ per delivered flit at 0.05, 27.3 pJ at 0.60 (the heaviest unsaturated load)"
	if len(got) != 1 || got[0] != want {
		t.Errorf("energyHeadline =\n%q\nwant\n%q", got, want)
	}
	none := report.NocRow{Traffic: "uniform", OfferedRate: 0.1}
	if got := energyHeadline([]report.NocRow{none}); len(got) != 0 {
		t.Errorf("rows without energy: %q", got)
	}
	// One load: no per-flit comparison to make.
	if got := energyHeadline([]report.NocRow{row(0.05, 140, 173.5, false)}); len(got) != 1 || strings.Contains(got[0], "per delivered flit") {
		t.Errorf("one load: %q", got)
	}
}
