package sweep

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A point whose metric is NaN cannot be encoded: pointJSON says so instead
// of giving an empty line, and the logs are left as they were, not
// rewritten without it or with half of it.
func TestPointWithNaNIsAnErrorAndWritesNothing(t *testing.T) {
	ok := Point{Index: 0, ConfigHash: "a", Status: "ok", Metric: "cycles", Values: []float64{1}}
	bad := Point{Index: 1, ConfigHash: "b", Status: "ok", Metric: "cycles", Values: []float64{math.NaN()}}
	if line, err := pointJSON(ok); err != nil || !bytes.HasSuffix(line, []byte("}\n")) {
		t.Fatalf("a finite point: %q, %v", line, err)
	}
	if line, err := pointJSON(bad); err == nil || line != nil {
		t.Fatalf("a NaN point: %q, %v; want no line and an error", line, err)
	}
	dir := t.TempDir()
	log, csvLog := filepath.Join(dir, "points.jsonl"), filepath.Join(dir, "points.csv")
	all := func(Point) bool { return true }
	if err := writePointLogs(log, csvLog, []Point{ok}, all); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(log)
	if err := writePointLogs(log, csvLog, []Point{ok, bad}, all); err == nil || !strings.Contains(err.Error(), "point 1") {
		t.Fatalf("writing a NaN point: %v; want an error naming point 1", err)
	}
	if after, _ := os.ReadFile(log); !bytes.Equal(after, before) {
		t.Fatalf("points.jsonl changed by a failed write:\n%s\nwas\n%s", after, before)
	}
}
