package scenarios

import (
	"strings"
	"testing"

	"nocsim/router"
)

// flag names a value as the command line does.
func flag(key string) string { return "--" + strings.ReplaceAll(key, "_", "-") }

// Build layers defaults, preset, file and values in that order, and its
// Source names the layer each key came from.
func TestBuildLayersAndSources(t *testing.T) {
	file := "[network]\nmesh = \"2x2\"\nlink_latency = 3\n"
	sc, src, err := Build(strings.NewReader(file), "a.toml", router.PresetBookSim, map[string]string{"mesh": "4x2"}, flag)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Network.Mesh != "4x2" {
		t.Errorf("mesh = %q, want the value 4x2 over the file's 2x2", sc.Network.Mesh)
	}
	if sc.Network.LinkLatency != 3 {
		t.Errorf("link_latency = %d, want the file's 3 over the preset's", sc.Network.LinkLatency)
	}
	booksim, _ := router.Preset(router.PresetBookSim)
	if sc.Network.RouteDelay != booksim.RouteDelay || sc.Network.Preset != router.PresetBookSim {
		t.Errorf("route_delay = %d, preset %q: want the booksim preset's %d under the file", sc.Network.RouteDelay, sc.Network.Preset, booksim.RouteDelay)
	}
	if got := src("network", "mesh"); got != "--mesh" {
		t.Errorf("source of mesh = %q, want --mesh", got)
	}
	if got := src("network", "link_latency"); !strings.Contains(got, "a.toml") {
		t.Errorf("source of link_latency = %q, want the file a.toml", got)
	}
}

// Without a file or preset the source is the default, and a value still
// wins.
func TestBuildDefaults(t *testing.T) {
	sc, src, err := Build(nil, "", "", map[string]string{"vcs": "3"}, flag)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Network.VCs != 3 || src("network", "vcs") != "--vcs" {
		t.Errorf("vcs = %d from %q, want 3 from --vcs", sc.Network.VCs, src("network", "vcs"))
	}
	if got := src("network", "mesh"); got != "default [network] mesh" {
		t.Errorf("source of mesh = %q, want the default", got)
	}
	if sc.Network.Mesh != Defaults().Network.Mesh {
		t.Errorf("mesh = %q, want the default %q", sc.Network.Mesh, Defaults().Network.Mesh)
	}
}

// A bad value is one error naming it (as named), the value and what is
// allowed; a bad file entry names the file.
func TestBuildErrors(t *testing.T) {
	_, _, err := Build(nil, "", "", map[string]string{"vcs": "many"}, flag)
	if err == nil || !strings.HasPrefix(err.Error(), "--vcs") || !strings.Contains(err.Error(), "many") {
		t.Errorf("bad vcs: %v, want an error naming --vcs and many", err)
	}
	_, _, err = Build(strings.NewReader("[network]\nnot_a_key = 1\n"), "b.toml", "", nil, flag)
	if err == nil || !strings.Contains(err.Error(), "b.toml") {
		t.Errorf("unknown key: %v, want an error naming b.toml", err)
	}
}
