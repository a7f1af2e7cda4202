package scenarios_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"nocsim/config"
	"nocsim/scenarios"
)

// decode decodes a scenario from text under a recognisable file name.
func decode(t *testing.T, name, text string) (scenarios.Scenario, scenarios.Source) {
	t.Helper()
	sc, src, err := scenarios.Decode(strings.NewReader(text), name)
	if err != nil {
		t.Fatalf("Decode(%s): %v\n%s", name, err, text)
	}
	return sc, src
}

func keyNames(keys []config.Key) []string {
	var names []string
	for _, k := range keys {
		names = append(names, k.Name)
	}
	return names
}

func TestLoadEmbeddedDefault(t *testing.T) {
	sc, src, err := scenarios.Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if src == nil {
		t.Fatal("Load returned a nil Source")
	}
	pts, err := sc.NocPoints(src)
	if err != nil {
		t.Fatalf("embedded default scenario does not validate: %v", err)
	}
	if want := len(sc.Noc.Traffic) * len(sc.Noc.Rates); len(pts) != want || want == 0 {
		t.Fatalf("NocPoints gave %d points, want %d (traffic x rates) and > 0", len(pts), want)
	}
	for i := range pts {
		if err := pts[i].Validate(); err != nil {
			t.Errorf("point %d: %v", i, err)
		}
	}
	// The file sets its keys, so Source must say they come from it.
	if got := src("network", "mesh"); !strings.Contains(got, "embedded default scenario") {
		t.Errorf("Source(network, mesh) = %q, want it to name the embedded default scenario", got)
	}
}

// Every key written in default.toml is a documented key of its section, and
// the documented keys are exactly what the TOML schema accepts.
func TestEmbeddedDefaultKeysAreKnown(t *testing.T) {
	var raw map[string]any
	if _, err := toml.Decode(scenarios.DefaultTOML(), &raw); err != nil {
		t.Fatalf("default.toml is not TOML: %v", err)
	}
	known := map[string][]string{
		"network": keyNames(scenarios.NetworkKeys()),
		"noc":     keyNames(scenarios.NocKeys),
	}
	for k, v := range raw {
		if k == "name" {
			if _, ok := v.(string); !ok {
				t.Errorf("top-level name is %T, want a string", v)
			}
			continue
		}
		sec, ok := v.(map[string]any)
		if !ok || known[k] == nil {
			t.Errorf("default.toml has unknown top-level key or section %q", k)
			continue
		}
		for key := range sec {
			if !slices.Contains(known[k], key) {
				t.Errorf("default.toml has [%s] %s, which is not a documented key (known: %v)", k, key, known[k])
			}
		}
	}
	if _, ok := raw["network"]; !ok {
		t.Error("default.toml has no [network] section")
	}
	if _, ok := raw["noc"]; !ok {
		t.Error("default.toml has no [noc] section")
	}
}

// Every documented key can be written in a file: a TOML entry of the key's
// default value decodes without an unknown-key error.
func TestDocumentedKeysDecode(t *testing.T) {
	for _, sec := range []struct {
		name string
		keys []config.Key
	}{{"network", scenarios.NetworkKeys()}, {"noc", scenarios.NocKeys}} {
		for _, k := range sec.keys {
			text := fmt.Sprintf("[%s]\n%s = %s\n", sec.name, k.Name, tomlValue[k.Name])
			if _, _, err := scenarios.Decode(strings.NewReader(text), "k.toml"); err != nil {
				t.Errorf("documented key [%s] %s: %v", sec.name, k.Name, err)
			}
		}
	}
}

