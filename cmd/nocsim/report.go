package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"nocsim/scenarios"
	reporthtml "nocsim/scenarios/report/html"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "write DIR/report.html: a results directory (main job, run, sweep) as one self-contained HTML page of its configuration, provenance, tables, text and charts",
		UsageText: "nocsim report nocsim-results",
		Flags:     []cli.Flag{quietFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("report needs one results directory, got %d arguments", c.NArg())
			}
			dir := c.Args().First()
			if err := checkReportDir(dir); err != nil {
				return err
			}
			if validateOnly {
				return nil
			}
			files, err := writeReportDir(dir)
			if err != nil {
				return runErr(err)
			}
			fmt.Fprintf(c.App.Writer, "report of %s:\n", dir)
			for _, f := range files {
				fmt.Fprintln(c.App.Writer, "  "+f)
			}
			return nil
		},
		OnUsageError: onUsageError("report", false),
	}
}

// reportFlag asks a command that writes a results directory (run, sweep)
// for its report page too.
var reportFlag = &cli.BoolFlag{Name: "report", Usage: "also write report.html in the results directory: every file of it as one self-contained HTML page (see nocsim report)"}

// checkReportDir checks, before anything is written, that dir is a
// results directory (it holds meta.json, which every run, sweep and the
// main job write) whose report page can be written.
func checkReportDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return usageErr("report DIR = %q: no such directory; allowed a results directory (one holding meta.json)", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "meta.json")); err != nil {
		return usageErr("report DIR = %q: holds no meta.json, so it is no nocsim results directory; allowed one written by the main job, run or sweep", dir)
	}
	return checkOutputFile("report DIR", filepath.Join(dir, reporthtml.PageName))
}

// writeReportDir renders dir and writes its pages (report.html, and a
// sweep's point pages) into it, each written whole or not at all; it
// returns the files written.
func writeReportDir(dir string) ([]string, error) {
	name := filepath.Base(filepath.Clean(dir))
	if abs, err := filepath.Abs(dir); err == nil {
		name = filepath.Base(abs)
	}
	pages, err := reporthtml.Render(os.DirFS(dir), name)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, p := range pages {
		path := filepath.Join(dir, filepath.FromSlash(p.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return files, err
		}
		if err := scenarios.WriteFile(path, func(b *bytes.Buffer) error { _, err := b.Write(p.HTML); return err }); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}

// removeReportPages removes a sweep directory's report pages before the
// sweep writes its points again, so that no page shows results the sweep
// no longer holds: report.html and points/*/report.html, and the point
// directories they leave empty.
func removeReportPages(dir string) error {
	err := os.Remove(filepath.Join(dir, reporthtml.PageName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	pts, _ := os.ReadDir(filepath.Join(dir, "points"))
	for _, e := range pts {
		if !e.IsDir() || strings.Trim(e.Name(), "0123456789") != "" {
			continue
		}
		p := filepath.Join(dir, "points", e.Name())
		if err := os.Remove(filepath.Join(p, reporthtml.PageName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		os.Remove(p) // only if empty
	}
	os.Remove(filepath.Join(dir, "points"))
	return nil
}
