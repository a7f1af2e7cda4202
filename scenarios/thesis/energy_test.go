package thesis

import (
	"math"
	"testing"

	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// dsentRouterLeakMW is DSENT's router leakage at 45 nm with 32-bit flits
// (endpoint/energy/models/dsent.toml; docs/energy.md), the thesis
// machine's default [energy] model.
const dsentRouterLeakMW = 7.75

// Each version of a thesis row is priced on its own chip: its routers'
// leakage is the row's processor count of routers (rank r on tile r of
// the row's grid) leaking for exactly that version's cycles at 1 GHz, the
// breakdown's kinds sum to its total, and the ratio is MPI over native.
// Table 5.2's rows run on grids as Table 5.1's do (64 ranks on 8x8).
func TestThesisEnergyPerVersion(t *testing.T) {
	sc := machineScenario(t)
	if !sc.EnergyOn() || sc.Node.ClockHz != 1e9 {
		t.Fatalf("the thesis machine prices no energy at 1 GHz (model %q, clock %v)", sc.Energy.Model, sc.Node.ClockHz)
	}
	var rows []report.ThesisRow
	for _, sel := range []struct {
		table       string
		procs, size int
	}{{"5.1", 4, 2000}, {"5.1", 8, 2000}, {"5.2", 64, 8}} {
		r, err := Rows(sel.table, []int{sel.procs}, []int{sel.size})
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r...)
	}
	res, err := Run(&sc, rows, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		for _, v := range []struct {
			name   string
			cycles float64
			e      *report.Energy
		}{{"native", float64(r.Native), r.NativeEnergy}, {"mpi", float64(r.MPI), r.MPIEnergy}} {
			if v.e == nil {
				t.Fatalf("table %s, size %d, P=%d, %s: no energy", r.Row.Table, r.Row.Size(), r.Row.Procs, v.name)
			}
			want := float64(r.Row.Procs) * dsentRouterLeakMW * v.cycles // mW x ns = pJ
			if math.Abs(v.e.LeakagePJ-want) > 1e-9*want {
				t.Errorf("table %s, size %d, P=%d, %s: leakage %v pJ, want %d routers x %v mW x %v cycles = %v",
					r.Row.Table, r.Row.Size(), r.Row.Procs, v.name, v.e.LeakagePJ, r.Row.Procs, dsentRouterLeakMW, v.cycles, want)
			}
			if sum := v.e.DynamicPJ + v.e.ClockPJ + v.e.LeakagePJ; math.Abs(sum-v.e.TotalPJ) > 1e-9*v.e.TotalPJ {
				t.Errorf("%s: kinds sum to %v, total %v", v.name, sum, v.e.TotalPJ)
			}
		}
		rec := r.Record()
		if rec.EnergyRatio != r.MPIEnergy.TotalPJ/r.NativeEnergy.TotalPJ || rec.NativeEnergyPJ != r.NativeEnergy.TotalPJ || rec.MPIPowerMW != r.MPIEnergy.PowerMW {
			t.Errorf("record %+v does not carry the versions' energies", rec)
		}
	}
	// No model, no energy.
	sc.Energy.Model = "none"
	res, err = Run(&sc, rows[:1], scenarios.RunOptions{})
	if err != nil || res[0].NativeEnergy != nil || res[0].MPIEnergy != nil || res[0].EnergyRatio() != 0 {
		t.Errorf("energy_model = none: %+v (%v)", res, err)
	}
}
