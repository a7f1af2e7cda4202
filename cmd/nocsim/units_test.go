package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// unitSuffixes are the units a column name may end in (after "_", or as
// the whole name: "cycles", "events"). Counts name what they count.
var unitSuffixes = []string{
	"cycles", "kcycles", "seconds", "bytes", "flits", "hops", "packets", "events", "messages", "procs", "ops",
	"nonzeros", "pct", "fraction", "ratio", "per_second", "per_cpu_second", "flits_per_node_cycle", "flits_per_cycle",
	"cycles_per_byte", "bytes_per_cycle", "pairs", "pj", "mw", "hz", "mm2", "bits",
}

// unitless are the names that carry no unit, each for a reason.
var unitless = map[string]string{
	"mesh":              "a name (WxH)",
	"traffic":           "a pattern's name",
	"injection":         "an injection process's name (bernoulli, on_off)",
	"seed":              "a random seed, an identifier",
	"saturated":         "a flag",
	"saturation_reason": "text",
	"links":             "a list of per-link objects, whose keys are checked themselves",
	"routers":           "a list of per-router objects, whose keys are checked themselves",
	"router":            "an index (router number, row-major from the north-west corner)",
	"from":              "a node or rank number, an identifier",
	"to":                "a node or rank number, an identifier",
	"root":              "a rank number, an identifier",
	"dir":               "a port's name (N/E/S/W)",
	"op":                "a collective's name",
	"algorithm":         "an algorithm's name",
	"chosen_algorithm":  "an algorithm's name",
	"protocol":          "a protocol's name",
	"correct":           "a flag",
	"weak_scaling":      "a flag: speedup and efficiency are the weak-scaling ones",
	"error":             "text",
	"detail":            "text",
	"app":               "an application's name",
	"variant":           "a variant's name",
	"version":           "mpi or native",
	"placement":         "a pair layout's name (neighbor, across)",
	"topology":          "a network's name (mesh, torus, cmesh, ring, ring_uni, bus)",
	"distribute":        "a distribution's name",
	"kind":              "a benchmark's name (calibration CSV)",
	"n":                 "repetitions averaged, a plain count (calibration CSV, a format real measurements are read in)",
	"size":              "an application's problem size, in the app's own measure (vector length, matrix order): README's Applications section says which",
	"speedup":           "dimensionless: a time over a time",
	"efficiency":        "dimensionless: speedup over P",
	"mpi_over_native":   "dimensionless: a time over a time",
	"relative_error":    "dimensionless: (predicted - simulated) / simulated",
	"value":             "a fitted estimate's value: its unit is the enclosing key's (calibrate --json: L_cycles: {value, ci95})",
	"ci95":              "the same estimate's 95% interval half-width, in the enclosing key's unit",
	"warnings":          "text",
	"segments":          "a list of per-segment objects, whose keys are checked themselves",
	"residuals":         "a list of objects, whose keys are checked themselves",
	"handshake":         "an object, whose keys are checked themselves; in the calibration CSV a flag (true/false)",
	"cooperative":       "a flag (true/false): the calibration CSV's machine column",
	"checks":            "a list of objects, whose keys are checked themselves",
	"params":            "a LogGP parameters file's contents (paramsFileKeys)",
	"segment_params":    "a parameters file's segment (paramsFileKeys)",
	"energy":            "an object (a row's energy), whose keys are checked themselves",
	"components":        "a list of an energy breakdown's components, whose keys are checked themselves",
	"name":              "an energy component's name",
	"model":             "an energy model's name",
	"energy_model":      "an energy model's name",
	"tech":              "a technology node's name (45nm)",
	"trace":             "a trace file's name (noc --trace)",
	"benchmark":         "the benchmark a Netrace trace names in its header",
	"dependencies":      "a flag: the replay honoured the trace's dependencies",
	"trace_complete":    "a flag: every packet of the part asked was read (false under --trace-packets)",
	"region":            "a trace region's number, an identifier (0: the whole replay)",
	"regions":           "a list of per-region objects, whose keys are checked themselves",
}

// paramsFileKeys are JSON keys whose subtree is a LogGP parameters file as
// written by calibrate --out: the model's own notation (L, o_s, g, G),
// kept identical to the file so that one reads back as the other; its
// units are documented key by key in docs/logp.md.
var paramsFileKeys = map[string]bool{"params": true, "segment_params": true}

