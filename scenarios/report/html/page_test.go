package html

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	stdhtml "html"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// A results directory as the runners write it, with text that must be
// escaped, a chart of each format, a file the page must leave out and one
// it cannot parse.
func fixture(t *testing.T) fstest.MapFS {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	var pngBytes bytes.Buffer
	if err := png.Encode(&pngBytes, img); err != nil {
		t.Fatal(err)
	}
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	return fstest.MapFS{
		"config.toml":     file("name = \"<b>&x\"\n[network]\nmesh = \"4x4\"\n"),
		"meta.json":       file(`{"nocsim_version": "0.6.0-dev", "scenario": "<script>alert(1)</script>", "workload": "noc", "seed": 1}`),
		"rows.json":       file(`[{"zeta": 1, "alpha": "a", "nested": {"k": 2}}, {"zeta": 2, "alpha": "b", "extra_cycles": 7}, {"zeta": 3, "long": [1,2,3,4,5,6,7,8,9]}]`),
		"rows.csv":        file("zeta,alpha\n1,a\n2,b\n3,\n"),
		"summary.csv":     file("metric,mean_cycles\ncycles,12.5\ncycles,13\n"),
		"params.json":     file(`{"P": 16, "segments": [{"L": 1.5}, {"L": 2}]}`),
		"broken.json":     file(`{"a": `),
		"calibration.txt": file("fit <ok> & done\n"),
		"chart.png":       &fstest.MapFile{Data: pngBytes.Bytes()},
		"map.svg":         file(`<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>`),
		"trace/goal.txt":  file("rank 0 {\n}\n"),
		"report.html":     file("an older page"),
		".hidden.json":    file(`[1]`),
		".staging/x.json": file(`[2]`),
	}
}

func renderOne(t *testing.T, fsys fstest.MapFS) string {
	t.Helper()
	pages, err := Render(fsys, "results<1>")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 1 || pages[0].Path != PageName {
		t.Fatalf("pages %v, want report.html alone", pagePaths(pages))
	}
	return string(pages[0].HTML)
}

func pagePaths(ps []Page) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Path)
	}
	return out
}

// section is the text of <section id="id"> up to the next section or the
// end of its parent.
func section(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `<section id="`+id+`">`)
	if i < 0 {
		t.Fatalf("no section %q", id)
	}
	s := page[i+1:]
	if j := strings.Index(s, "<section "); j >= 0 {
		s = s[:j]
	}
	if j := strings.Index(s, "</section>"); j >= 0 {
		s = s[:j]
	}
	return s
}

func TestPageShowsEveryFile(t *testing.T) {
	fsys := fixture(t)
	page := renderOne(t, fsys)

	// Every file but the page itself and the hidden ones is listed, linked
	// by its relative path, in sorted order.
	var listed []string
	for _, m := range regexp.MustCompile(`<tr><td><a href="([^"]*)">`).FindAllStringSubmatch(section(t, page, "files"), -1) {
		listed = append(listed, m[1])
	}
	want := []string{"broken.json", "calibration.txt", "chart.png", "config.toml", "map.svg", "meta.json", "params.json", "rows.csv", "rows.json", "summary.csv", "trace/goal.txt"}
	if !slices.Equal(listed, want) {
		t.Errorf("files listed %v, want %v", listed, want)
	}

	// Each table section has the rows and columns of its file: the array
	// of objects one row per object, columns in the order keys first occur.
	rows := section(t, page, "file-rows-json")
	cols := regexp.MustCompile(`<th>([^<]*)</th>`).FindAllStringSubmatch(rows, -1)
	var names []string
	for _, c := range cols {
		names = append(names, c[1])
	}
	if w := []string{"zeta", "alpha", "nested", "extra_cycles", "long"}; !slices.Equal(names, w) {
		t.Errorf("rows.json columns %v, want %v", names, w)
	}
	var decoded []map[string]any
	if err := json.Unmarshal(fsys["rows.json"].Data, &decoded); err != nil {
		t.Fatal(err)
	}
	// The nested object is a table of its own inside the cell, so count
	// the outer rows by their first cell.
	if n := strings.Count(rows, "<tr><td class=\"n\">"); n != len(decoded) {
		t.Errorf("rows.json: %d rows shown, the file has %d", n, len(decoded))
	}
	if !strings.Contains(rows, "<summary>9 items</summary>[1, 2, 3, 4, 5, 6, 7, 8, 9]") || !strings.Contains(rows, "<summary>1 keys</summary>") {
		t.Errorf("rows.json: long list and nested object not behind a summary:\n%s", rows)
	}
	if n := strings.Count(section(t, page, "file-summary-csv"), "<tr>"); n != 3 { // header and two rows
		t.Errorf("summary.csv: %d table rows, want 3", n)
	}
	if strings.Contains(page, `id="file-rows-csv"`) {
		t.Error("rows.csv, the rows of rows.json, shown as a table of its own")
	}
	if b := section(t, page, "file-broken-json"); !strings.Contains(b, "not valid JSON") || !strings.Contains(b, "{&#34;a&#34;: ") {
		t.Errorf("broken.json not shown as text with a note:\n%s", b)
	}
	if !strings.Contains(section(t, page, "file-trace-goal-txt"), "rank 0 {") {
		t.Error("a text file in a subdirectory is not shown")
	}

	// Text is escaped wherever it comes from.
	for _, raw := range []string{"<script>alert(1)</script>", "<b>&x", "fit <ok>", "results<1>"} {
		if strings.Contains(page, raw) {
			t.Errorf("page holds %q unescaped", raw)
		}
	}
	if !strings.Contains(section(t, page, "provenance"), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("meta.json's scenario is not shown escaped")
	}

	// The charts are the files' own bytes.
	for name, mime := range map[string]string{"chart.png": "image/png", "map.svg": "image/svg+xml"} {
		id := "file-" + strings.ReplaceAll(name, ".", "-")
		// Attribute values are HTML-escaped ("+" may read "&#43;").
		m := regexp.MustCompile(`<img src="([^"]*)"`).FindStringSubmatch(section(t, page, id))
		if m != nil {
			m = regexp.MustCompile(`^data:` + regexp.QuoteMeta(mime) + `;base64,(.*)$`).FindStringSubmatch(stdhtml.UnescapeString(m[1]))
		}
		if m == nil {
			t.Errorf("%s: no embedded image", name)
			continue
		}
		b, err := base64.StdEncoding.DecodeString(m[1])
		if err != nil || !bytes.Equal(b, fsys[name].Data) {
			t.Errorf("%s: embedded bytes differ from the file (%v)", name, err)
		}
	}

	// The table of contents points at sections that exist, and every
	// reference stays in the page or the directory.
	for _, m := range regexp.MustCompile(`<a href="#([^"]*)">`).FindAllStringSubmatch(page, -1) {
		if !strings.Contains(page, `id="`+m[1]+`"`) {
			t.Errorf("contents link #%s has no target", m[1])
		}
	}
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		v := m[1]
		if !strings.HasPrefix(v, "#") && !strings.HasPrefix(v, "data:image/") && !slices.Contains(want, v) {
			t.Errorf("reference %q leaves the page and the directory", v)
		}
	}
}

