package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// calibrateJSON runs calibrate with --json and decodes its report.
func calibrateJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, stderr := nocsim(t, append(append([]string{"calibrate"}, args...), "--json", "--quiet")...)
	if code != 0 {
		t.Fatalf("calibrate %v: exit %d: %s", args, code, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("calibrate %v: %v", args, err)
	}
	return rep
}

// The CSV that calibrate --save-csv writes fits as the chip did (issue 30
// item 5: it found 1 segment, O = 0 and a 41.7% worst error against 2
// segments and 0%): the same segments with the same L, L_per_hop, o_s,
// o_r, g, G, O and handshake legs, the same residuals, R² and warnings.
// Only the provenance differs, by design: a CSV fit records its file and
// no mesh, protocol, P or average hop count. Under scmp the handshake is
// fitted (handshake and cooperative true), under eager it is not, and
// with preempt_threads cooperative is false: each value must survive the
// file.
func TestCalibrateFromSavedCSVMatchesDirectFit(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"scmp", []string{"--protocol", "scmp"}},
		{"eager", []string{"--protocol", "eager"}},
		{"scmp preempt", []string{"--protocol", "scmp", "--preempt-threads=true"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			csv := filepath.Join(t.TempDir(), "m.csv")
			direct := calibrateJSON(t, append([]string{"--mesh", "2x2", "--save-csv", csv}, c.args...)...)
			fromCSV := calibrateJSON(t, "--csv", csv)
			dp, cp := direct["params"].(map[string]any), fromCSV["params"].(map[string]any)
			if dp["source"] != "simulator" || cp["source"] != "csv:"+csv {
				t.Errorf("sources %v and %v, want simulator and csv:%s", dp["source"], cp["source"], csv)
			}
			// So does energy: the chip's pricing, which a CSV of times
			// does not hold.
			for _, k := range []string{"source", "mesh", "protocol", "P", "avg_hops", "energy"} {
				delete(dp, k)
				delete(cp, k)
			}
			// And each residual's energy beside its time, measured on
			// the chip.
			for _, m := range []map[string]any{direct, fromCSV} {
				segs, _ := m["segments"].([]any)
				for _, seg := range segs {
					rs, _ := seg.(map[string]any)["residuals"].([]any)
					for _, r := range rs {
						for _, k := range []string{"measured_energy_per_message_pj", "predicted_energy_per_message_pj", "energy_rel_err_fraction"} {
							delete(r.(map[string]any), k)
						}
					}
				}
			}
			if !reflect.DeepEqual(direct, fromCSV) {
				a, _ := json.MarshalIndent(direct, "", " ")
				b, _ := json.MarshalIndent(fromCSV, "", " ")
				t.Errorf("the fit from the saved CSV differs from the direct fit:\n%s", firstDiff(string(a), string(b)))
			}
			// Not two degenerate fits alike: the direct fit splits at the
			// protocol switch and fits O from the odd sizes.
			segs := dp["segments"].([]any)
			if len(segs) < 2 {
				t.Fatalf("direct fit: %d segment(s), want the protocol switch to split them", len(segs))
			}
			if o := segs[len(segs)-1].(map[string]any)["O"].(float64); o <= 0 {
				t.Errorf("direct fit: O = %v cycles/byte, want the odd sizes' copy cost", o)
			}
		})
	}
}

// firstDiff shows where two texts first differ, a few lines around it.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return "direct:   " + la[i] + "\nfrom CSV: " + lb[i]
		}
	}
	return "one report is longer"
}

// A CSV without the machine columns (a real machine's, or one saved before
// they existed) is still read; the fit takes the documented fallbacks and
// says so in one warning on stderr naming each column and its value.
func TestCalibrateCSVWithoutMachineColumns(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "m.csv")
	calibrateJSON(t, "--mesh", "2x2", "--save-csv", full)
	b, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	var old []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		old = append(old, strings.Join(strings.Split(line, ",")[:6], ","))
	}
	if old[0] != "kind,bytes,hops,n,delay_cycles,cycles" {
		t.Fatalf("header %q: want the six measurement columns first", old[0])
	}
	oldCSV := filepath.Join(dir, "old.csv")
	if err := os.WriteFile(oldCSV, []byte(strings.Join(old, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := nocsim(t, "calibrate", "--csv", oldCSV, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 {
		t.Errorf("stderr has %d lines, want one warning:\n%s", len(lines), stderr)
	}
	for _, w := range []string{"warning", oldCSV, "word_bytes = 0", "handshake = false", "cooperative = false"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("warning %q does not say %q", stderr, w)
		}
	}
	var rep struct {
		Params struct {
			Word        int  `json:"word_bytes"`
			Cooperative bool `json:"cooperative"`
			Segments    []struct {
				Handshake bool `json:"handshake"`
			} `json:"segments"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Params.Word != 0 || rep.Params.Cooperative {
		t.Errorf("word_bytes %d, cooperative %v: want the fallbacks 0 and false", rep.Params.Word, rep.Params.Cooperative)
	}
	for i, s := range rep.Params.Segments {
		if s.Handshake {
			t.Errorf("segment %d has a handshake: without the column none is fitted", i)
		}
	}
	// A file that says two machines is refused with its line and column.
	mixed := filepath.Join(dir, "mixed.csv")
	text := "kind,bytes,hops,n,delay_cycles,cycles,word_bytes\nrtt,8,1,1,0,408,4\nrtt,16,1,1,0,408,8\n"
	if err := os.WriteFile(mixed, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = nocsim(t, "calibrate", "--csv", mixed)
	if code != 2 || out != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 ||
		!strings.Contains(stderr, "--csv "+mixed) || !strings.Contains(stderr, "line 3, column 7 (word_bytes)") || !strings.Contains(stderr, "line 2 says 4") {
		t.Errorf("mixed word_bytes: exit %d, stdout %q, stderr %q; want exit 2 and one line naming line 3, column 7 (word_bytes) and line 2's value", code, out, stderr)
	}
}
