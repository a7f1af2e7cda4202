package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nocsim/router"
	"nocsim/scenarios"
)

// Every command that builds a machine takes --preset and --vc-alloc, and
// rejects a bad value with a one-line usage error naming the flag, before
// simulating anything.
func TestPresetAndVCAllocFlagsEverywhere(t *testing.T) {
	for _, cmd := range []string{"noc", "pingpong", "coll", "calibrate", "app"} {
		for _, c := range []struct{ flag, value, allowed string }{
			{"--preset", "noxim", "scmp, booksim"},
			{"--vc-alloc", "random", "round_robin, lowest"},
		} {
			code, stdout, stderr := nocsim(t, cmd, c.flag, c.value, "--quiet")
			if code != exitUsage || stdout != "" {
				t.Errorf("%s %s %s: exit %d, stdout %q", cmd, c.flag, c.value, code, stdout)
			}
			msg := strings.TrimSpace(stderr)
			if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, c.flag) || !strings.Contains(msg, c.value) || !strings.Contains(msg, c.allowed) {
				t.Errorf("%s %s %s: message %q should be one line naming the flag, value and %q", cmd, c.flag, c.value, msg, c.allowed)
			}
		}
	}
}

// --preset goes under the config file and the other flags: what they set
// explicitly wins, even a value equal to the default preset's.
func TestPresetFlagUnderFileAndFlags(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(cfg, []byte("[network]\nmesh = \"4x4\"\ninject_latency = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--config", cfg, "--preset", "booksim", "--link-latency", "2"},
		{"--link-latency", "2", "--config", cfg, "--preset", "booksim"},
	} {
		code, stdout, stderr := nocsim(t, append([]string{"noc", "--print-config"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		got, _, err := scenarios.Decode(strings.NewReader(stdout), "printed")
		if err != nil {
			t.Fatal(err)
		}
		want, _ := router.Preset(router.PresetBookSim)
		want.InjectLatency, want.LinkLatency = 1, 2
		if got.Network.Preset != router.PresetBookSim || got.Network.RouterSpec != want || got.Network.Mesh != "4x4" {
			t.Errorf("%v: printed %q %+v mesh %s, want booksim %+v", args, got.Network.Preset, got.Network.RouterSpec, got.Network.Mesh, want)
		}
	}
	// Without a file, the preset alone.
	code, stdout, stderr := nocsim(t, "noc", "--print-config", "--preset", "booksim")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, _, _ := scenarios.Decode(strings.NewReader(stdout), "printed")
	if want, _ := router.Preset(router.PresetBookSim); got.Network.RouterSpec != want {
		t.Errorf("--preset booksim printed %+v, want %+v", got.Network.RouterSpec, want)
	}
}