func TestDefaultsValidate(t *testing.T) {
	sc := scenarios.Defaults()
	pts, err := sc.NocPoints(nil)
	if err != nil {
		t.Fatalf("Defaults() does not validate: %v", err)
	}
	if len(pts) != len(sc.Noc.Traffic)*len(sc.Noc.Rates) {
		t.Fatalf("got %d points for %d traffic x %d rates", len(pts), len(sc.Noc.Traffic), len(sc.Noc.Rates))
	}
	// Defaults returns a fresh value: changing one must not change the next.
	sc.Noc.Rates[0] = 42
	sc.Noc.Traffic[0] = "changed"
	if d := scenarios.Defaults(); d.Noc.Rates[0] == 42 || d.Noc.Traffic[0] == "changed" {
		t.Fatal("Defaults() shares slices between calls")
	}
}

// The Default column of the key tables is what Defaults() holds: setting a
// key to its documented default changes nothing.
func TestKeyDocDefaultsMatchDefaults(t *testing.T) {
	for _, sec := range []struct {
		name string
		keys []config.Key
	}{{"network", scenarios.NetworkKeys()}, {"noc", scenarios.NocKeys}} {
		for _, k := range sec.keys {
			if strings.HasPrefix(k.Default, "(") { // "(none)"
				continue
			}
			sc := scenarios.Defaults()
			if err := sc.Set(sec.name, k.Name, k.Default); err != nil {
				t.Errorf("[%s] %s: documented default %q does not parse: %v", sec.name, k.Name, k.Default, err)
				continue
			}
			if d := scenarios.Defaults(); !reflect.DeepEqual(sc, d) {
				t.Errorf("[%s] %s: documented default %q differs from Defaults()", sec.name, k.Name, k.Default)
			}
		}
	}
}

func TestDecodeUnknownKey(t *testing.T) {
	tests := []struct {
		name, text, key string
	}{
		{"network", "[network]\nvcs = 2\nbogus_key = 1\n", "bogus_key"},
		{"noc", "[noc]\nrates = [0.1]\nratez = [0.1]\n", "ratez"},
		{"top level", "name = \"x\"\ntop_level_typo = 3\n", "top_level_typo"},
		{"section", "[routr]\nvcs = 2\n", "routr"},
		{"router spec name is not a key", "[network]\nRouterSpec = 1\n", "RouterSpec"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, src, err := scenarios.Decode(strings.NewReader(tc.text), "unknown.toml")
			if err == nil {
				t.Fatalf("Decode accepted an unknown key:\n%s", tc.text)
			}
			if !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), "unknown.toml") {
				t.Errorf("error %q does not name the key %q and the file", err, tc.key)
			}
			if src != nil {
				t.Error("Decode returned a Source with an error")
			}
		})
	}
}

// TOML keys are case-sensitive and Set rejects "VCs", so a file's "VCS" or
// "[NOC]" is an unknown key, not a second spelling of a documented one (which
// would also let "vcs = 2" and "VCS = 5" coexist, the last silently winning).
func TestDecodeKeysAreCaseSensitive(t *testing.T) {
	for _, text := range []string{
		"[network]\nVCS = 5\n",
		"[network]\nvcs = 2\nVCS = 5\n",
		"[NOC]\nseed = 5\n",
		"[network]\nMesh = \"4x4\"\n",
		"NAME = \"x\"\n",
	} {
		sc, _, err := scenarios.Decode(strings.NewReader(text), "case.toml")
		if err == nil {
			t.Errorf("%q decoded without error (vcs %d, seed %d, mesh %s, name %q)", text,
				sc.Network.VCs, sc.Noc.Seed, sc.Network.Mesh, sc.Name)
		}
	}
}

func TestDecodeMalformedNamesFile(t *testing.T) {
	tests := map[string]string{
		"unterminated string": "name = \"x\n",
		"missing value":       "[network]\nvcs =\n",
		"bad section":         "[network\nvcs = 2\n",
		"duplicate key":       "[network]\nvcs = 2\nvcs = 3\n",
		"wrong type":          "[network]\nvcs = \"two\"\n",
		"float for int":       "[network]\nvcs = 2.5\n",
		"string for list":     "[noc]\nrates = \"0.1\"\n",
		"binary garbage":      "\x00\xff\xfe",
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := scenarios.Decode(strings.NewReader(text), "dir/broken.toml")
			if err == nil {
				t.Fatalf("Decode accepted malformed TOML %q", text)
			}
			if !strings.HasPrefix(err.Error(), "dir/broken.toml: ") {
				t.Errorf("error %q does not start with the file name", err)
			}
		})
	}
}