// The same files give the same bytes, whatever order they were written
// in and whether read from memory or disk.
func TestPageDeterministic(t *testing.T) {
	fsys := fixture(t)
	a := renderOne(t, fsys)
	dir := t.TempDir()
	names := make([]string, 0, len(fsys))
	for n := range fsys {
		names = append(names, n)
	}
	slices.Sort(names)
	slices.Reverse(names)
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, fsys[n].Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pages, err := Render(os.DirFS(dir), "results<1>")
	if err != nil {
		t.Fatal(err)
	}
	if string(pages[0].HTML) != a {
		t.Error("the page read from disk differs from the page read from memory")
	}
	if renderOne(t, fsys) != a {
		t.Error("two renders differ")
	}
}

func TestPointPath(t *testing.T) {
	for _, c := range []struct {
		i, n int
		want string
	}{
		{0, 1, "points/0/report.html"},
		{4, 18, "points/04/report.html"},
		{7, 100, "points/07/report.html"},
		{7, 101, "points/007/report.html"},
	} {
		if got := PointPath(c.i, c.n); got != c.want {
			t.Errorf("PointPath(%d, %d) = %q, want %q", c.i, c.n, got, c.want)
		}
	}
}

// A sweep's page links every point of points.jsonl to a page of its own
// that shows the point's rows and links back.
func TestSweepPages(t *testing.T) {
	lines := []string{
		`{"index":0,"settings":{"network.vcs":"1"},"rep":0,"status":"ok","metric":"cycles","values":[10,20],"row_status":["ok","ok"],"rows":[{"size_bytes":8,"cycles":10},{"size_bytes":64,"cycles":20}]}`,
		`{"index":1,"settings":{"network.vcs":"2"},"rep":0,"status":"ok","metric":"cycles","values":[9],"row_status":["ok"],"rows":[{"size_bytes":8,"cycles":9}]}`,
		`{"index":2,"settings":{"network.vcs":"<4>"},"rep":0,"status":"failed","error":"deadlock <at> 3","metric":"cycles","values":null,"row_status":null}`,
	}
	fsys := fstest.MapFS{
		"meta.json":    {Data: []byte(`{"scenario": "s", "workload": "coll"}`)},
		"points.jsonl": {Data: []byte(strings.Join(lines, "\n") + "\n")},
		"points.csv":   {Data: []byte("index\n0\n1\n2\n")},
	}
	pages, err := Render(fsys, "s")
	if err != nil {
		t.Fatal(err)
	}
	if w := []string{"report.html", "points/0/report.html", "points/1/report.html", "points/2/report.html"}; !slices.Equal(pagePaths(pages), w) {
		t.Fatalf("pages %v, want %v", pagePaths(pages), w)
	}
	main := string(pages[0].HTML)
	pts := section(t, main, "points")
	var links []string
	for _, m := range regexp.MustCompile(`<a href="([^"#]*)">`).FindAllStringSubmatch(pts, -1) {
		links = append(links, m[1])
	}
	if !slices.Equal(links, pagePaths(pages)[1:]) {
		t.Errorf("point links %v, want the point pages %v", links, pagePaths(pages)[1:])
	}
	if !strings.Contains(pts, "deadlock &lt;at&gt; 3") || strings.Contains(main, `id="file-points-csv"`) {
		t.Error("the failed point's error is not shown escaped, or points.csv shown as a table")
	}
	for i, p := range pages[1:] {
		h := string(p.HTML)
		var point map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &point); err != nil {
			t.Fatal(err)
		}
		// The point's key-value table (every key but rows), then its rows
		// under a header.
		want := len(point)
		if rows, ok := point["rows"].([]any); ok {
			want += -1 + 1 + len(rows)
			first := rows[0].(map[string]any)["cycles"].(float64)
			if !strings.Contains(h, fmt.Sprintf(`<td class="n">%g</td>`, first)) {
				t.Errorf("point %d: its first row's cycles (%g) not shown", i, first)
			}
		}
		if n := strings.Count(h, "</tr>"); n != want {
			t.Errorf("point %d: %d table rows, want %d", i, n, want)
		}
		if !strings.Contains(h, `<a href="../../report.html">`) {
			t.Errorf("point %d: no link back to the sweep", i)
		}
	}
}