func hasUnit(name string) bool {
	if _, ok := unitless[name]; ok {
		return true
	}
	for _, u := range unitSuffixes {
		if name == u || strings.HasSuffix(name, "_"+u) {
			return true
		}
	}
	return false
}

// jsonKeys collects every object key in a JSON document, at any depth.
func jsonKeys(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			into[k] = true
			if !paramsFileKeys[k] {
				jsonKeys(e, into)
			}
		}
	case []any:
		for _, e := range x {
			jsonKeys(e, into)
		}
	}
}

// Every column of the noc, coll, app, pingpong, pairs and calibrate outputs (JSON
// keys and CSV headers) names its unit, or is a name, flag or ratio listed
// with its reason in unitless.
func TestOutputColumnsNameTheirUnits(t *testing.T) {
	dir := t.TempDir()
	nocCSV, calCSV, pairsCSV := filepath.Join(dir, "noc.csv"), filepath.Join(dir, "cal.csv"), filepath.Join(dir, "pairs.csv")
	traceCSV := filepath.Join(dir, "trace.csv")
	runs := []struct {
		name string
		args []string
		csv  string
	}{
		{"noc", nocArgs("--json", "--quiet", "--csv", nocCSV), nocCSV},
		// Every column of bursts, size mixes and replies appears.
		{"noc traffic", nocArgs("--json", "--quiet", "--injection", "on_off", "--burst-packets", "3", "--packet-sizes", "1,5", "--reply-flits", "2"), ""},
		{"noc trace", []string{"noc", "--mesh", "8x8", "--trace", netraceFile("shrtex.tra.bz2"), "--json", "--quiet", "--csv", traceCSV}, traceCSV},
		{"coll", []string{"coll", "--mesh", "2x2", "--op", "bcast", "--procs", "4", "--sizes", "8", "--json", "--quiet"}, ""},
		{"app", []string{"app", "--mesh", "2x2", "--app", "globalsum", "--procs", "1,4", "--sizes", "64", "--versions", "mpi,native", "--json", "--quiet"}, ""},
		{"pingpong", []string{"pingpong", "--mesh", "2x2", "--from", "0", "--to", "3", "--sizes", "8,1024", "--json", "--quiet"}, ""},
		{"pairs", []string{"pairs", "--mesh", "2x2", "--sizes", "16,64", "--csv", pairsCSV, "--json", "--quiet"}, pairsCSV},
		{"calibrate", []string{"calibrate", "--mesh", "2x2", "--sizes", "8,64,512,4096", "--save-csv", calCSV, "--json", "--quiet"}, calCSV},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			code, out, stderr := nocsim(t, r.args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", r.args, code, stderr)
			}
			keys := map[string]bool{}
			if slices.Contains(r.args, "--json") {
				var v any
				if err := json.Unmarshal([]byte(out), &v); err != nil {
					t.Fatalf("stdout is not JSON: %v", err)
				}
				jsonKeys(v, keys)
			}
			if r.csv != "" {
				f, err := os.Open(r.csv)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				header, err := csv.NewReader(f).Read()
				if err != nil {
					t.Fatalf("%s: %v", r.csv, err)
				}
				for _, h := range header {
					keys[h] = true
				}
			}
			if len(keys) == 0 {
				t.Fatal("no columns found")
			}
			for k := range keys {
				if !hasUnit(k) {
					t.Errorf("column %q names no unit (allowed suffixes %v, or a reasoned entry in unitless)", k, unitSuffixes)
				}
			}
		})
	}
}

// The check itself: names without a unit are caught.
func TestHasUnitRejectsBareNames(t *testing.T) {
	for _, bad := range []string{"avg_packet_latency", "offered_rate", "latency", "vc_stalls", "cycles_x"} {
		if hasUnit(bad) {
			t.Errorf("%q accepted as naming a unit", bad)
		}
	}
	for _, good := range []string{"avg_packet_latency_cycles", "cycles", "size_bytes", "sim_cycles_per_cpu_second"} {
		if !hasUnit(good) {
			t.Errorf("%q rejected", good)
		}
	}
}
