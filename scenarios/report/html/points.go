package html

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// A sweep's directory holds its points in points.jsonl (one JSON object a
// line: index, settings, rep, status, the metric's values and the result
// rows), not in directories of their own; the report gives each point a
// page of its own under points/ and the sweep's page a table linking to
// them.

// PointPath is point i's page, of n points, relative to the sweep's
// directory: the index zero-padded so that the directories list in order.
func PointPath(i, n int) string {
	w := len(strconv.Itoa(max(n-1, 0)))
	return fmt.Sprintf("points/%0*d/%s", w, i, PageName)
}

// pointColumns are the keys of a point the sweep's table shows, in order;
// the rows are on the point's page.
var pointColumns = []string{"settings", "rep", "status", "error", "metric", "values", "row_status", "config_hash"}

// pointsTable is the sweep's table of points, each linked to its page.
func pointsTable(pts *value) *table {
	t := &table{Columns: append([]string{"point"}, pointColumns...)}
	for i, pt := range pts.items {
		row := []cell{{Text: strconv.Itoa(i), Num: true, Href: PointPath(i, len(pts.items))}}
		for _, k := range pointColumns {
			f := pt.field(k)
			switch {
			case f == nil:
				row = append(row, cell{})
			case k == "settings":
				row = append(row, cell{Text: settingsText(f)})
			default:
				row = append(row, cellOf(f))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// settingsText is a point's settings as key=value pairs, in the order
// points.jsonl holds them (sorted by key).
func settingsText(s *value) string {
	if s.kind != 'o' {
		return s.inline()
	}
	var parts []string
	for i, k := range s.keys {
		parts = append(parts, k+"="+s.fields[i].inline())
	}
	return strings.Join(parts, ", ")
}

// pointPage is point i's page: its settings and status, its result rows
// as a table, and a link back to the sweep's page.
func pointPage(sweep string, i, n int, pt *value) (Page, error) {
	p := &page{Title: fmt.Sprintf("%s: point %d", sweep, i), Back: "../../" + PageName, MetaHeading: "Point"}
	if s := pt.field("settings"); s != nil {
		p.Subtitle = settingsText(s)
	}
	head := &value{kind: 'o'}
	for j, k := range pt.keys {
		switch k {
		case "rows": // the table below
		case "settings":
			head.keys, head.fields = append(head.keys, k), append(head.fields, &value{kind: 's', text: settingsText(pt.fields[j])})
		default:
			head.keys, head.fields = append(head.keys, k), append(head.fields, pt.fields[j])
		}
	}
	p.Meta = &tableFile{ID: "provenance", Name: "points.jsonl, point " + strconv.Itoa(i), Table: tableOf(head)}
	p.TOC = []tocEntry{{ID: "provenance", Title: "Point"}}
	if rows := pt.field("rows"); rows != nil {
		p.Tables = []tableFile{{ID: "rows", Name: "result rows", Table: tableOf(rows)}}
		p.TOC = append(p.TOC, tocEntry{ID: "tables", Title: "Tables", Sub: []tocEntry{{ID: "rows", Title: "result rows"}}})
	}
	var out bytes.Buffer
	if err := pageTemplate.Execute(&out, p); err != nil {
		return Page{}, err
	}
	return Page{Path: PointPath(i, n), HTML: out.Bytes()}, nil
}
