package study

import (
	"bytes"
	"os"
	"path/filepath"

	"nocsim/scenarios"
	reporthtml "nocsim/scenarios/report/html"
)

// writeReport renders the staged directory's files as report.html and
// writes it beside them, last, so that the page shows every other file
// (meta.json with the run's speed included).
func writeReport(out *scenarios.StagedDir) error {
	pages, err := reporthtml.Render(out.FS(), out.Name())
	if err != nil {
		return err
	}
	for _, p := range pages {
		if err := out.Save(p.Path, func(path string) error {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			return scenarios.WriteFile(path, func(b *bytes.Buffer) error { _, err := b.Write(p.HTML); return err })
		}); err != nil {
			return err
		}
	}
	return nil
}
