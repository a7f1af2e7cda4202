package html

import (
	"bytes"
	"encoding/csv"
	"strconv"
)

// table is a JSON value or a CSV file as the page shows it: a header
// (none for a key-value table, whose first cell in a row is a heading)
// and rows of cells.
type table struct {
	Columns []string
	Rows    [][]cell
}

// cell is one table cell: text, or a nested value the reader opens
// (details), or a link (a sweep point's page).
type cell struct {
	Text    string
	Num     bool // right-aligned
	Head    bool // a key-value table's key
	Href    string
	Nested  *table
	Summary string // what the closed details say
}

// tableOf lays a JSON value out as a table: an array of objects one row
// per object and one column per key (in the order the keys first occur),
// an object one row per key, anything else one cell.
func tableOf(v *value) *table {
	switch {
	case v.rowsOf():
		t := &table{}
		col := map[string]int{}
		for _, it := range v.items {
			for _, k := range it.keys {
				if _, ok := col[k]; !ok {
					col[k] = len(t.Columns)
					t.Columns = append(t.Columns, k)
				}
			}
		}
		for _, it := range v.items {
			row := make([]cell, len(t.Columns))
			for i, k := range it.keys {
				row[col[k]] = cellOf(it.fields[i])
			}
			t.Rows = append(t.Rows, row)
		}
		return t
	case v.kind == 'o':
		t := &table{}
		for i, k := range v.keys {
			t.Rows = append(t.Rows, []cell{{Text: k, Head: true}, cellOf(v.fields[i])})
		}
		return t
	case v.kind == 'a' && !v.flat():
		t := &table{Columns: []string{"item", "value"}}
		for i, it := range v.items {
			t.Rows = append(t.Rows, []cell{{Text: strconv.Itoa(i), Num: true}, cellOf(it)})
		}
		return t
	}
	return &table{Rows: [][]cell{{cellOf(v)}}}
}

// longList is the longest list of scalars a cell shows open: a longer one
// (a time per rank) would make its row taller than the page.
const longList = 8

// cellOf is one value in a cell: inline when flat and short, else behind
// a summary that says its size (a nested table for objects).
func cellOf(v *value) cell {
	if v.flat() && len(v.items) > longList {
		return cell{Text: v.inline(), Summary: strconv.Itoa(len(v.items)) + " items"}
	}
	if v.flat() {
		return cell{Text: v.inline(), Num: v.kind == 'n'}
	}
	s := strconv.Itoa(len(v.keys)) + " keys"
	if v.kind == 'a' {
		s = strconv.Itoa(len(v.items)) + " items"
	}
	return cell{Nested: tableOf(v), Summary: s}
}

// csvTable reads a CSV file whose first record is its header.
func csvTable(b []byte) (*table, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	t := &table{}
	for i, rec := range recs {
		if i == 0 {
			t.Columns = rec
			continue
		}
		row := make([]cell, len(rec))
		for j, s := range rec {
			_, err := strconv.ParseFloat(s, 64)
			row[j] = cell{Text: s, Num: err == nil}
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}