func TestDecodeOverridesKeepDefaults(t *testing.T) {
	sc, _ := decode(t, "o.toml", `
name = "override"
[network]
mesh = "4x6"
vcs = 3
niu_queue_flits = 32
[noc]
rates = [0.5]
traffic = ["transpose", "bitcomp"]
seed = 99
`)
	want := scenarios.Defaults()
	want.Name = "override"
	want.Network.Mesh = "4x6"
	want.Network.VCs = 3
	want.Network.QueueFlits = 32
	want.Noc.Rates = []float64{0.5} // replaced, not merged with the default list
	want.Noc.Traffic = []string{"transpose", "bitcomp"}
	want.Noc.Seed = 99
	if !reflect.DeepEqual(sc, want) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", sc, want)
	}

	// An empty file is the defaults.
	empty, _ := decode(t, "empty.toml", "")
	if !reflect.DeepEqual(empty, scenarios.Defaults()) {
		t.Fatalf("empty file decoded to %+v, want Defaults()", empty)
	}
}

func TestDecodeSource(t *testing.T) {
	_, src := decode(t, "cfg/s.toml", "[network]\nvcs = 3\n[noc]\nseed = 7\n")
	tests := []struct {
		section, key string
		fromFile     bool
	}{
		{"network", "vcs", true},
		{"noc", "seed", true},
		{"network", "vc_buf", false},
		{"network", "mesh", false},
		{"noc", "rates", false},
	}
	for _, tc := range tests {
		got := src(tc.section, tc.key)
		entry := fmt.Sprintf("[%s] %s", tc.section, tc.key)
		if !strings.Contains(got, entry) {
			t.Errorf("Source(%s, %s) = %q, does not name %q", tc.section, tc.key, got, entry)
		}
		if file := strings.Contains(got, "cfg/s.toml"); file != tc.fromFile {
			t.Errorf("Source(%s, %s) = %q: names the file = %v, want %v", tc.section, tc.key, got, file, tc.fromFile)
		}
		if def := strings.HasPrefix(got, "default"); def == tc.fromFile {
			t.Errorf("Source(%s, %s) = %q: says default = %v, want %v", tc.section, tc.key, got, def, !tc.fromFile)
		}
	}
}

// tomlValue and flagValue are a representative non-default value per key,
// written as TOML and as flag text. Every key must have one, so a new key
// without a test fails here.
var flagValue = map[string]string{
	"mesh": "4x6", "vcs": "3", "vc_buf": "5", "route_delay": "2", "vc_alloc_delay": "0",
	"switch_alloc_delay": "3", "switch_delay": "2", "link_latency": "4", "credit_delay": "2",
	"link_flits_per_cycle": "2", "inject_flits_per_cycle": "1", "eject_flits_per_cycle": "3", "inject_latency": "2",
	"eject_latency": "5", "niu_queue_flits": "128", "memory_words": "4096",
	"preset": "booksim", "vc_alloc": "lowest", "topology": "bus", "allocator": "islip", "routing": "west_first",
	"traffic": "transpose, bitcomp", "rates": "0.05,0.25, 1.5", "packet_flits": "9",
	"hotspot_nodes": "0,5,23", "hotspot_fraction": "0.25", "warmup_cycles": "17",
	"measure_cycles": "123", "drain_cycles": "0", "watchdog_cycles": "77", "seed": "18446744073",
	"injection": "on_off", "burst_packets": "2.5", "packet_sizes": "1, 5", "packet_size_weights": "0.25,0.75", "reply_flits": "3", "sample_cycles": "250",
}

