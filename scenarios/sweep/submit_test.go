package sweep

import (
	"os"
	"path/filepath"
	"testing"
)

// One shard per point by default, never more than MaxArrayTasks or the
// cluster's limit, and at least one.
func TestArrayTasks(t *testing.T) {
	for _, tc := range []struct{ points, limit, want int }{
		{0, 1001, 1}, {7, 1001, 7}, {5000, 1001, MaxArrayTasks}, {50, 10, 10},
	} {
		if got := ArrayTasks(tc.points, tc.limit); got != tc.want {
			t.Errorf("ArrayTasks(%d, %d) = %d, want %d", tc.points, tc.limit, got, tc.want)
		}
	}
}

// Write makes the base directory and leaves the script there whole and
// executable.
func TestSlurmJobWrite(t *testing.T) {
	base := filepath.Join(t.TempDir(), "new", "dir")
	j := SlurmJob{Scenario: "s", Nocsim: "/bin/nocsim", File: "/x.toml", Base: base, Shards: 3}
	path, err := j.Write()
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(base, SlurmScriptName) {
		t.Errorf("path %s", path)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("script %v (%v): want an executable file", fi, err)
	}
	if b, _ := os.ReadFile(path); string(b) != j.Script() {
		t.Errorf("file differs from Script():\n%s", b)
	}
}

// Failed counts only the failed points (saturated ones are results).
func TestFailed(t *testing.T) {
	pts := []Point{{Status: "ok"}, {Status: "failed"}, {Status: "saturated"}, {Status: "failed"}}
	if got := Failed(pts); got != 2 {
		t.Errorf("Failed = %d, want 2", got)
	}
}
