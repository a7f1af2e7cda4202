package main

import (
	"encoding/json"
	"fmt"
	"math"
	"nocsim/scenarios/study"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAppEveryApplication(t *testing.T) {
	for _, c := range []struct{ app, variant, procs, sizes, versions string }{
		{"cg", "", "1,4", "32", "mpi,native"},
		{"qr", "", "1,4", "16", "mpi,native"},
		{"qr", "2d", "1,4", "16", "mpi,native"},
		{"matmul", "1d", "1,4", "16", "mpi,native"},
		{"matmul", "2d", "1,4", "16", "mpi,native"},
		{"globalsum", "serial", "1,4", "64", "mpi,native"},
		{"globalsum", "hypercube", "1,4", "64", "mpi,native"},
	} {
		args := []string{"app", "--mesh", "2x2", "--app", c.app, "--procs", c.procs, "--sizes", c.sizes, "--versions", c.versions, "--json", "--quiet"}
		if c.variant != "" {
			args = append(args, "--variant", c.variant)
		}
		code, out, stderr := nocsim(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatal(err)
		}
		if want := 2 * len(strings.Split(c.versions, ",")); len(rows) != want {
			t.Fatalf("%s: %d rows, want %d (versions x P)", c.app, len(rows), want)
		}
		for _, r := range rows {
			if r["correct"] != true {
				t.Errorf("%s: %v", c.app, r)
			}
			if r["procs"].(float64) == 1 && r["speedup"].(float64) != 1 {
				t.Errorf("%s: the baseline's speedup is %v", c.app, r["speedup"])
			}
			if r["version"] == "mpi" && strings.Contains(c.versions, "native") && !(r["mpi_over_native"].(float64) > 0) {
				t.Errorf("%s: no MPI/native ratio: %v", c.app, r)
			}
		}
	}
}

func TestAppBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--app", "fft"}, "--app"},
		{[]string{"--app", "matmul", "--variant", "3d"}, "--variant"},
		{[]string{"--mesh", "2x2", "--procs", "5"}, "--procs"},
		{[]string{"--versions", "cuda"}, "--versions"},
		{[]string{"--app", "qr", "--variant", "2d", "--versions", "mpi", "--procs", "8"}, "--procs"},
		{[]string{"--sizes", "0"}, "--sizes"},
		{[]string{"--mesh", "4x4", "--app", "matmul", "--variant", "2d", "--procs", "3", "--sizes", "12"}, "--procs"},
		{[]string{"--mesh", "4x4", "--app", "globalsum", "--variant", "breakeven", "--procs", "2,6", "--sizes", "4"}, "--procs"},
		{[]string{"--mesh", "4x4", "--app", "globalsum", "--variant", "serial", "--breakeven-plot", "x.png"}, "--breakeven-plot"},
		{[]string{"--app", "qr", "--nonzeros", "2000"}, "--nonzeros"},
		{[]string{"--app", "cg", "--nonzeros", "2000", "--sizes", "64"}, "--nonzeros"},
		{[]string{"--app", "cg", "--variant", "thesis", "--nonzeros", "2000", "--distribute", "scatter"}, "--distribute"},
		{[]string{"--app", "cg", "--distribute", "alltoall"}, "--distribute"},
		{[]string{"--app", "qr", "--variant", "thesis", "--procs", "4", "--sizes", "8", "--grid", "4x2"}, "--sizes"},
		{[]string{"--app", "qr", "--variant", "thesis", "--procs", "4", "--sizes", "8", "--grid", "2by2"}, "--grid"},
		{[]string{"--app", "qr", "--variant", "1d", "--grid", "2x2"}, "--grid"},
		{[]string{"--mesh", "2x2", "--app", "qr", "--variant", "thesis", "--procs", "4", "--sizes", "1025"}, "--sizes"},
	} {
		code, out, stderr := nocsim(t, append([]string{"app", "--quiet"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.flag) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %s", c.args, code, out, stderr, c.flag)
		}
	}
}

