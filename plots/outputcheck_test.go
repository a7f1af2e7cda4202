package plots

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The checks run before a simulation: each refusal says what is wrong
// with the path, and nothing is left behind by the writability probe.
func TestCheckOutputPaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string // "" = accepted
	}{
		{"file in a writable dir", CheckFile(filepath.Join(dir, "out.csv")), ""},
		{"stdout", CheckFile(Stdout), ""},
		{"missing dir", CheckFile(filepath.Join(dir, "no", "out.csv")), "does not exist"},
		{"file in the dir's path", CheckFile(filepath.Join(file, "out.csv")), "not a directory"},
		{"long name", CheckFile(filepath.Join(dir, strings.Repeat("x", MaxOutputNameBytes+1))), "allowed at most"},
		{"new dir under a writable one", CheckDir(filepath.Join(dir, "a", "b")), ""},
		{"dir that is a file", CheckDir(file), "is a file; allowed a directory"},
		{"dir under a file", CheckDir(filepath.Join(file, "sub")), "is a file, not a directory"},
		{"dir on stdout", CheckDir(Stdout), "cannot go to standard output"},
	} {
		if tc.want == "" && tc.err != nil || tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)) {
			t.Errorf("%s: error %v, want %q", tc.name, tc.err, tc.want)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("the checks left files in %s: %v", dir, es)
	}
}

// Two outputs through a link and directly are one file; stdout is none.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skip(err)
	}
	if a, b := SameFile(filepath.Join(dir, "x")), SameFile(filepath.Join(link, "x")); a == "" || a != b {
		t.Errorf("SameFile via a link %q, directly %q: want one non-empty id", b, a)
	}
	if SameFile(Stdout) != "" || ReplacesFile(Stdout) || !ReplacesFile(filepath.Join(dir, "x")) {
		t.Error("stdout taken for a file replaced whole, or a file not")
	}
}
