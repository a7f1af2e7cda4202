package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// WriteJSON writes rows as an indented JSON array.
func WriteJSON(w io.Writer, rows any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// WriteRowsCSV writes a slice of structs as CSV, one column per JSON key,
// in field order; slices become semicolon-separated lists.
func WriteRowsCSV(b *bytes.Buffer, rows any) error {
	v := reflect.ValueOf(rows)
	// The header comes from the element type, so that a run with no rows
	// still writes it.
	t := v.Type().Elem()
	var names []string
	var idx []int
	for i := 0; i < t.NumField(); i++ {
		tag := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		if tag == "" || tag == "-" {
			continue
		}
		names, idx = append(names, tag), append(idx, i)
	}
	w := csv.NewWriter(b)
	w.Write(names)
	for r := 0; r < v.Len(); r++ {
		rec := make([]string, len(idx))
		for k, i := range idx {
			f := v.Index(r).Field(i)
			if f.Kind() == reflect.Slice {
				parts := make([]string, f.Len())
				for j := range parts {
					parts[j] = fmt.Sprint(f.Index(j).Interface())
				}
				rec[k] = strings.Join(parts, ";")
			} else {
				bs, _ := json.Marshal(f.Interface())
				rec[k] = strings.Trim(string(bs), `"`)
			}
		}
		w.Write(rec)
	}
	w.Flush()
	return w.Error()
}

// PerSecond is v per second of s seconds, 0 when s is not positive (a
// run too short to time).
func PerSecond(v, s float64) float64 {
	if s <= 0 {
		return 0
	}
	return v / s
}
