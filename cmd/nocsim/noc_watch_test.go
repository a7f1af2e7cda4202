package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --watch-packets writes the watched packets' lines after the table (the
// default, or --watch-out -) or, whole, to the file --watch-out names;
// bad values are refused before anything runs, exit 2, naming the flag.
func TestNocWatchPackets(t *testing.T) {
	args := []string{"noc", "-q", "--mesh", "4x4", "--preset", "booksim", "--rates", "0.1,0.2", "--warmup-cycles", "50", "--measure-cycles", "100", "--watch-packets", "2,0"}
	code, stdout, stderr := nocsim(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	table, watch, ok := strings.Cut(dropSpeedLine(stdout), "# point 1:")
	if !ok || !strings.Contains(table, "uniform") || !strings.Contains(watch, "# point 2:") ||
		strings.Count(watch, "packet 0 created") != 2 || strings.Count(watch, "packet 2 delivered") != 2 {
		t.Fatalf("want the table, then each point's lines for packets 0 and 2:\n%s", stdout)
	}
	out := filepath.Join(t.TempDir(), "watch.txt")
	if code, stdout2, stderr := nocsim(t, append(args, "--watch-out", out)...); code != 0 || dropSpeedLine(stdout2) != table {
		t.Fatalf("--watch-out FILE: exit %d, stdout %q (want only the table), stderr %s", code, stdout2, stderr)
	}
	if b, err := os.ReadFile(out); err != nil || "# point 1:"+watch != string(b) {
		t.Fatalf("--watch-out FILE: %v; the file differs from what standard output got:\n%s", err, b)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--watch-packets", "1,x"}, `--watch-packets = "1,x"`},
		{[]string{"--watch-packets", "-3"}, `--watch-packets = "-3"`},
		{[]string{"--watch-out", "w.txt"}, `--watch-out = "w.txt" without --watch-packets`},
	} {
		code, stdout, stderr := nocsim(t, append([]string{"noc", "-q", "--mesh", "4x4", "--rates", "0.1"}, c.args...)...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "nocsim: "+c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// dropSpeedLine removes the speed line ("simulated ... cycles/s"), whose
// rates vary from run to run.
func dropSpeedLine(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "simulated ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}
