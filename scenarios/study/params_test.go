package study

import (
	"encoding/json"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A scenario file's [workload] params predicts every MPI run of an app
// workload on the LogGOPS tier, as app --params does: the results carry
// the tier's time and error for MPI rows (and only those), and tier.png is
// drawn. Parameters of another protocol are refused by the check.
func TestScenarioAppParams(t *testing.T) {
	dir := t.TempDir()
	shipped, err := os.ReadFile(filepath.Join("..", "examples", "params", "4x4-scmp.toml")) // 4x4, scmp, as calibrate writes it
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.toml"), shipped, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "cg.toml")
	text := "[network]\nmesh = \"4x4\"\n[workload]\nkind = \"app\"\napp = \"cg\"\nprocs = [1, 4]\nsizes = [32]\nparams = \"p.toml\"\n[output]\ndir = \"out\"\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, src, err := scenarios.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(&sc, src); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(&sc, src, scenarios.BuildProvenance("test", nil), scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "out", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		tier, has := r["tier_cycles"].(float64)
		if mpi := r["version"] == "mpi"; mpi != has {
			t.Errorf("%v P=%v: tier_cycles present %v, want it on MPI rows only", r["version"], r["procs"], has)
		} else if mpi && !(tier > 0) {
			t.Errorf("MPI P=%v: tier_cycles %v", r["procs"], tier)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "tier.png")); err != nil {
		t.Errorf("tier.png not written: %v (files %v)", err, sum.Files)
	}

	other := strings.Replace(text, "[network]", "[mpi]\nprotocol = \"eager\"\n[network]", 1)
	if err := os.WriteFile(file, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, src, err = scenarios.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(&sc, src); err == nil || !strings.Contains(err.Error(), "[workload] params") || !strings.Contains(err.Error(), "protocol") {
		t.Errorf("eager run with scmp parameters: check gave %v, want a [workload] params protocol error", err)
	}
}

// A coll workload on the LogGOPS tier from a scenario file: with L = 6,
// o = 2, g = 4 and 1-byte (eager) messages the generated binomial
// broadcast at P = 8 takes LogGOPSim's 30 cycles and the flat one 34; a
// sweep over workload.procs reaches far past the 4x4 mesh.
func TestScenarioCollOnTier(t *testing.T) {
	dir := t.TempDir()
	params := "P = 8\nprotocol = \"eager\"\nclock_hz = 1e9\navg_hops = 0\nsource = \"csv:hand\"\n\n[[segment]]\n  max_bytes = 0\n  L = 6\n  L_per_hop = 0\n  o_s = 2\n  o_r = 2\n  g = 4\n  G = 0\n"
	if err := os.WriteFile(filepath.Join(dir, "p.toml"), []byte(params), 0o644); err != nil {
		t.Fatal(err)
	}
	body := "[network]\nmesh = \"4x4\"\n[workload]\nkind = \"coll\"\ntier = \"loggops\"\nop = \"bcast\"\nalgs = [\"binomial\", \"flat\"]\nsizes = [1]\nparams = \"p.toml\"\n"
	file := filepath.Join(dir, "t.toml")
	if err := os.WriteFile(file, []byte(body+"procs = [8]\n[output]\ndir = \"out\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, src, err := scenarios.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(&sc, src); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(&sc, src, scenarios.BuildProvenance("test", nil), scenarios.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	var rows []report.TierRow
	data, err := os.ReadFile(filepath.Join(dir, "out", "results.json"))
	if err == nil {
		err = json.Unmarshal(data, &rows)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"binomial": 30, "flat": 34}
	for _, r := range rows {
		if r.Cycles != want[r.Algorithm] {
			t.Errorf("%s P=%d: %v cycles, want %v (LogGOPSim)", r.Algorithm, r.Procs, r.Cycles, want[r.Algorithm])
		}
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "tier.png")); err != nil {
		t.Error(err)
	}

	// A sweep past the mesh: procs 8, 4096 and 65536 on a 4x4 chip.
	sweep := filepath.Join(dir, "s.toml")
	binomial := strings.Replace(body, `algs = ["binomial", "flat"]`, `algs = ["binomial"]`, 1)
	if err := os.WriteFile(sweep, []byte(binomial+"procs = [8]\n[output]\ndir = \"sw\"\n[[sweep.axis]]\nkey = \"workload.procs\"\nvalues = [8, 4096, 65536]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, src, err = scenarios.LoadFile(sweep)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(&sc, src); err != nil {
		t.Fatal(err)
	}
	set, scs, err := sc.SweepScenarios(src, checkWorkload)
	if err != nil {
		t.Fatal(err)
	}
	if len(scs) != 3 {
		t.Fatalf("%d sweep points, want 3", len(scs))
	}
	for i := range scs {
		if _, _, err := WorkloadRows(&scs[i]); err != nil {
			t.Errorf("point %v: %v", set[i].Settings, err)
		}
	}

	// Without parameters the tier cannot run: refused by the check.
	if err := os.WriteFile(file, []byte(strings.Replace(body, "params = \"p.toml\"\n", "", 1)+"procs = [8]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, src, err = scenarios.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(&sc, src); err == nil || !strings.Contains(err.Error(), "params") {
		t.Errorf("tier without params: check gave %v", err)
	}
}
