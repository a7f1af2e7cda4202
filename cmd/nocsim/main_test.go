package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// nocsim runs the CLI in-process and returns its exit status and output.
func nocsim(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(append([]string{"nocsim"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// small is a 4x4 sweep that runs in a few milliseconds.
var small = []string{"--mesh", "4x4", "--rates", "0.05,0.1", "--measure-cycles", "1000", "--warmup-cycles", "200"}

func nocArgs(extra ...string) []string {
	return append(append([]string{"noc"}, small...), extra...)
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	unknownKey := filepath.Join(dir, "unknown.toml")
	if err := os.WriteFile(unknownKey, []byte("[network]\nvcs = 2\nvcz = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	malformed := filepath.Join(dir, "malformed.toml")
	if err := os.WriteFile(malformed, []byte("[network\nvcs = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	invalid := filepath.Join(dir, "invalid.toml")
	if err := os.WriteFile(invalid, []byte("[network]\nvc_buf = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		names []string // all must appear in the message
	}{
		{"mesh 0x4", []string{"noc", "--mesh", "0x4"}, []string{"--mesh", "0x4"}},
		{"mesh 8by8", []string{"noc", "--mesh", "8by8"}, []string{"--mesh"}},
		{"rates -1", []string{"noc", "--rates", "-1"}, []string{"--rates", "allowed"}},
		{"rates 5", []string{"noc", "--rates", "5"}, []string{"--rates", "allowed"}},
		{"rates not a number", []string{"noc", "--rates", "0.1,abc"}, []string{"--rates"}},
		{"rates NaN", []string{"noc", "--rates", "NaN"}, []string{"--rates"}},
		{"vcs 0", []string{"noc", "--vcs", "0"}, []string{"--vcs", "1..12"}},
		{"vcs 1.5", []string{"noc", "--vcs", "1.5"}, []string{"--vcs"}},
		{"traffic nope", []string{"noc", "--traffic", "nope"}, []string{"--traffic", "nope", "uniform"}},
		{"transpose on 4x3", []string{"noc", "--mesh", "4x3", "--traffic", "transpose"}, []string{"--traffic", "square"}},
		{"packet-flits 1000", []string{"noc", "--packet-flits", "1000"}, []string{"--packet-flits", "1..64"}},
		{"measure-cycles 0", []string{"noc", "--measure-cycles", "0"}, []string{"--measure-cycles"}},
		{"hotspot without nodes", []string{"noc", "--traffic", "hotspot"}, []string{"hotspot"}},
		{"unknown flag", []string{"noc", "--frobnicate"}, []string{"frobnicate"}},
		{"unknown top-level flag", []string{"--frobnicate"}, []string{"frobnicate"}},
		{"plot out.jpg", []string{"noc", "--plot", "out.jpg"}, []string{"--plot", ".jpg"}},
		{"missing config", []string{"noc", "--config", filepath.Join(dir, "missing.toml")}, []string{"--config", "missing.toml"}},
		{"config with unknown key", []string{"noc", "--config", unknownKey}, []string{"unknown.toml", "vcz"}},
		{"malformed config", []string{"noc", "--config", malformed}, []string{"malformed.toml"}},
		{"invalid config value", []string{"noc", "--config", invalid}, []string{"invalid.toml", "vc_buf"}},
		{"unknown command", []string{"frobnicate"}, []string{"frobnicate"}},
		{"noc with an argument", []string{"noc", "extra"}, []string{"extra"}},
		{"injection poisson", []string{"noc", "--injection", "poisson"}, []string{"--injection", "poisson", "bernoulli, on_off"}},
		{"on_off without burst", []string{"noc", "--injection", "on_off"}, []string{"burst_packets", "1..1e6"}},
		{"on_off rate too high", []string{"noc", "--injection", "on_off", "--burst-packets", "1", "--rates", "1.5"}, []string{"--rates = 1.5", "on_off", "burst_packets 1"}},
		{"burst-packets not a number", []string{"noc", "--burst-packets", "many"}, []string{"--burst-packets", "a finite number"}},
		{"packet-sizes 0", []string{"noc", "--packet-sizes", "0,5"}, []string{"--packet-sizes = 0", "1..64"}},
		{"weights of another length", []string{"noc", "--packet-sizes", "1,5", "--packet-size-weights", "1"}, []string{"--packet-size-weights", "one weight per"}},
		{"reply-flits 100", []string{"noc", "--reply-flits", "100"}, []string{"--reply-flits = 100", "1..64"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if args[0] == "noc" {
				args = append(slices.Clone(args), "--quiet")
			}
			code, stdout, stderr := nocsim(t, args...)
			if code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout not empty: %q", stdout)
			}
			if !strings.HasPrefix(stderr, "nocsim:") || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr is not one line starting with \"nocsim:\": %q", stderr)
			}
			for _, n := range tc.names {
				if !strings.Contains(stderr, n) {
					t.Errorf("stderr %q does not name %q", stderr, n)
				}
			}
		})
	}
}

var wantKeys = []string{"traffic", "offered_flits_per_node_cycle", "accepted_flits_per_node_cycle", "avg_packet_latency_cycles", "avg_network_latency_cycles",
	"p99_packet_latency_cycles", "zero_load_latency_cycles", "avg_hops", "saturated", "cycles", "wall_seconds",
	"sim_cycles_per_second", "flit_hops_per_second"}

func decodeJSON(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.UseNumber()
	if err := dec.Decode(&rows); err != nil {
		t.Fatalf("stdout is not a JSON array: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Fatalf("stdout has more than one JSON value:\n%s", stdout)
	}
	return rows
}

func TestNocJSON(t *testing.T) {
	code, stdout, stderr := nocsim(t, nocArgs("--json", "--quiet")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := decodeJSON(t, stdout)
	if len(rows) != 2 {
		t.Fatalf("%d objects, want one per rate (2)", len(rows))
	}
	for i, r := range rows {
		for _, k := range wantKeys {
			if _, ok := r[k]; !ok {
				t.Errorf("object %d has no key %q", i, k)
			}
		}
		if r["traffic"] != "uniform" || r["mesh"] != "4x4" {
			t.Errorf("object %d: traffic %v mesh %v", i, r["traffic"], r["mesh"])
		}
	}
	if rows[0]["offered_flits_per_node_cycle"].(json.Number).String() != "0.05" || rows[1]["offered_flits_per_node_cycle"].(json.Number).String() != "0.1" {
		t.Errorf("offered rates %v, %v: not in the order given", rows[0]["offered_flits_per_node_cycle"], rows[1]["offered_flits_per_node_cycle"])
	}
	// Exactly the keys of a NocRow, in order, in the first object.
	var keys []string
	dec := json.NewDecoder(strings.NewReader(stdout))
	depth := 0
scan:
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			continue
		case json.Delim('}'), json.Delim(']'):
			depth--
			if depth == 1 {
				break scan // the first object is complete
			}
			continue
		}
		if s, ok := tok.(string); ok && depth == 2 {
			keys = append(keys, s)
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil { // its value, lists whole
				t.Fatalf("value of %s: %v", s, err)
			}
		}
	}
	var want []string
	typ := reflect.TypeFor[report.NocRow]()
	for i := 0; i < typ.NumField(); i++ {
		// Columns of bursts, size mixes and replies are left out of a
		// Bernoulli one-way row (omitempty); packet_flits is there, and
		// so is energy under the default model (dsent), and routers on
		// a mesh (not on a bus).
		tag, opts, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if opts == "omitempty" && tag != "packet_flits" && tag != "energy" && tag != "routers" {
			continue
		}
		want = append(want, tag)
	}
	if !slices.Equal(keys, want) {
		t.Errorf("first object's keys\n%q\nwant\n%q", keys, want)
	}
}

// withoutWallClock re-encodes the JSON output without the columns that
// depend on the machine.
func withoutWallClock(t *testing.T, stdout string) string {
	t.Helper()
	rows := decodeJSON(t, stdout)
	for _, r := range rows {
		for _, k := range []string{"wall_seconds", "sim_cycles_per_second", "events_per_second", "flit_hops_per_second"} {
			if _, ok := r[k]; !ok {
				t.Fatalf("no %s in output", k)
			}
			delete(r, k)
		}
	}
	b, err := json.MarshalIndent(rows, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNocJSONReproducible(t *testing.T) {
	args := nocArgs("--json", "--quiet", "--traffic", "uniform,transpose")
	var outs []string
	for _, extra := range [][]string{nil, nil, {"--workers", "1"}, {"--workers", "2"}, {"--workers", "7"}} {
		code, stdout, stderr := nocsim(t, append(slices.Clone(args), extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		outs = append(outs, withoutWallClock(t, stdout))
	}
	for i, o := range outs[1:] {
		if o != outs[0] {
			t.Errorf("run %d differs from run 0 once wall-clock columns are removed", i+1)
		}
	}
	if !strings.Contains(outs[0], "transpose") || !strings.Contains(outs[0], "delivered_packets") {
		t.Fatalf("unexpected output: %s", outs[0])
	}
}

func TestNocCSVAndPlot(t *testing.T) {
	dir := t.TempDir()
	csvPath, plotPath := filepath.Join(dir, "out.csv"), filepath.Join(dir, "out.png")
	code, stdout, stderr := nocsim(t, nocArgs("--quiet", "--csv", csvPath, "--plot", plotPath)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "saturated") {
		t.Errorf("no table on stdout: %q", stdout)
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("CSV does not parse: %v", err)
	}
	if len(recs) != 3 || recs[0][0] != "mesh" || recs[1][0] != "4x4" {
		t.Fatalf("CSV has %d records, header %q", len(recs), recs[0])
	}
	p, err := os.Open(plotPath)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := png.Decode(p); err != nil {
		t.Fatalf("plot is not a PNG: %v", err)
	}
	es, _ := os.ReadDir(dir)
	if len(es) != 2 {
		t.Errorf("%d entries in the output directory, want 2 (no temporary files)", len(es))
	}
}

// --rates 0 is allowed, so asking for its plot must either work or be
// refused before the simulation, not fail after it (exit 1, table printed,
// "plots: chart has no series").
func TestPlotOfZeroRateSweepIsNotARunFailure(t *testing.T) {
	plotPath := filepath.Join(t.TempDir(), "zero.png")
	code, stdout, stderr := nocsim(t, "noc", "--mesh", "4x4", "--rates", "0", "--measure-cycles", "100", "--quiet", "--plot", plotPath)
	switch code {
	case 0:
		if _, err := os.Stat(plotPath); err != nil {
			t.Errorf("exit 0 but no plot: %v", err)
		}
	case 2:
		if stdout != "" {
			t.Errorf("refused, but after simulating: stdout %q", stdout)
		}
	default:
		t.Errorf("exit %d after simulating a valid sweep: %s", code, strings.TrimSpace(stderr))
	}
}

func TestQuietAndProgress(t *testing.T) {
	code, _, stderr := nocsim(t, nocArgs("--quiet")...)
	if code != 0 || stderr != "" {
		t.Errorf("--quiet: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := nocsim(t, nocArgs()...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "points") || !strings.Contains(stderr, "2/2") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
	if strings.Contains(stdout, "points") {
		t.Errorf("progress leaked to stdout: %q", stdout)
	}
	// -q is the short form.
	if code, _, stderr := nocsim(t, nocArgs("-q")...); code != 0 || stderr != "" {
		t.Errorf("-q: exit %d, stderr %q", code, stderr)
	}
}

// `nocsim --quiet noc ...` is accepted, so the global --quiet must not be
// silently ignored by the noc command.
func TestTopLevelQuietSilencesNoc(t *testing.T) {
	args := append([]string{"--quiet"}, nocArgs()...)
	code, _, stderr := nocsim(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("nocsim --quiet noc ...: progress still drawn on stderr: %q", stderr)
	}
}

func TestPrintConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(cfg, []byte("name = \"mine\"\n[network]\nmesh = \"4x4\"\nvc_buf = 6\n[noc]\nrates = [0.1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		config string
		set    [][3]string
	}{
		{"flags", []string{"--vcs", "3", "--traffic", "uniform,bitcomp", "--seed", "42", "--hotspot-nodes", "1,2"}, "",
			[][3]string{{"network", "vcs", "3"}, {"noc", "traffic", "uniform,bitcomp"}, {"noc", "seed", "42"}, {"noc", "hotspot_nodes", "1,2"}}},
		{"defaults", nil, "", nil},
		{"config and flags", []string{"--config", cfg, "--vcs", "3", "--rates", "0.2,0.3"}, cfg,
			[][3]string{{"network", "vcs", "3"}, {"noc", "rates", "0.2,0.3"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := nocsim(t, append([]string{"noc", "--print-config"}, tc.args...)...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			got, _, err := scenarios.Decode(strings.NewReader(stdout), "printed")
			if err != nil {
				t.Fatalf("printed config does not decode: %v\n%s", err, stdout)
			}
			want := scenarios.Defaults()
			if tc.config != "" {
				f, err := os.Open(tc.config)
				if err != nil {
					t.Fatal(err)
				}
				want, _, err = scenarios.Decode(f, tc.config)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
			for _, s := range tc.set {
				if err := want.Set(s[0], s[1], s[2]); err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("printed config decodes to\n%+v\nwant the effective scenario\n%+v", got, want)
			}
			if tc.name == "flags" && got.Network.VCs != 3 {
				t.Errorf("--vcs 3 printed as vcs = %d", got.Network.VCs)
			}
		})
	}
}

// --seed accepts 0..2^64-1 (as documented); the printed config must still be
// a scenario file nocsim can read.
func TestPrintConfigRoundTripsLargeSeed(t *testing.T) {
	if code, _, stderr := nocsim(t, "noc", "--print-config", "--seed", "18446744073709551615"); code != 2 || !strings.Contains(stderr, "--seed") {
		t.Errorf("--seed 2^64-1: exit %d, %q; want exit 2 naming --seed", code, stderr)
	}
	const seed = "9223372036854775807"
	code, stdout, stderr := nocsim(t, "noc", "--print-config", "--seed", seed)
	if code != 0 {
		t.Fatalf("--seed %s --print-config: exit %d, %s", seed, code, stderr)
	}
	cfg := filepath.Join(t.TempDir(), "printed.toml")
	if err := os.WriteFile(cfg, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	code, again, stderr := nocsim(t, "noc", "--print-config", "--config", cfg)
	if code != 0 {
		t.Fatalf("--config of the printed config: exit %d, %s", code, strings.TrimSpace(stderr))
	}
	if again != stdout {
		t.Errorf("re-printed config differs:\n%s\nvs\n%s", again, stdout)
	}
}

// The main job, with no arguments, writes every file and chart its
// summary names, and the summary reports each part of the study.
func TestDefaultAction(t *testing.T) {
	t.Chdir(t.TempDir())
	// An older result (its meta.json says so): replaced whole, so none of
	// its files survive.
	os.Mkdir("nocsim-results", 0o755)
	os.WriteFile(filepath.Join("nocsim-results", "meta.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join("nocsim-results", "stale.json"), []byte("{}"), 0o644)
	code, stdout, stderr := nocsim(t, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join("nocsim-results", "stale.json")); err == nil {
		t.Error("a file of the older result survived")
	}
	if entries, _ := os.ReadDir("."); len(entries) != 1 {
		t.Errorf("the main job left %d entries beside nocsim-results", len(entries)-1)
	}
	var meta scenarios.Meta
	b, _ := os.ReadFile(filepath.Join("nocsim-results", "meta.json"))
	if err := json.Unmarshal(b, &meta); err != nil || meta.Workload != "default study" || meta.NocsimVersion != version ||
		!slices.Equal(meta.CommandLine, []string{"nocsim", "--quiet"}) || meta.Seed != 1 || meta.Date == "" {
		t.Errorf("meta.json %+v (%v)", meta, err)
	}
	if stderr != "" {
		t.Errorf("--quiet, but stderr %q", stderr)
	}
	for _, want := range []string{"network: uniform traffic", "LogGP", "bcast, P=16", "allreduce, P=16", "cg: MPI/native", "qr: MPI/native", "results and charts in nocsim-results"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	files := 0
	for _, l := range strings.Split(stdout, "\n") {
		f := strings.TrimSpace(l)
		if !strings.HasPrefix(f, "nocsim-results/") {
			continue
		}
		files++
		fi, err := os.Stat(f)
		if err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
		if strings.HasSuffix(f, ".png") {
			r, _ := os.Open(f)
			if _, err := png.Decode(r); err != nil {
				t.Errorf("%s: %v", f, err)
			}
			r.Close()
		}
	}
	if files < 10 {
		t.Errorf("the summary names %d files", files)
	}
	// The main job's page, rendered before the directory moved into place,
	// is the page nocsim report renders of the directory in place.
	page := filepath.Join("nocsim-results", "report.html")
	staged, err := os.ReadFile(page)
	if err != nil || !strings.Contains(stdout, "  "+page+"\n") {
		t.Fatalf("the main job wrote no report.html, or its summary does not list it (%v)", err)
	}
	if code, _, stderr := nocsim(t, "report", "nocsim-results"); code != 0 {
		t.Fatalf("report nocsim-results: exit %d: %s", code, stderr)
	}
	if again, _ := os.ReadFile(page); !bytes.Equal(again, staged) {
		t.Error("nocsim report nocsim-results gives other bytes than the main job wrote")
	}
}
