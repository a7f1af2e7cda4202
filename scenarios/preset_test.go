package scenarios_test

import (
	"strings"
	"testing"

	"nocsim/router"
	"nocsim/scenarios"
)

func bookSim(t *testing.T) router.Spec {
	t.Helper()
	s, err := router.Preset(router.PresetBookSim)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A file's preset sets the keys the file does not write; the keys it
// writes win, even when their value is the default preset's.
func TestDecodePreset(t *testing.T) {
	sc, src := decode(t, "p.toml", "[network]\npreset = \"booksim\"\ninject_latency = 1\nvcs = 3\n")
	want := bookSim(t)
	want.InjectLatency, want.VCs = 1, 3
	if sc.Network.Preset != router.PresetBookSim || sc.Network.RouterSpec != want {
		t.Fatalf("decoded preset %q spec %+v, want booksim %+v", sc.Network.Preset, sc.Network.RouterSpec, want)
	}
	for key, from := range map[string]string{"inject_latency": "p.toml: [network] inject_latency",
		"eject_flits_per_cycle": "preset booksim [network] eject_flits_per_cycle", "vc_buf": "default [network] vc_buf"} {
		if got := src("network", key); got != from {
			t.Errorf("source of %s: %q, want %q", key, got, from)
		}
	}
	eff, err := sc.EffectiveTOML(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"inject_latency = 1\n", "inject_flits_per_cycle = 1  # preset booksim\n", "vc_buf = 8  # default\n", "preset = \"booksim\"\n"} {
		if !strings.Contains(eff, line) {
			t.Errorf("effective config lacks %q:\n%s", line, eff)
		}
	}

	// A caller's preset (a flag) replaces the file's, under the file's
	// other keys.
	sc, _, err = scenarios.DecodePreset(strings.NewReader("[network]\npreset = \"scmp\"\nlink_latency = 3\n"), "q.toml", router.PresetBookSim)
	if err != nil {
		t.Fatal(err)
	}
	want = bookSim(t)
	want.LinkLatency = 3
	if sc.Network.Preset != router.PresetBookSim || sc.Network.RouterSpec != want {
		t.Fatalf("flag preset over a file: %q %+v, want booksim %+v", sc.Network.Preset, sc.Network.RouterSpec, want)
	}
}

func TestDecodeBadPreset(t *testing.T) {
	for _, text := range []string{"[network]\npreset = \"noxim\"\n", "[network]\npreset = \"\"\n"} {
		_, _, err := scenarios.Decode(strings.NewReader(text), "bad.toml")
		if err == nil {
			t.Fatalf("%q decoded", text)
		}
		for _, part := range []string{"bad.toml", "[network] preset", "scmp, booksim"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not say %q", err, part)
			}
		}
	}
	_, _, err := scenarios.Decode(strings.NewReader("[network]\npreset = 3\n"), "type.toml")
	if err == nil || !strings.Contains(err.Error(), "type.toml") {
		t.Errorf("preset = 3: error %v", err)
	}
	sc := scenarios.Defaults()
	sc.Network.Preset = "noxim"
	if _, err := sc.NocPoints(nil); err == nil || !strings.Contains(err.Error(), "preset") {
		t.Errorf("NocPoints with preset noxim: error %v", err)
	}
	if err := sc.CheckMachine(nil); err == nil || !strings.Contains(err.Error(), "preset") {
		t.Errorf("CheckMachine with preset noxim: error %v", err)
	}
}

// Set (a sweep axis) switches presets, keeping the keys that differ from
// the preset they were set under.
func TestSetPreset(t *testing.T) {
	sc := scenarios.Defaults()
	for _, kv := range [][2]string{{"vcs", "3"}, {"inject_latency", "5"}, {"preset", "booksim"}} {
		if err := sc.Set("network", kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	want := bookSim(t)
	want.VCs, want.InjectLatency = 3, 5
	if sc.Network.RouterSpec != want || sc.Network.Preset != router.PresetBookSim {
		t.Fatalf("scmp -> booksim: %q %+v, want %+v", sc.Network.Preset, sc.Network.RouterSpec, want)
	}
	if err := sc.Set("network", "preset", "scmp"); err != nil {
		t.Fatal(err)
	}
	want = router.DefaultSpec()
	want.VCs, want.InjectLatency = 3, 5
	if sc.Network.RouterSpec != want {
		t.Fatalf("booksim -> scmp: %+v, want %+v", sc.Network.RouterSpec, want)
	}
	before := sc
	if err := sc.Set("network", "preset", "BookSim"); err == nil || sc.Network != before.Network {
		t.Errorf("Set preset BookSim: error %v, network %+v", err, sc.Network)
	}
}
