package html

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// PageName is the file a report's page is written to, in the directory
// it shows (and in each sweep point's directory under points/).
const PageName = "report.html"

// Page is one page of a report: its path relative to the results
// directory and its bytes.
type Page struct {
	Path string
	HTML []byte
}

// page is what the template shows.
type page struct {
	Title, Subtitle string
	Back            string // a point's page: the sweep's page
	MetaHeading     string // the heading over Meta: Provenance, or Point
	TOC             []tocEntry
	Config          *textFile
	Meta            *tableFile
	Points          *tableFile
	Tables          []tableFile
	Texts           []textFile
	Charts          []chartFile
	Files           []fileEntry
}

type tocEntry struct {
	ID, Title string
	Sub       []tocEntry
}

type textFile struct{ ID, Name, Text, Note string }

type tableFile struct {
	ID, Name string
	Table    *table
}

type chartFile struct {
	ID, Name string
	URI      template.URL
}

type fileEntry struct {
	Name string
	Href template.URL
	Size int64
}

// Render renders the results directory fsys, named name (its base name,
// the page's title): report.html and, for a sweep (points.jsonl), one
// page per point under points/. The files are read in sorted order and
// the report pages themselves, hidden files and directories are left out,
// so rendering again gives the same bytes.
func Render(fsys fs.FS, name string) ([]Page, error) {
	files, err := listFiles(fsys)
	if err != nil {
		return nil, err
	}
	read := func(p string) ([]byte, error) { return fs.ReadFile(fsys, p) }
	p := &page{Title: name, MetaHeading: "Provenance"}
	ids := idSet{}
	have := map[string]bool{}
	for _, f := range files {
		have[f.Name] = true
	}
	var points *value
	for _, f := range files {
		ext := path.Ext(f.Name)
		base := strings.TrimSuffix(f.Name, ext)
		var b []byte
		// Only what the page shows is read (a run may hold large schedules).
		if shown(f.Name, ext) {
			if b, err = read(f.Name); err != nil {
				return nil, err
			}
		}
		switch {
		case f.Name == "config.toml":
			p.Config = &textFile{ID: "configuration", Name: f.Name, Text: string(b)}
		case f.Name == "meta.json":
			if v, err := parseJSON(b); err == nil {
				p.Meta = &tableFile{ID: "provenance", Name: f.Name, Table: tableOf(v)}
				p.Subtitle = subtitle(v)
			} else {
				p.Texts = append(p.Texts, textFile{ID: ids.make(f.Name), Name: f.Name, Text: string(b), Note: "not valid JSON: " + err.Error()})
			}
		case f.Name == "points.jsonl":
			v, err := parseJSONLines(b)
			if err != nil {
				p.Texts = append(p.Texts, textFile{ID: ids.make(f.Name), Name: f.Name, Text: string(b), Note: "not valid JSON lines: " + err.Error()})
				continue
			}
			points = v
			p.Points = &tableFile{ID: "points", Name: f.Name, Table: pointsTable(v)}
		case ext == ".json":
			if v, err := parseJSON(b); err == nil {
				p.Tables = append(p.Tables, tableFile{ID: ids.make(f.Name), Name: f.Name, Table: tableOf(v)})
			} else {
				p.Texts = append(p.Texts, textFile{ID: ids.make(f.Name), Name: f.Name, Text: string(b), Note: "not valid JSON: " + err.Error()})
			}
		case ext == ".csv" && !have[base+".json"] && !have[base+".jsonl"]:
			// A CSV beside a JSON of the same name holds the same rows.
			if t, err := csvTable(b); err == nil {
				p.Tables = append(p.Tables, tableFile{ID: ids.make(f.Name), Name: f.Name, Table: t})
			} else {
				p.Texts = append(p.Texts, textFile{ID: ids.make(f.Name), Name: f.Name, Text: string(b), Note: "not valid CSV: " + err.Error()})
			}
		case ext == ".txt":
			p.Texts = append(p.Texts, textFile{ID: ids.make(f.Name), Name: f.Name, Text: string(b)})
		case ext == ".png" || ext == ".svg":
			p.Charts = append(p.Charts, chartFile{ID: ids.make(f.Name), Name: f.Name, URI: dataURI(ext, b)})
		}
		p.Files = append(p.Files, fileEntry{Name: f.Name, Href: relHref(f.Name), Size: f.Size})
	}
	p.TOC = p.toc()
	var out bytes.Buffer
	if err := pageTemplate.Execute(&out, p); err != nil {
		return nil, err
	}
	pages := []Page{{Path: PageName, HTML: out.Bytes()}}
	if points != nil {
		for i, pt := range points.items {
			pg, err := pointPage(name, i, len(points.items), pt)
			if err != nil {
				return nil, err
			}
			pages = append(pages, pg)
		}
	}
	return pages, nil
}

