package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// tinyScenario is a noc run of a few milliseconds that writes a results
// directory (out/) with a table, a chart and meta.json.
const tinyScenario = `name = "tiny"
[network]
mesh = "4x4"
[noc]
traffic = ["uniform"]
rates = [0.05, 0.1]
measure_cycles = 1000
warmup_cycles = 200
[workload]
kind = "noc"
[output]
dir = "out"
`

// runTiny writes and runs tinyScenario in dir with the extra flags; it
// returns the results directory.
func runTiny(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	sc := filepath.Join(dir, "tiny.toml")
	if err := os.WriteFile(sc, []byte(tinyScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := nocsim(t, append(append([]string{"run", "-q"}, flags...), sc)...)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "out")
	if slices.Contains(flags, "--report") != strings.Contains(stdout, filepath.Join(out, "report.html")) {
		t.Errorf("run %v: summary lists report.html %v:\n%s", flags, !slices.Contains(flags, "--report"), stdout)
	}
	return out
}

// run --report renders the staged directory before it is moved into
// place; nocsim report renders it in place: the same bytes, so the page
// names nothing of the staging directory and the files are all there.
func TestRunReportEqualsReportCommand(t *testing.T) {
	dir := t.TempDir()
	out := runTiny(t, dir, "--report")
	staged, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"config.toml", "meta.json", "results.json", "latency.png"} {
		if !strings.Contains(string(staged), ">"+f+"<") {
			t.Errorf("report.html does not show %s", f)
		}
	}
	if strings.Contains(string(staged), ".incomplete-") {
		t.Error("report.html names the staging directory")
	}
	code, stdout, stderr := nocsim(t, "report", out)
	if code != 0 || stderr != "" || !strings.Contains(stdout, filepath.Join(out, "report.html")) {
		t.Fatalf("report: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	again, _ := os.ReadFile(filepath.Join(out, "report.html"))
	if string(again) != string(staged) {
		t.Error("nocsim report gives other bytes than run --report for the same directory")
	}

	// Without --report, run writes no page.
	runTiny(t, dir)
	if _, err := os.Stat(filepath.Join(out, "report.html")); err == nil {
		t.Error("run without --report left a report.html")
	}
}

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	noMeta := filepath.Join(dir, "plain")
	os.Mkdir(noMeta, 0o755)
	os.WriteFile(filepath.Join(noMeta, "notes.json"), []byte("[]"), 0o644)
	aFile := filepath.Join(dir, "file")
	os.WriteFile(aFile, []byte("x"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "got 0 arguments"},
		{[]string{"report", noMeta, noMeta}, "got 2 arguments"},
		{[]string{"report", filepath.Join(dir, "missing")}, "no such directory"},
		{[]string{"report", aFile}, "no such directory"},
		{[]string{"report", noMeta}, "no meta.json"},
		{[]string{"report", noMeta, "-q"}, "flags go before DIR"},
	} {
		code, stdout, stderr := nocsim(t, c.args...)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, stdout, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(noMeta, "report.html")); err == nil {
		t.Error("a refused report wrote report.html")
	}
	if code, _, stderr := nocsim(t, "sweep", "--slurm", "--report", "x.toml"); code != exitUsage || !strings.Contains(stderr, "--report with --slurm") {
		t.Errorf("sweep --slurm --report: exit %d, %s", code, stderr)
	}
}

// A sweep's page links each point to its own page, which exists; a sweep
// run again without --report leaves no page of the earlier one.
func TestSweepReport(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "sweep.toml")
	os.WriteFile(sc, []byte(tinyScenario+"[[sweep.axis]]\nkey = \"network.vcs\"\nvalues = [1, 2, 4]\n"), 0o644)
	code, stdout, stderr := nocsim(t, "sweep", "-q", "--report", sc)
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "out")
	if !strings.Contains(stdout, "report: "+filepath.Join(out, "report.html")+" (and 3 point pages") {
		t.Errorf("sweep --report: %s", stdout)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`href="(points/[^"]*)"`).FindAllStringSubmatch(string(page), -1)
	if len(links) != 3 {
		t.Errorf("%d point links, want 3", len(links))
	}
	for _, l := range links {
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(l[1])))
		if err != nil || !strings.Contains(string(b), `href="../../report.html"`) {
			t.Errorf("point page %s: %v", l[1], err)
		}
	}
	if code, _, stderr := nocsim(t, "sweep", "-q", sc); code != 0 {
		t.Fatalf("sweep again: exit %d: %s", code, stderr)
	}
	for _, p := range []string{"report.html", "points"} {
		if _, err := os.Stat(filepath.Join(out, p)); err == nil {
			t.Errorf("sweep without --report left the earlier %s", p)
		}
	}
}
