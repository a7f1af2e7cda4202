package html

import "html/template"

// pageTemplate lays a page out. Everything is in the one file: the style
// inline, charts as data: URIs, no script, no font, no link outside the
// directory, so that the page shows offline and the browser fetches
// nothing. html/template escapes every text taken from the files.
var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 0 2em 2em 2em; color: #222; background: #fff; }
h1 { margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #3b6ea5; padding-bottom: 0.2em; margin-top: 1.6em; }
h3 { margin-bottom: 0.3em; }
.sub { color: #555; margin-top: 0; }
nav { background: #f3f6fa; border: 1px solid #cbd6e2; padding: 0.5em 1.5em; display: inline-block; }
nav ul { margin: 0.2em 0; padding-left: 1.2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.3em 0; }
th, td { border: 1px solid #cbd6e2; padding: 0.15em 0.4em; vertical-align: top; text-align: left; }
thead th { background: #e4ecf5; position: sticky; top: 0; }
tbody th { background: #f3f6fa; font-weight: normal; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) td { background: #fafbfc; }
.wide { overflow-x: auto; max-width: 100%; }
details summary { cursor: pointer; color: #3b6ea5; }
pre { background: #f6f6f6; border: 1px solid #ddd; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
.note { color: #a33; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #ddd; }
</style>
</head>
<body>
<header id="top">
<h1>{{.Title}}</h1>
{{with .Subtitle}}<p class="sub">{{.}}</p>{{end}}
{{with .Back}}<p><a href="{{.}}">back to the sweep</a></p>{{end}}
</header>
<nav id="contents"><strong>Contents</strong>
<ul>{{range .TOC}}
<li><a href="#{{.ID}}">{{.Title}}</a>{{if .Sub}}<ul>{{range .Sub}}<li><a href="#{{.ID}}">{{.Title}}</a></li>{{end}}</ul>{{end}}</li>{{end}}
</ul></nav>
{{with .Config}}<section id="{{.ID}}"><h2>Configuration</h2>
<p>{{.Name}}</p>
<pre>{{.Text}}</pre></section>
{{end}}{{with .Meta}}<section id="{{.ID}}"><h2>{{$.MetaHeading}}</h2>
<p>{{.Name}}</p>
<div class="wide">{{template "table" .Table}}</div></section>
{{end}}{{with .Points}}<section id="{{.ID}}"><h2>Points</h2>
<p>{{.Name}}: each point links to its own page with its result rows.</p>
<div class="wide">{{template "table" .Table}}</div></section>
{{end}}{{if .Tables}}<section id="tables"><h2>Tables</h2>
{{range .Tables}}<section id="{{.ID}}"><h3>{{.Name}}</h3>
<div class="wide">{{template "table" .Table}}</div></section>
{{end}}</section>
{{end}}{{if .Texts}}<section id="texts"><h2>Text</h2>
{{range .Texts}}<section id="{{.ID}}"><h3>{{.Name}}</h3>
{{with .Note}}<p class="note">{{.}}</p>{{end}}<pre>{{.Text}}</pre></section>
{{end}}</section>
{{end}}{{if .Charts}}<section id="charts"><h2>Charts</h2>
{{range .Charts}}<section id="{{.ID}}"><h3>{{.Name}}</h3>
<figure><img src="{{.URI}}" alt="{{.Name}}"></figure></section>
{{end}}</section>
{{end}}{{if .Files}}<section id="files"><h2>Files</h2>
<table><thead><tr><th>file</th><th>size (bytes)</th></tr></thead><tbody>
{{range .Files}}<tr><td><a href="{{.Href}}">{{.Name}}</a></td><td class="n">{{.Size}}</td></tr>
{{end}}</tbody></table></section>
{{end}}</body>
</html>
{{define "table"}}<table>{{if .Columns}}<thead><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr></thead>{{end}}<tbody>
{{range .Rows}}<tr>{{range .}}{{template "cell" .}}{{end}}</tr>
{{end}}</tbody></table>{{end}}
{{define "cell"}}{{if .Head}}<th scope="row">{{.Text}}</th>{{else}}<td{{if .Num}} class="n"{{end}}>{{if .Nested}}<details><summary>{{.Summary}}</summary>{{template "table" .Nested}}</details>{{else if .Summary}}<details><summary>{{.Summary}}</summary>{{.Text}}</details>{{else if .Href}}<a href="{{.Href}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}</td>{{end}}{{end}}
`))
