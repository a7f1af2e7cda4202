package main

import (
	"slices"
	"strings"
	"testing"
)

// What the commands write on stderr: with --quiet nothing; without it,
// plain progress lines (stderr is no terminal here) and the speed line,
// and never a \r. Stdout is the same either way.
func TestCommandsStderr(t *testing.T) {
	for _, args := range [][]string{
		nocArgs(),
		{"coll", "--mesh", "2x2", "--op", "bcast", "--procs", "4", "--sizes", "8"},
		{"pingpong", "--mesh", "2x2", "--from", "0", "--to", "3", "--sizes", "8"},
		{"calibrate", "--mesh", "2x2", "--sizes", "8,64,512,4096"},
	} {
		t.Run(args[0], func(t *testing.T) {
			code, quietOut, stderr := nocsim(t, append(slices.Clone(args), "--quiet")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if stderr != "" {
				t.Errorf("--quiet: stderr %q, want nothing", stderr)
			}
			code, out, stderr := nocsim(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if strings.Contains(stderr, "\r") {
				t.Errorf("\\r on a stderr that is no terminal: %q", stderr)
			}
			if !strings.Contains(stderr, "nocsim: speed: ") || !strings.Contains(stderr, "cycles/CPU s") {
				t.Errorf("no speed line on stderr: %q", stderr)
			}
			if args[0] == "noc" && !strings.Contains(stderr, "flit-hops/CPU s") {
				t.Errorf("a network run's speed line has no flit-hops/CPU s: %q", stderr)
			}
			if args[0] == "noc" && !strings.Contains(stderr, "noc 2/2 points") {
				t.Errorf("no final progress line: %q", stderr)
			}
			if args[0] != "noc" && out != quietOut { // noc's table ends in wall-clock figures
				t.Errorf("stdout differs with and without --quiet:\n%s\n%s", out, quietOut)
			}
		})
	}
}
