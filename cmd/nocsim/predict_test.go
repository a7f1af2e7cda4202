package main

import (
	"nocsim/logp/collgen"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// minimalParams writes a one-segment LogGP parameter file (no provenance:
// predict warns about it on stderr and goes on).
func minimalParams(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "params.toml")
	text := "P = 16\nclock_hz = 1e9\navg_hops = 2.5\n[[segment]]\nmax_bytes = 0\nL = 100.0\nL_per_hop = 15.0\no_s = 40.0\no_r = 20.0\ng = 150.0\nG = 0.25\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// lastLine is stderr's error line (predict may warn on the lines before
// it); ok is false when stderr does not end in exactly one "nocsim:" line.
func lastLine(stderr string) (string, bool) {
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	l := lines[len(lines)-1]
	errs := 0
	for _, x := range lines {
		if strings.HasPrefix(x, "nocsim: ") && !strings.HasPrefix(x, "nocsim: warning:") {
			errs++
		}
	}
	return l, errs == 1 && strings.HasPrefix(l, "nocsim: ")
}

// An unknown --op names the flag, the value and every operation predict
// knows, p2p and pingpong among them; --select for a point-to-point --op
// (nothing to choose) is refused rather than printing an empty table.
func TestPredictBadOpAndSelect(t *testing.T) {
	params := minimalParams(t)
	allOps := append([]string{"p2p", "pingpong"}, collgen.Ops...)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--op", "foo"}, append([]string{"--op = foo: allowed "}, allOps...)},
		{[]string{"--op", "foo", "--select", "8"}, append([]string{"--op = foo"}, allOps...)},
		{[]string{"--op", "p2p", "--select", "8"}, append([]string{"--select", "--op = p2p"}, collgen.Ops...)},
		{[]string{"--op", "pingpong", "--select", "8,64"}, append([]string{"--select", "--op = pingpong"}, collgen.Ops...)},
		{[]string{"--select", "8"}, []string{"--select", "--op = p2p"}}, // p2p is --op's default
	} {
		args := append([]string{"predict", "--params", params}, c.args...)
		code, out, stderr := nocsim(t, args...)
		line, one := lastLine(stderr)
		if code != 2 || out != "" || !one {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout and one error line", c.args, code, out, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(line, w) {
				t.Errorf("%v: %q does not say %q", c.args, line, w)
			}
		}
	}
	// A collective's selection still prints its table.
	code, out, stderr := nocsim(t, "predict", "--params", params, "--op", "bcast", "--select", "8,65536")
	if code != 0 || !strings.Contains(out, "P \\ bytes") || !strings.Contains(out, "65536") {
		t.Errorf("bcast --select: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}