// shown reports whether the page shows a file's contents (every file is
// listed).
func shown(name, ext string) bool {
	switch ext {
	case ".toml":
		return name == "config.toml"
	case ".json", ".jsonl", ".csv", ".txt", ".png", ".svg":
		return true
	}
	return false
}

// subtitle is the scenario and workload meta.json names.
func subtitle(meta *value) string {
	var parts []string
	for _, k := range []string{"scenario", "workload"} {
		if f := meta.field(k); f != nil && f.scalar() && f.text != "" {
			parts = append(parts, k+" "+f.text)
		}
	}
	return strings.Join(parts, ", ")
}

// toc is the table of contents: a section per kind of file present, an
// entry per file.
func (p *page) toc() []tocEntry {
	var toc []tocEntry
	if p.Config != nil {
		toc = append(toc, tocEntry{ID: p.Config.ID, Title: "Configuration"})
	}
	if p.Meta != nil {
		toc = append(toc, tocEntry{ID: p.Meta.ID, Title: p.MetaHeading})
	}
	if p.Points != nil {
		toc = append(toc, tocEntry{ID: p.Points.ID, Title: "Points"})
	}
	section := func(id, title string, names, ids []string) {
		if len(names) == 0 {
			return
		}
		e := tocEntry{ID: id, Title: title}
		for i := range names {
			e.Sub = append(e.Sub, tocEntry{ID: ids[i], Title: names[i]})
		}
		toc = append(toc, e)
	}
	var n, id []string
	for _, t := range p.Tables {
		n, id = append(n, t.Name), append(id, t.ID)
	}
	section("tables", "Tables", n, id)
	n, id = nil, nil
	for _, t := range p.Texts {
		n, id = append(n, t.Name), append(id, t.ID)
	}
	section("texts", "Text", n, id)
	n, id = nil, nil
	for _, c := range p.Charts {
		n, id = append(n, c.Name), append(id, c.ID)
	}
	section("charts", "Charts", n, id)
	if len(p.Files) > 0 {
		toc = append(toc, tocEntry{ID: "files", Title: "Files"})
	}
	return toc
}

type fileInfo struct {
	Name string
	Size int64
}

// listFiles lists the regular files of fsys in sorted order, leaving out
// report pages and hidden files and directories (a run's staging
// directories).
func listFiles(fsys fs.FS) ([]fileInfo, error) {
	var files []fileInfo
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() || d.Name() == PageName {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		files = append(files, fileInfo{Name: p, Size: fi.Size()})
		return nil
	})
	slices.SortFunc(files, func(a, b fileInfo) int { return strings.Compare(a.Name, b.Name) })
	return files, err
}

// dataURI embeds a chart in the page.
func dataURI(ext string, b []byte) template.URL {
	mime := "image/png"
	if ext == ".svg" {
		mime = "image/svg+xml"
	}
	return template.URL("data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b))
}

// relHref is a link to a file of the directory, relative to the page:
// each path segment escaped, so a name never reads as a scheme or query.
func relHref(name string) template.URL {
	segs := strings.Split(name, "/")
	for i, s := range segs {
		segs[i] = pathEscape(s)
	}
	h := strings.Join(segs, "/")
	if strings.Contains(segs[0], ":") {
		h = "./" + h
	}
	return template.URL(h)
}

// pathEscape escapes what a URL path segment may not hold.
func pathEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// idSet hands out anchors, one per file, unique in the page.
type idSet map[string]bool

func (s idSet) make(name string) string {
	var b strings.Builder
	b.WriteString("file-")
	for _, r := range name {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	id := b.String()
	for i := 2; s[id]; i++ {
		id = b.String() + "-" + strconv.Itoa(i)
	}
	s[id] = true
	return id
}
