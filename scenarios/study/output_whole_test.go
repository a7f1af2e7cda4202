package study

import (
	"bytes"
	"encoding/csv"
	"nocsim/scenarios/report"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A results.csv of no rows still has its header: the JSON keys of the row
// type, in order.
func TestRowsCSVHeaderWithoutRows(t *testing.T) {
	for _, rows := range []any{[]report.NocRow{}, []report.CollRow{}, []report.AppRow{}, []report.PingRow{}, []report.TierRow{}} {
		var b bytes.Buffer
		if err := report.WriteRowsCSV(&b, rows); err != nil {
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
