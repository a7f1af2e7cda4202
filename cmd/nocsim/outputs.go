package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"

	"nocsim/plots"
	"nocsim/scenarios"
)

// Output paths are checked before any simulation starts, so that a long run
// never ends in "cannot write": a bad path is bad input (exit 2).

// checkOutputFile: path can be written as an output (plots/output.go
// says how each kind of path is written): "-" (standard output), a named
// pipe or a character device it can write to, or a file whose directory
// exists and is writable and whose name leaves room for the temporary file
// beside it. Directories, sockets and block devices are refused.
func checkOutputFile(what, path string) error {
	kind, target, err := plots.ResolveOutput(path)
	if err != nil {
		return usageErr("%s = %q: %v", what, path, err)
	}
	switch kind {
	case plots.OutputStdout:
		return nil
	case plots.OutputInPlace:
		if err := syscall.Access(target, 2 /* W_OK */); err != nil {
			return usageErr("%s = %q: not writable (%v)", what, path, err)
		}
		return nil
	}
	if n := len(filepath.Base(target)); n > plots.MaxOutputNameBytes {
		return usageErr("%s = %q: the file name has %d bytes; allowed at most %d (the temporary file beside it needs the rest of a name's 255)", what, path, n, plots.MaxOutputNameBytes)
	}
	// A link's target is replaced: its directory is the one that counts.
	dir := filepath.Dir(target)
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

// sameFile is what identifies an output file among a command's outputs:
// the real directory and the name of the file it replaces, "" for outputs
// written in place or to standard output (several outputs may follow one
// another there; none replaces another).
func sameFile(path string) string {
	kind, target, err := plots.ResolveOutput(path)
	if err != nil || kind != plots.OutputReplace {
		return ""
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(target))
	if err != nil {
		return ""
	}
	return filepath.Join(dir, filepath.Base(target))
}

// checkOutputDir: path can be used as an output directory. It is created if
// missing (with its parents), so the nearest existing ancestor must be a
// writable directory; if it exists it must be a writable directory.
func checkOutputDir(what, path string) error {
	if path == plots.Stdout {
		return usageErr("%s = %q: a directory of files cannot go to standard output; allowed a directory path", what, path)
	}
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
// given flags, those that are set, and that no two of the files are one:
// the second would replace the first.
func checkOutputFlags(c *cli.Context, files []string, dirs []string) error {
	named := map[string]string{} // sameFile -> flag
	for _, f := range files {
		p := c.String(f)
		if p == "" {
			continue
		}
		if err := checkOutputFile("--"+f, p); err != nil {
			return err
		}
		id := sameFile(p)
		if g, ok := named[id]; ok && id != "" {
			return usageErr("--%s = %q and --%s = %q name one file; allowed a different file for each output (the second would replace the first)", g, c.String(g), f, p)
		}
		named[id] = f
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

// checkRunDir checks the directory a scenario's run writes (validate
// checks it too, so that it accepts what run accepts): writable, and, as
// a run replaces it whole, new, empty or an earlier result. A sweep
// writes into its directory instead, replacing nothing but its own files.
func checkRunDir(sc *scenarios.Scenario) error {
	dir := sc.OutputDir()
	if err := checkScenarioDir(dir); err != nil {
		return err
	}
	if len(sc.Sweep.Axis) > 0 || sc.Sweep.Reps > 1 {
		return nil
	}
	if err := scenarios.CheckReplaceable(dir); err != nil {
		if sc.Output.Dir == "" {
			return usageErr("name = %q: %v", sc.Name, err)
		}
		return usageErr("[output] dir = %q: %v", sc.Output.Dir, err)
	}
	return nil
}

// replacesFile says whether path is written as a file (replaced whole),
// not to standard output, a pipe or a device: only a file name can take a
// run's point inserted before its extension.
func replacesFile(path string) bool {
	kind, _, err := plots.ResolveOutput(path)
	return err == nil && kind == plots.OutputReplace
}
