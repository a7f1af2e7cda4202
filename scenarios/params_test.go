package scenarios

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureParams is a parameters file as calibrate writes it, for a 4x4
// scmp machine (values of the order calibrate fits there).
const fixtureParams = `P = 16
protocol = "scmp"
clock_hz = 1e9
avg_hops = 2.5
source = "simulator"
mesh = "4x4"
sizes = [8, 64, 1024]
word_bytes = 4

[[segment]]
  max_bytes = 0
  L = 107
  L_per_hop = 15
  o_s = 44
  o_r = 20
  g = 158
  G = 0.25
  O = 0.5
`

// A scenario file's [workload] params predicts every MPI run of an app
// workload on the LogGOPS tier, as app --params does: the results carry
// the tier's time and error for MPI rows (and only those), and tier.png is
// drawn. Parameters of another protocol are refused by the check.
func TestScenarioAppParams(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.toml"), []byte(fixtureParams), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "cg.toml")
	text := "[network]\nmesh = \"4x4\"\n[workload]\nkind = \"app\"\napp = \"cg\"\nprocs = [1, 4]\nsizes = [32]\nparams = \"p.toml\"\n[output]\ndir = \"out\"\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, src, err := LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Check(src); err != nil {
		t.Fatal(err)
	}
	sum, err := sc.Run(src, BuildProvenance("test", nil), RunOptions{})
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
	sc, src, err = LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Check(src); err == nil || !strings.Contains(err.Error(), "[workload] params") || !strings.Contains(err.Error(), "protocol") {
		t.Errorf("eager run with scmp parameters: check gave %v, want a [workload] params protocol error", err)
	}
}