// The breakeven variant runs both methods in both versions; its JSON holds
// the runs and one break-even per size and pairing, each consistent with
// the runs' times; the chart files are written.
func TestAppGlobalSumBreakEven(t *testing.T) {
	dir := t.TempDir()
	args := []string{"app", "--mesh", "4x4", "--app", "globalsum", "--variant", "breakeven", "--procs", "2,4,8,16",
		"--sizes", "16", "--json", "--quiet", "--breakeven-plot", dir + "/be.svg", "--time-plot", dir + "/t.svg"}
	code, out, stderr := nocsim(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Runs []struct {
			Variant, Version string
			Procs, Size      int
			Cycles           int64
		}
		BreakEven []struct {
			Size                int
			SerialVersion       string `json:"serial_version"`
			HypercubeVersion    string `json:"hypercube_version"`
			Status              string
			Procs               float64 `json:"break_even_procs"`
			SerialFasterUpTo    int     `json:"serial_faster_up_to_procs"`
			HypercubeFasterFrom int     `json:"hypercube_faster_from_procs"`
		} `json:"break_even"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2*2*4 || len(res.BreakEven) != 3 {
		t.Fatalf("%d runs and %d break-evens, want 16 and 3", len(res.Runs), len(res.BreakEven))
	}
	cycles := map[string]int64{}
	for _, r := range res.Runs {
		cycles[fmt.Sprintf("%s/%s/%d", r.Variant, r.Version, r.Procs)] = r.Cycles
	}
	at := func(method, version string, p int) int64 {
		return cycles[fmt.Sprintf("%s/%s/%d", method, version, p)]
	}
	for _, b := range res.BreakEven {
		if b.Status != "between" {
			continue
		}
		lo, hi := b.SerialFasterUpTo, b.HypercubeFasterFrom
		if !(at("serial", b.SerialVersion, lo) <= at("hypercube", b.HypercubeVersion, lo) &&
			at("serial", b.SerialVersion, hi) > at("hypercube", b.HypercubeVersion, hi) && b.Procs >= float64(lo) && b.Procs <= float64(hi)) {
			t.Errorf("break-even %+v does not match the runs", b)
		}
	}
	if res.BreakEven[0].SerialVersion != "native" || res.BreakEven[0].HypercubeVersion != "mpi" || res.BreakEven[0].Status != "between" {
		t.Errorf("Radke's pairing first, with a break-even inside P 2..16 at 16 elements: %+v", res.BreakEven[0])
	}
	for _, f := range []string{"be.svg", "t.svg"} {
		if fi, err := os.Stat(dir + "/" + f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// The thesis variants from the command line: CG sized by nonzeros with
// both DistributeP methods (each MPI row with its ratio to the one native
// row), and QR on a given grid.
func TestAppThesisVariants(t *testing.T) {
	code, out, stderr := nocsim(t, "app", "--mesh", "2x2", "--app", "cg", "--variant", "thesis", "--procs", "4",
		"--nonzeros", "1000", "--distribute", "bcast,alltoall", "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	var dists []string
	for _, r := range rows {
		if r["correct"] != true || r["nonzeros"] != 1000.0 || r["size"] != 200.0 {
			t.Errorf("row %v: want correct, nonzeros 1000, size 200 (nonzeros/5)", r)
		}
		if r["version"] == "mpi" {
			dists = append(dists, r["distribute"].(string))
			if !(r["mpi_over_native"].(float64) > 0) {
				t.Errorf("no ratio: %v", r)
			}
		}
	}
	if fmt.Sprint(dists) != "[bcast alltoall]" || len(rows) != 3 {
		t.Errorf("%d rows, MPI DistributeP %v: want 3 rows, [bcast alltoall]", len(rows), dists)
	}
	code, out, stderr = nocsim(t, "app", "--mesh", "3x3", "--app", "qr", "--variant", "thesis", "--procs", "6",
		"--sizes", "10", "--grid", "2x3", "--quiet")
	if code != 0 || strings.Count(out, "true") != 2 {
		t.Errorf("qr thesis on 2x3: exit %d, %s %s", code, out, stderr)
	}
}

// A bad --variant is refused with a message that names every variant of
// the application, CG's unnamed default as "" (not "allowed , thesis"), in
// a flag as in a scenario file.
func TestAppBadVariantNamesEveryVariant(t *testing.T) {
	dir := t.TempDir()
	for app, variants := range study.Apps {
		file := filepath.Join(dir, app+".toml")
		toml := fmt.Sprintf("[network]\nmesh = \"4x4\"\n[workload]\nkind = \"app\"\napp = %q\nvariant = \"nope\"\n", app)
		if err := os.WriteFile(file, []byte(toml), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"app", "--quiet", "--app", app, "--variant", "nope"}, {"validate", file}} {
			code, out, stderr := nocsim(t, args...)
			msg := strings.TrimSuffix(stderr, "\n")
			if code != 2 || out != "" || strings.Contains(msg, "\n") || !strings.Contains(msg, "nope: allowed ") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line \"... = nope: allowed ...\"", args, code, out, stderr)
				continue
			}
			allowed := msg[strings.Index(msg, "allowed "):]
			if strings.Contains(allowed, "allowed ,") || strings.Contains(allowed, ", ,") {
				t.Errorf("%v: an empty name in the list: %q", args, msg)
			}
			for _, v := range variants {
				if v == "" {
					v = `""`
				}
				if !strings.Contains(allowed, v) {
					t.Errorf("%v: %q does not name variant %s", args, msg, v)
				}
			}
		}
	}
}

// The global sum and the halo exchange keep the problem per rank fixed as
// P grows (weak scaling): their rows report the scaled speedup
// P x T(base)/T(P) and the weak-scaling efficiency T(base)/T(P), and the
// table and JSON name them so; a strong-scaled application (matrix
// multiply) keeps base x T(base)/T(P) and speedup / P.
func TestAppWeakScalingNamed(t *testing.T) {
	for _, c := range []struct {
		app, variant, procs string
		weak                bool
	}{
		{"globalsum", "serial", "1,4", true},
		{"halo", "twosided", "2,4", true},
		{"matmul", "1d", "1,4", false},
	} {
		base := []string{"app", "--quiet", "--mesh", "2x2", "--app", c.app, "--variant", c.variant, "--procs", c.procs, "--sizes", "16", "--versions", "mpi"}
		code, out, stderr := nocsim(t, append(base, "--json")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.app, code, stderr)
		}
		var rows []struct {
			Procs         int
			Cycles        float64
			BaselineProcs int `json:"baseline_procs"`
			Speedup       float64
			Efficiency    float64
			Weak          bool `json:"weak_scaling"`
		}
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || rows[0].Procs != rows[0].BaselineProcs {
			t.Fatalf("%s: rows %+v", c.app, rows)
		}
		b := rows[0]
		for _, r := range rows {
			scale := float64(b.Procs)
			if c.weak {
				scale = float64(r.Procs)
			}
			sp := scale * b.Cycles / r.Cycles
			if r.Weak != c.weak || math.Abs(r.Speedup-sp) > 1e-12*sp || math.Abs(r.Efficiency-sp/float64(r.Procs)) > 1e-12 {
				t.Errorf("%s P=%d: weak %v, speedup %v, efficiency %v; want weak %v, %v and %v", c.app, r.Procs, r.Weak, r.Speedup, r.Efficiency, c.weak, sp, sp/float64(r.Procs))
			}
		}
		code, out, stderr = nocsim(t, base...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.app, code, stderr)
		}
		head := strings.SplitN(out, "\n", 2)[0]
		named := strings.Contains(head, "scaled speedup") && strings.Contains(head, "weak-scaling efficiency")
		if named != c.weak || !strings.Contains(head, "speedup") || !strings.Contains(head, "efficiency") {
			t.Errorf("%s: header %q (weak scaling %v)", c.app, head, c.weak)
		}
	}
}