var tomlValue = map[string]string{
	"mesh": `"4x6"`, "vcs": "3", "vc_buf": "5", "route_delay": "2", "vc_alloc_delay": "0",
	"switch_alloc_delay": "3", "switch_delay": "2", "link_latency": "4", "credit_delay": "2",
	"link_flits_per_cycle": "2", "inject_flits_per_cycle": "1", "eject_flits_per_cycle": "3", "inject_latency": "2",
	"eject_latency": "5", "niu_queue_flits": "128", "memory_words": "4096",
	"preset": `"booksim"`, "vc_alloc": `"lowest"`, "topology": `"bus"`, "allocator": `"islip"`, "routing": `"west_first"`,
	"traffic": `["transpose", "bitcomp"]`, "rates": "[0.05, 0.25, 1.5]", "packet_flits": "9",
	"hotspot_nodes": "[0, 5, 23]", "hotspot_fraction": "0.25", "warmup_cycles": "17",
	"measure_cycles": "123", "drain_cycles": "0", "watchdog_cycles": "77", "seed": "18446744073",
	"injection": `"on_off"`, "burst_packets": "2.5", "packet_sizes": "[1, 5]", "packet_size_weights": "[0.25, 0.75]", "reply_flits": "3", "sample_cycles": "250",
}

func allKeys() []struct{ section, key string } {
	var ks []struct{ section, key string }
	for _, k := range scenarios.NetworkKeys() {
		ks = append(ks, struct{ section, key string }{"network", k.Name})
	}
	for _, k := range scenarios.NocKeys {
		ks = append(ks, struct{ section, key string }{"noc", k.Name})
	}
	return ks
}

// Set from flag text and Decode of the equivalent TOML entry produce the same
// scenario, and the value really lands (it differs from the default).
func TestSetEveryKeyAgreesWithDecode(t *testing.T) {
	ks := allKeys()
	if len(ks) != len(flagValue) {
		t.Errorf("%d documented keys but %d test values: keep the tables in step", len(ks), len(flagValue))
	}
	for _, k := range ks {
		t.Run(k.key, func(t *testing.T) {
			text, ok1 := flagValue[k.key]
			tv, ok2 := tomlValue[k.key]
			if !ok1 || !ok2 {
				t.Fatalf("no test value for key [%s] %s", k.section, k.key)
			}
			set := scenarios.Defaults()
			if err := set.Set(k.section, k.key, text); err != nil {
				t.Fatalf("Set(%s, %s, %q): %v", k.section, k.key, text, err)
			}
			if reflect.DeepEqual(set, scenarios.Defaults()) {
				t.Fatalf("Set(%s, %s, %q) left the scenario unchanged", k.section, k.key, text)
			}
			dec, src := decode(t, "k.toml", fmt.Sprintf("[%s]\n%s = %s\n", k.section, k.key, tv))
			if !reflect.DeepEqual(set, dec) {
				t.Fatalf("Set gave\n%+v\nDecode gave\n%+v", set, dec)
			}
			if got := src(k.section, k.key); !strings.Contains(got, "k.toml") {
				t.Errorf("Source(%s, %s) = %q, want the file", k.section, k.key, got)
			}
		})
	}
}

