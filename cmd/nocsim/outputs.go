package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"
)

// Output paths are checked before any simulation starts, so that a long run
// never ends in "cannot write": a bad path is bad input (exit 2).

// checkOutputFile: path can be written as a file. Its directory must exist
// and be writable, and the path must not be a directory.
func checkOutputFile(what, path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usageErr("%s = %q: is a directory; allowed a file path", what, path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageErr("%s = %q: directory %s does not exist", what, path, dir)
	case errors.Is(err, syscall.ENOTDIR):
		return usageErr("%s = %q: %s is not a directory (a file stands in its path)", what, path, dir)
	case err != nil:
		return usageErr("%s = %q: %v", what, path, err)
	case !fi.IsDir():
		return usageErr("%s = %q: %s is not a directory", what, path, dir)
	}
	return writableDir(what, path, dir)
}

// checkOutputDir: path can be used as an output directory. It is created if
// missing (with its parents), so the nearest existing ancestor must be a
// writable directory; if it exists it must be a writable directory.
func checkOutputDir(what, path string) error {
	p := filepath.Clean(path)
	for {
		fi, err := os.Stat(p)
		if err == nil {
			if !fi.IsDir() {
				if p == filepath.Clean(path) {
					return usageErr("%s = %q: is a file; allowed a directory", what, path)
				}
				return usageErr("%s = %q: %s is a file, not a directory", what, path, p)
			}
			return writableDir(what, path, p)
		}
		// Not there (or a file stands in the way): look further up.
		parent := filepath.Dir(p)
		if parent == p {
			return usageErr("%s = %q: %v", what, path, err)
		}
		p = parent
	}
}

// writableDir tries what a write does: create a file in dir.
func writableDir(what, path, dir string) error {
	f, err := os.CreateTemp(dir, ".nocsim-write-check-*")
	if err != nil {
		return usageErr("%s = %q: directory %s is not writable", what, path, dir)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// checkOutputFlags checks the output files and directories named by the
// given flags, those that are set.
func checkOutputFlags(c *cli.Context, files []string, dirs []string) error {
	for _, f := range files {
		if p := c.String(f); p != "" {
			if err := checkOutputFile("--"+f, p); err != nil {
				return err
			}
		}
	}
	for _, d := range dirs {
		if p := c.String(d); p != "" {
			if err := checkOutputDir("--"+d, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkScenarioDir checks a scenario's [output] dir.
func checkScenarioDir(dir string) error {
	return checkOutputDir("[output] dir", dir)
}
