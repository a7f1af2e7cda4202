package plots

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Output paths are checked before any simulation starts, so that a long run
// never ends in "cannot write". The errors say what is wrong with the path;
// the caller names the flag or key and the path.

// CheckFile says whether path can be written as an output (ResolveOutput
// says how each kind of path is written): Stdout, a named pipe or a
// character device it can write to, or a file whose directory exists and
// is writable and whose name leaves room for the temporary file beside it.
// Directories, sockets and block devices are refused.
func CheckFile(path string) error {
	kind, target, err := ResolveOutput(path)
	if err != nil {
		return err
	}
	switch kind {
	case OutputStdout:
		return nil
	case OutputInPlace:
		if err := syscall.Access(target, 2 /* W_OK */); err != nil {
			return fmt.Errorf("not writable (%v)", err)
		}
		return nil
	}
	if n := len(filepath.Base(target)); n > MaxOutputNameBytes {
		return fmt.Errorf("the file name has %d bytes; allowed at most %d (the temporary file beside it needs the rest of a name's 255)", n, MaxOutputNameBytes)
	}
	// A link's target is replaced: its directory is the one that counts.
	dir := filepath.Dir(target)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("directory %s does not exist", dir)
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%s is not a directory (a file stands in its path)", dir)
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	return writableDir(dir)
}

// SameFile is what identifies an output file among a command's outputs:
// the real directory and the name of the file it replaces, "" for outputs
// written in place or to standard output (several outputs may follow one
// another there; none replaces another).
func SameFile(path string) string {
	kind, target, err := ResolveOutput(path)
	if err != nil || kind != OutputReplace {
		return ""
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(target))
	if err != nil {
		return ""
	}
	return filepath.Join(dir, filepath.Base(target))
}

// CheckDir says whether path can be used as an output directory. It is
// created if missing (with its parents), so the nearest existing ancestor
// must be a writable directory; if it exists it must be a writable
// directory.
func CheckDir(path string) error {
	if path == Stdout {
		return errors.New("a directory of files cannot go to standard output; allowed a directory path")
	}
	p := filepath.Clean(path)
	for {
		fi, err := os.Stat(p)
		if err == nil {
			if !fi.IsDir() {
				if p == filepath.Clean(path) {
					return errors.New("is a file; allowed a directory")
				}
				return fmt.Errorf("%s is a file, not a directory", p)
			}
			return writableDir(p)
		}
		// Not there (or a file stands in the way): look further up.
		parent := filepath.Dir(p)
		if parent == p {
			return err
		}
		p = parent
	}
}

// writableDir tries what a write does: create a file in dir.
func writableDir(dir string) error {
	f, err := os.CreateTemp(dir, ".nocsim-write-check-*")
	if err != nil {
		return fmt.Errorf("directory %s is not writable", dir)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// ReplacesFile says whether path is written as a file (replaced whole),
// not to standard output, a pipe or a device: only a file name can take a
// run's point inserted before its extension.
func ReplacesFile(path string) bool {
	kind, _, err := ResolveOutput(path)
	return err == nil && kind == OutputReplace
}