// The largest allowed seed (TOML integers are signed 64-bit) survives a
// trip through a scenario file; one more is refused when set from a flag.
func TestLargestSeedRoundTrips(t *testing.T) {
	const big = "9223372036854775807"
	set := scenarios.Defaults()
	if err := set.Set("noc", "seed", big); err != nil {
		t.Fatalf("Set(noc, seed, %s): %v", big, err)
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(set); err != nil {
		t.Fatal(err)
	}
	dec, _, err := scenarios.Decode(&b, "seed.toml")
	if err != nil {
		t.Fatalf("seed %s cannot be read back from TOML: %v", big, err)
	}
	if dec.Noc.Seed != set.Noc.Seed {
		t.Fatalf("seed %d read back as %d", set.Noc.Seed, dec.Noc.Seed)
	}
	var ke *config.KeyError
	if err := set.Set("noc", "seed", "9223372036854775808"); !errors.As(err, &ke) || ke.Key != "seed" {
		t.Fatalf("Set(noc, seed, 2^63) = %v, want a KeyError naming seed", err)
	}
}

// A negative seed is refused before anything runs, whether it comes from a
// file or a flag, and the error names the key.
func TestNegativeSeedRejected(t *testing.T) {
	for _, v := range []string{"-1", "-2", "-9223372036854775808"} {
		sc, src, err := scenarios.Decode(strings.NewReader("[noc]\nseed = "+v+"\n"), "seed.toml")
		if err != nil {
			t.Fatalf("seed = %s: %v", v, err)
		}
		if _, err := sc.NocPoints(src); err == nil || !strings.Contains(err.Error(), "seed") {
			t.Errorf("seed = %s in a file: NocPoints error %v, want one naming seed", v, err)
		}
		flag := scenarios.Defaults()
		if err := flag.Set("noc", "seed", v); err != nil {
			t.Fatalf("Set(noc, seed, %s): %v", v, err)
		}
		if _, err := flag.NocPoints(nil); err == nil || !strings.Contains(err.Error(), "seed") {
			t.Errorf("seed %s from a flag: NocPoints error %v, want one naming seed", v, err)
		}
	}
}

func TestSetBadText(t *testing.T) {
	tests := []struct {
		section, key, text string
	}{
		{"network", "vcs", "two"},
		{"network", "vcs", "1.5"},
		{"network", "vcs", ""},
		{"network", "vcs", "99999999999999999999"},
		{"network", "link_latency", "1e3"},
		{"network", "memory_words", "0x10"},
		{"noc", "measure_cycles", "1.5"},
		{"noc", "warmup_cycles", "abc"},
		{"noc", "seed", "1.5"},
		{"noc", "packet_flits", "5 flits"},
		{"noc", "hotspot_fraction", "NaN"},
		{"noc", "hotspot_fraction", "Inf"},
		{"noc", "hotspot_fraction", "-Inf"},
		{"noc", "hotspot_fraction", "half"},
		{"noc", "rates", "0.1,NaN"},
		{"noc", "rates", "0.1,+Inf"},
		{"noc", "rates", "0.1,x"},
		{"noc", "rates", "0.1,,0.2"},
		{"noc", "rates", "0.1,"},
		{"noc", "hotspot_nodes", "1,a"},
		{"noc", "hotspot_nodes", "1,2.5"},
	}
	for _, tc := range tests {
		t.Run(tc.key+"="+tc.text, func(t *testing.T) {
			sc := scenarios.Defaults()
			err := sc.Set(tc.section, tc.key, tc.text)
			var ke *config.KeyError
			if !errors.As(err, &ke) {
				t.Fatalf("Set(%s, %s, %q) = %v, want a *config.KeyError", tc.section, tc.key, tc.text, err)
			}
			if ke.Key != tc.key || ke.Allowed == "" {
				t.Errorf("KeyError %+v: want Key %q and a non-empty Allowed", ke, tc.key)
			}
			if !strings.Contains(err.Error(), tc.key) {
				t.Errorf("error %q does not name %q", err, tc.key)
			}
			if !reflect.DeepEqual(sc, scenarios.Defaults()) {
				t.Errorf("a failed Set changed the scenario: %+v", sc)
			}
		})
	}
}

func TestSetUnknownKeyOrSection(t *testing.T) {
	tests := []struct{ section, key string }{
		{"network", "bogus"},
		{"noc", "vcs"},      // a network key in the wrong section
		{"network", "seed"}, // a noc key in the wrong section
		{"router", "vcs"},
		{"", "vcs"},
		{"network", ""},
		{"network", "VCs"},
	}
	for _, tc := range tests {
		sc := scenarios.Defaults()
		err := sc.Set(tc.section, tc.key, "1")
		if err == nil {
			t.Errorf("Set(%q, %q, 1) succeeded", tc.section, tc.key)
			continue
		}
		if !reflect.DeepEqual(sc, scenarios.Defaults()) {
			t.Errorf("Set(%q, %q) changed the scenario", tc.section, tc.key)
		}
	}
}

func TestSetListParsing(t *testing.T) {
	sc := scenarios.Defaults()
	for _, c := range []struct{ key, text string }{
		{"rates", " 0.1 , 0.2,0.3 "}, {"traffic", "uniform , transpose"}, {"hotspot_nodes", ""},
	} {
		if err := sc.Set("noc", c.key, c.text); err != nil {
			t.Fatalf("Set(noc, %s, %q): %v", c.key, c.text, err)
		}
	}
	if want := []float64{0.1, 0.2, 0.3}; !slices.Equal(sc.Noc.Rates, want) {
		t.Errorf("rates = %v, want %v", sc.Noc.Rates, want)
	}
	if want := []string{"uniform", "transpose"}; !slices.Equal(sc.Noc.Traffic, want) {
		t.Errorf("traffic = %q, want %q", sc.Noc.Traffic, want)
	}
	if len(sc.Noc.HotspotNodes) != 0 {
		t.Errorf("hotspot_nodes = %v, want empty", sc.Noc.HotspotNodes)
	}
}

func TestParseMesh(t *testing.T) {
	tests := []struct {
		in   string
		w, h int
		ok   bool
	}{
		{"8x8", 8, 8, true},
		{"4x3", 4, 3, true},
		{" 16X2 ", 16, 2, true},
		{"1x1", 1, 1, true},
		{"256x256", 256, 256, true},
		{"0x4", 0, 0, false},
		{"4x0", 0, 0, false},
		{"8by8", 0, 0, false},
		{"300x2", 0, 0, false},
		{"2x257", 0, 0, false},
		{"-1x4", 0, 0, false},
		{"x", 0, 0, false},
		{"8x8x8", 0, 0, false},
		{"", 0, 0, false},
		{"8", 0, 0, false},
	}
	for _, tc := range tests {
		m, err := scenarios.ParseMesh(tc.in)
		if tc.ok {
			if err != nil || m.W != tc.w || m.H != tc.h {
				t.Errorf("ParseMesh(%q) = %v, %v; want %dx%d", tc.in, m, err, tc.w, tc.h)
			}
			continue
		}
		var ke *config.KeyError
		if !errors.As(err, &ke) || ke.Key != "mesh" {
			t.Errorf("ParseMesh(%q) = %v, %v; want a KeyError for mesh", tc.in, m, err)
		}
	}
}

func TestWriteFileWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	want := strings.Repeat("a,b,c\n", 10000)
	if err := scenarios.WriteFile(path, func(b *bytes.Buffer) error { b.WriteString(want); return nil }); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Fatalf("read back %d bytes (%v), want %d", len(got), err, len(want))
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Fatalf("directory holds %d entries, want only the output", len(es))
	}
	// Overwriting replaces the file.
	if err := scenarios.WriteFile(path, func(b *bytes.Buffer) error { b.WriteString("new\n"); return nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new\n" {
		t.Fatalf("overwrite left %q", got)
	}
}

func TestWriteFileFillErrorCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	boom := errors.New("boom")
	err := scenarios.WriteFile(path, func(b *bytes.Buffer) error { b.WriteString("partial"); return boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Fatalf("WriteFile = %v, want the fill error, naming %s", err, path)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Fatalf("a failed fill left %d entries in the directory", len(es))
	}
	// An existing file is left as it was.
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := scenarios.WriteFile(path, func(b *bytes.Buffer) error { b.WriteString("partial"); return boom }); err == nil {
		t.Fatal("WriteFile succeeded after a fill error")
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Fatalf("a failed fill changed the existing file to %q", got)
	}
	// A directory that does not exist is an error, not a panic.
	if err := scenarios.WriteFile(filepath.Join(dir, "no", "such", "f"), func(b *bytes.Buffer) error { return nil }); err == nil {
		t.Fatal("WriteFile into a missing directory succeeded")
	}
}
