package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A flag after a command's positional argument is refused (urfave/cli
// stops at the first argument and took it for a second file) with exit 2
// and one line giving the command line that works; that line then passes
// validation. An unknown flag there is named, and a boolean flag's value
// given after a space is explained.
func TestFlagsAfterArgumentsSayFlagsGoFirst(t *testing.T) {
	validateOnly = true
	defer func() { validateOnly = false }()
	scenario, sweep, _ := fuzzFixture(t)
	out := filepath.Join(t.TempDir(), "merged")
	for _, c := range []struct {
		args []string
		want string // the whole message after "nocsim: "
		then bool   // the message's command line must then validate
	}{
		{[]string{"run", scenario, "-q"}, "flags go before FILE: nocsim run -q " + scenario, true},
		{[]string{"run", scenario, "--workers", "2"}, "flags go before FILE: nocsim run --workers 2 " + scenario, true},
		{[]string{"run", scenario, "--workers=2", "-q"}, "flags go before FILE: nocsim run --workers=2 -q " + scenario, true},
		{[]string{"sweep", sweep, "--jobs", "3"}, "flags go before FILE: nocsim sweep --jobs 3 " + sweep, true},
		{[]string{"sweep", "merge", "a", "b", "--out", out}, "flags go before SHARD_DIR...: nocsim sweep merge --out " + out + " a b", true},
		{[]string{"validate", scenario, "-q"}, "-q after FILE: nocsim validate has no such flag (see nocsim validate --help)", false},
		{[]string{"run", scenario, "--nosuch"}, "--nosuch after FILE: nocsim run has no such flag (see nocsim run --help)", false},
		{[]string{"pingpong", "--preempt-threads", "false"}, "--preempt-threads false: a boolean flag takes its value after =: allowed --preempt-threads (true), --preempt-threads=true or --preempt-threads=false (nocsim pingpong takes no arguments)", false},
		{[]string{"noc", "--json", "yes"}, "--json yes: a boolean flag takes its value after =: allowed --json (true), --json=true or --json=false (nocsim noc takes no arguments)", false},
	} {
		code, stdout, stderr := nocsim(t, c.args...)
		if code != 2 || stdout != "" || stderr != "nocsim: "+c.want+"\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, stdout, stderr, c.want)
			continue
		}
		if c.then {
			line := strings.Fields(strings.TrimPrefix(c.want, c.want[:strings.Index(c.want, "nocsim ")+len("nocsim ")]))
			if code, _, stderr := nocsim(t, line...); code != 0 {
				t.Errorf("%q, the command line the message gives: exit %d: %s", line, code, stderr)
			}
		}
	}
	// In order, the same command lines pass.
	for _, args := range [][]string{{"run", "-q", scenario}, {"validate", scenario}, {"sweep", "--jobs", "3", sweep}} {
		if code, _, stderr := nocsim(t, args...); code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
		}
	}
}
