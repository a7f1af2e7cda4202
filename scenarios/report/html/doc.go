// Package html renders a results directory as one self-contained HTML
// page (report.html): its configuration (config.toml), provenance
// (meta.json), every JSON result as a table, every text file, every chart
// (PNG and SVG embedded as data: URIs) and a list of its files, under a
// table of contents with in-page anchors. A sweep's directory (one with
// points.jsonl) gets a summary page linking to one page per point.
//
// It reads the directory through an fs.FS and returns the pages as bytes,
// so that a caller writing a staged directory (the main job, nocsim run)
// can render the files before they are moved into place and write the
// pages whole beside them. It imports nothing of nocsim: a page shows the
// files as they are, whatever wrote them, and the same files give the same
// bytes (sorted order, no clock, no paths outside the directory).
package html
