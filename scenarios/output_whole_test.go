package scenarios

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A results.csv of no rows still has its header: the JSON keys of the row
// type, in order.
func TestRowsCSVHeaderWithoutRows(t *testing.T) {
	for _, rows := range []any{[]NocRow{}, []CollRow{}, []AppRow{}, []PingRow{}, []TierRow{}} {
		var b bytes.Buffer
		if err := writeRowsCSV(&b, rows); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&b).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		typ := reflect.TypeOf(rows).Elem()
		var want []string
		for i := 0; i < typ.NumField(); i++ {
			if tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); tag != "" && tag != "-" {
				want = append(want, tag)
			}
		}
		if len(recs) != 1 || !slices.Equal(recs[0], want) {
			t.Errorf("%s: records %q, want just the header %q", typ.Name(), recs, want)
		}
	}
}

// A point whose metric is NaN cannot be encoded: pointJSON says so instead
// of giving an empty line, and the logs are left as they were, not
// rewritten without it or with half of it.
func TestPointWithNaNIsAnErrorAndWritesNothing(t *testing.T) {
	ok := SweepPoint{Index: 0, ConfigHash: "a", Status: "ok", Metric: "cycles", Values: []float64{1}}
	bad := SweepPoint{Index: 1, ConfigHash: "b", Status: "ok", Metric: "cycles", Values: []float64{math.NaN()}}
	if line, err := pointJSON(ok); err != nil || !bytes.HasSuffix(line, []byte("}\n")) {
		t.Fatalf("a finite point: %q, %v", line, err)
	}
	if line, err := pointJSON(bad); err == nil || line != nil {
		t.Fatalf("a NaN point: %q, %v; want no line and an error", line, err)
	}
	dir := t.TempDir()
	log, csvLog := filepath.Join(dir, "points.jsonl"), filepath.Join(dir, "points.csv")
	all := func(SweepPoint) bool { return true }
	if err := writePointLogs(log, csvLog, []SweepPoint{ok}, all); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(log)
	if err := writePointLogs(log, csvLog, []SweepPoint{ok, bad}, all); err == nil || !strings.Contains(err.Error(), "point 1") {
		t.Fatalf("writing a NaN point: %v; want an error naming point 1", err)
	}
	if after, _ := os.ReadFile(log); !bytes.Equal(after, before) {
		t.Fatalf("points.jsonl changed by a failed write:\n%s\nwas\n%s", after, before)
	}
}
