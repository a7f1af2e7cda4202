package thesis

import (
	"bytes"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"reflect"
	"testing"
)

// machineScenario is the embedded thesis machine, decoded.
func machineScenario(t *testing.T) scenarios.Scenario {
	t.Helper()
	sc, _, err := scenarios.Decode(bytes.NewReader(Machine()), MachineName)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func ratioOf(t *testing.T, res []report.ThesisResult, size, procs int) float64 {
	t.Helper()
	for _, r := range res {
		if r.Row.Size() == size && r.Row.Procs == procs {
			if !r.Correct {
				t.Errorf("size %d, P=%d: wrong answer (%s)", size, procs, r.Detail)
			}
			return r.Ratio()
		}
	}
	t.Fatalf("no row size %d, P=%d", size, procs)
	return 0
}

// The thesis's directions hold on the fitted machine, on a subset of both
// tables: the MPI/native ratio falls as the problem grows at fixed P and
// rises with P at a fixed size (Table 5.2 is predicted, not fitted).
func TestThesisDirections(t *testing.T) {
	sc := machineScenario(t)
	for _, c := range []struct {
		table        string
		procs, sizes []int
	}{
		{"5.1", []int{4, 16}, []int{2000, 10000}},
		{"5.2", []int{4, 16}, []int{128, 256}},
	} {
		rows, err := Rows(c.table, c.procs, c.sizes)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(&sc, rows, scenarios.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		small, big := c.sizes[0], c.sizes[1]
		for _, p := range c.procs {
			if a, b := ratioOf(t, res, small, p), ratioOf(t, res, big, p); !(b < a) {
				t.Errorf("table %s, P=%d: ratio %.3f at size %d, %.3f at %d: want it to fall with size", c.table, p, a, small, b, big)
			}
		}
		lo, hi := c.procs[0], c.procs[1]
		if a, b := ratioOf(t, res, small, lo), ratioOf(t, res, small, hi); !(b > a) {
			t.Errorf("table %s, size %d: ratio %.3f at P=%d, %.3f at P=%d: want it to rise with P", c.table, small, a, lo, b, hi)
		}
	}
}

// The fit moves the machine toward the thesis: on two small rows of Table
// 5.1, fitting mem_cycles and call_cycles from a machine far off (both
// keys scaled up eightfold) lowers the RMS log error, and the machine it
// writes reproduces the fitted times.
func TestThesisFitImproves(t *testing.T) {
	sc := machineScenario(t)
	sc.Node.MemCycles *= 8
	sc.Node.CallCycles *= 8
	rows, err := Rows("5.1", []int{4, 16}, []int{2000})
	if err != nil {
		t.Fatal(err)
	}
	var keys []FitKey
	for _, k := range FitKeys {
		if k.Key == "mem_cycles" || k.Key == "call_cycles" {
			keys = append(keys, k)
		}
	}
	fit, err := Fit(&sc, rows, keys, 2, scenarios.RunOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !(fit.RMSLog < 0.5*fit.Start) {
		t.Errorf("RMS log error %.4f after the fit, %.4f before: want at least halved", fit.RMSLog, fit.Start)
	}
	var b bytes.Buffer
	if err := WriteMachine(&b, "[node]\n", fit, nil); err != nil {
		t.Fatal(err)
	}
	again, _, err := scenarios.Decode(&b, "fitted.toml")
	if err != nil {
		t.Fatal(err)
	}
	mine := sc
	mine.Node.MemCycles, mine.Node.CallCycles = again.Node.MemCycles, again.Node.CallCycles
	res, err := Run(&mine, rows, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Native != fit.Results[i].Native || r.MPI != fit.Results[i].MPI {
			t.Errorf("row %d: the written machine gives %d/%d cycles, the fit reported %d/%d", i, r.Native, r.MPI, fit.Results[i].Native, fit.Results[i].MPI)
		}
	}
}

// The table scenario files run the thesis machine: their [network],
// [node] and [mpi] sections equal scmp-thesis.toml's, and they check
// (the configuration, and every row's runs).
func TestThesisScenarioFilesMatchMachine(t *testing.T) {
	m := machineScenario(t)
	for _, table := range []string{"5.1", "5.2"} {
		path := "table-" + table + ".toml"
		sc, src, err := scenarios.LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Network != m.Network || sc.Node != m.Node || !reflect.DeepEqual(sc.MPI, m.MPI) {
			t.Errorf("%s: its machine differs from %s (regenerate it from the machine file)", path, MachineName)
		}
		if sc.Workload.Kind != "thesis" || sc.Workload.Table != table {
			t.Errorf("%s: workload %q table %q", path, sc.Workload.Kind, sc.Workload.Table)
		}
		if err := sc.CheckConfig(src); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		rows, err := WorkloadRows(&sc)
		if err == nil {
			err = Check(&sc, src, rows)
		}
		if err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}
