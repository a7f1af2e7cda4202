package scenarios

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run's staging directories say whose they are: the next run of the
// same name removes those of a process that is gone, puts back a result a
// killed run had moved aside, and leaves (and reports) those of a live
// process, of another host and of an older nocsim.
func TestStaleStagingDirectories(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "x")
	host, _, _ := strings.Cut(stagingOwner(), ".")
	gone := fmt.Sprint(math.MaxInt32) // above any pid_max: no such process
	mk := func(name string, files ...string) string {
		p := filepath.Join(parent, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(p, f), []byte(f), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	killed := mk(".x.incomplete-"+host+"."+gone+"-1", "config.toml")
	aside := mk(".x.old-"+host+"."+gone+"-2", "meta.json", "results.json")
	live := mk(fmt.Sprintf(".x.incomplete-%s.%d-3", host, os.Getpid()))
	other := mk(".x.incomplete-elsewhere.12-4")
	older := mk(".x.incomplete-123456")
	unrelated := mk(".y.incomplete-" + host + "." + gone + "-5")

	out, err := StageDir(target)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Write("meta.json", func(b *bytes.Buffer) error { b.WriteString("{}"); return nil }); err != nil {
		t.Fatal(err)
	}
	_, notes := out.Finish(&err)
	if err != nil {
		t.Fatal(err)
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	if exists(killed) {
		t.Errorf("%s of a gone process is still there", killed)
	}
	for _, p := range []string{live, other, older, unrelated} {
		if !exists(p) {
			t.Errorf("%s was removed", p)
		}
	}
	if exists(aside) {
		t.Errorf("%s was neither put back nor removed", aside)
	}
	// The moved-aside result was put back as x before this run replaced
	// it: x is now this run's.
	if b, _ := os.ReadFile(filepath.Join(target, "meta.json")); string(b) != "{}" {
		t.Errorf("x/meta.json holds %q, want this run's", b)
	}
	lines := strings.Join(notes, "\n")
	for _, want := range []string{"removed " + killed, "put back " + aside, "left " + live, "left " + other, "host elsewhere", "left " + older} {
		if !strings.Contains(lines, want) {
			t.Errorf("the summary does not say %q:\n%s", want, lines)
		}
	}
	if strings.Contains(lines, unrelated) {
		t.Errorf("another name's directory was reported:\n%s", lines)
	}
}

// A name of MaxResultNameBytes stages and commits (its staging name fits
// 255 bytes with the longest host part); one byte more is refused by the
// check, as are names that leave results/.
func TestResultNameLimits(t *testing.T) {
	dir := t.TempDir()
	name := strings.Repeat("n", MaxResultNameBytes)
	out, err := StageDir(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if want := len("." + name + ".incomplete-" + strings.Repeat("h", maxHostBytes) + ".4294967295-4294967295"); want != maxNameBytes {
		t.Errorf("the longest staging name has %d bytes, want %d", want, maxNameBytes)
	}
	out.Finish(&err)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{name, true}, {name + "n", false}, {"../../x", false}, {"a/b", false}, {`a\b`, false},
		{"", false}, {".", false}, {"..", false}, {"a..b", true}, {"-", true},
	} {
		sc := Defaults()
		sc.Name = tc.name
		err := sc.checkOutputNames(nil)
		if (err == nil) != tc.ok || err != nil && (!strings.HasPrefix(err.Error(), "name = ") || !strings.Contains(err.Error(), "allowed")) {
			t.Errorf("name %q: %v (want ok %v)", short(tc.name), err, tc.ok)
		}
	}
}

// A run replaces its whole output directory: one that holds files but no
// meta.json (no earlier result: the scenario's own directory, a home) is
// refused and left as it was.
func TestStageDirRefusesForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := StageDir(dir); err == nil || !strings.Contains(err.Error(), "no meta.json") {
		t.Fatalf("staging over a foreign directory: %v", err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine" {
		t.Error("the foreign file changed")
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("staging left %d entries beside the directory", len(entries))
	}
	for _, ok := range []string{filepath.Join(dir, "new"), t.TempDir()} {
		if err := CheckReplaceable(ok); err != nil {
			t.Errorf("%s (new or empty): %v", ok, err)
		}
	}
}
