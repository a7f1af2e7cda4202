package plots

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Where an output goes. Every nocsim output file, charts included, is
// written by WriteFileAtomic under these rules (docs/output.md, "Where
// outputs go"):
//
//   - "-", /dev/stdout, /dev/fd/1 and /proc/self/fd/1 are standard output.
//   - A symbolic link is followed: the rules apply to its final target, and
//     the link stays a link.
//   - A regular file, or a path where nothing is yet, is replaced whole or
//     not at all: a temporary file beside the (link's) target is renamed
//     over it only when complete.
//   - A named pipe or a character device (/dev/null, a terminal) is opened
//     and written in place: never created, truncated or replaced.
//   - A path under /proc (what /dev/stderr and /dev/fd/N lead to) is an
//     open file of this process: written in place, appended to if it is a
//     regular file (a shell's redirection), never replaced.
//   - A directory, a socket or a block device is refused.

// Stdout is the path that names standard output.
const Stdout = "-"

// OutputKind says how an output path is written.
type OutputKind int

const (
	// OutputReplace: a regular file or a new one, replaced whole.
	OutputReplace OutputKind = iota
	// OutputStdout: standard output.
	OutputStdout
	// OutputInPlace: a named pipe, a character device or an open file
	// under /proc, opened and written as it is.
	OutputInPlace
)

// maxLinks bounds a chain of symbolic links (Linux's own limit).
const maxLinks = 40

// MaxOutputNameBytes is the longest file name an output can have: the
// temporary file beside it adds "." before and ".NNNNNNNNNN.tmp" after it,
// and a name in a directory holds at most 255 bytes on common file systems.
const MaxOutputNameBytes = 255 - len(".") - len(".4294967295.tmp")

// ResolveOutput says how path is written and where: for OutputReplace the
// final target of any symbolic links (where the temporary file goes
// beside), for OutputInPlace the path to open. A directory, a socket, a
// block device or a loop of links is an error saying what is allowed.
func ResolveOutput(path string) (OutputKind, string, error) {
	if path == Stdout || isStdoutPath(path) {
		return OutputStdout, path, nil
	}
	p := path
	for hops := 0; ; hops++ {
		if underProc(p) {
			// /proc/self/fd/N links to "pipe:[...]" or a socket as
			// well as to files: only the kernel can follow it.
			return OutputInPlace, p, nil
		}
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return OutputReplace, p, nil // a new file, or a dangling link's target
		case err != nil:
			return 0, "", err
		}
		m := fi.Mode()
		switch {
		case m&fs.ModeSymlink != 0:
			if hops == maxLinks {
				return 0, "", fmt.Errorf("more than %d symbolic links in a chain (a loop?)", maxLinks)
			}
			t, err := os.Readlink(p)
			if err != nil {
				return 0, "", err
			}
			if !filepath.IsAbs(t) {
				// Relative to the link's real directory: joined to a
				// path through other links, ".." would be resolved
				// lexically, and wrongly.
				d, err := filepath.EvalSymlinks(filepath.Dir(p))
				if err != nil {
					return 0, "", err
				}
				t = filepath.Join(d, t)
			}
			p = t
		case m.IsRegular():
			return OutputReplace, p, nil
		case m&fs.ModeNamedPipe != 0, m&fs.ModeCharDevice != 0:
			return OutputInPlace, p, nil
		default:
			what := "a directory"
			switch {
			case m&fs.ModeSocket != 0:
				what = "a socket"
			case m&fs.ModeDevice != 0:
				what = "a block device"
			case !m.IsDir():
				what = "not a regular file"
			}
			if p != path {
				what = fmt.Sprintf("links to %s, %s", p, what)
			} else {
				what = "is " + what
			}
			return 0, "", fmt.Errorf("%s; allowed a file, a named pipe, a character device (/dev/null) or - for standard output", what)
		}
	}
}

// isStdoutPath: the names of file descriptor 1 that are written as "-".
func isStdoutPath(path string) bool {
	switch filepath.Clean(path) {
	case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return true
	}
	return false
}

func underProc(p string) bool {
	return strings.HasPrefix(filepath.Clean(p), "/proc/")
}

// WriteFileAtomic writes w to path under the rules above: standard output
// for "-", in place for pipes and devices, and otherwise whole or not at
// all, through a temporary file beside the final target renamed over it
// only when complete. A file it replaces keeps its permissions; a new one
// is made readable by all (0644), as every nocsim output is.
func WriteFileAtomic(path string, w io.WriterTo) error {
	kind, target, err := ResolveOutput(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	switch kind {
	case OutputStdout:
		if _, err := w.WriteTo(os.Stdout); err != nil {
			return fmt.Errorf("writing %s (standard output): %w", path, bare(err))
		}
		return nil
	case OutputInPlace:
		return writeInPlace(path, target, w)
	}
	return replaceFile(path, target, w)
}

// writeInPlace opens target as it is (no O_CREATE, no O_TRUNC) and writes
// to it; an open file reached through /proc is appended to, so that what
// the process wrote to it before stays.
func writeInPlace(path, target string, w io.WriterTo) (err error) {
	flag := os.O_WRONLY
	if underProc(target) {
		flag |= os.O_APPEND
	}
	f, err := os.OpenFile(target, flag, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, bare(err))
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, bare(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, bare(err))
	}
	return nil
}

// replaceFile writes a temporary file beside target and renames it over
// target when complete; on any error the temporary file is removed and
// target is as it was.
func replaceFile(path, target string, w io.WriterTo) (err error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		perm = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, bare(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = w.WriteTo(tmp); err != nil {
		return fmt.Errorf("writing %s: %w", path, bare(err))
	}
	// CreateTemp uses 0600; an output is an ordinary file.
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("writing %s: %w", path, bare(err))
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, bare(err))
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("writing %s: %w", path, bare(err))
	}
	return nil
}

// bare drops the path and operation a *fs.PathError repeats ("write
// /dev/full: no space left on device"), which the message names already.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
