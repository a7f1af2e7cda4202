package scenarios

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"nocsim/plots"
)

// WriteFile writes what fill produces to path whole or not at all.
func WriteFile(path string, fill func(*bytes.Buffer) error) error {
	var b bytes.Buffer
	if err := fill(&b); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return plots.WriteFileAtomic(path, &b)
}

// stagedDir is a result directory written whole or not at all: every file
// goes into a hidden directory beside the target (.NAME.incomplete-*),
// which commit renames into place, replacing an older result only then. A
// run that fails removes it; a killed run leaves only that clearly named
// directory, never a new config.toml beside old results.
type stagedDir struct {
	target, tmp string
	files       []string // final paths, in the order written
}

func stageDir(target string) (*stagedDir, error) {
	if fi, err := os.Stat(target); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("output directory %s is a file", target)
	}
	parent := filepath.Dir(target)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(target)+".incomplete-")
	if err != nil {
		return nil, err
	}
	// MkdirTemp uses 0700; a result directory is an ordinary one.
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &stagedDir{target: target, tmp: tmp}, nil
}

// write puts one file into the staged directory.
func (s *stagedDir) write(name string, fill func(*bytes.Buffer) error) error {
	return s.save(name, func(p string) error { return WriteFile(p, fill) })
}

// save lets save write one file (a chart) into the staged directory.
func (s *stagedDir) save(name string, save func(path string) error) error {
	if err := save(filepath.Join(s.tmp, name)); err != nil {
		return err
	}
	s.files = append(s.files, filepath.Join(s.target, name))
	return nil
}

// commit moves the finished directory into place. An old result is moved
// aside first and removed only once the new one is in place; if the final
// rename fails the old one is put back.
func (s *stagedDir) commit() error {
	old := ""
	if _, err := os.Lstat(s.target); err == nil {
		aside, err := os.MkdirTemp(filepath.Dir(s.target), "."+filepath.Base(s.target)+".old-")
		if err != nil {
			return err
		}
		os.Remove(aside) // only its unique name is wanted
		if err := os.Rename(s.target, aside); err != nil {
			return err
		}
		old = aside
	}
	if err := os.Rename(s.tmp, s.target); err != nil {
		if old != "" {
			os.Rename(old, s.target)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// abort removes the staged directory, leaving the target as it was.
func (s *stagedDir) abort() { os.RemoveAll(s.tmp) }

// finish ends a writer's use of the directory, deferred with the writer's
// named results: a failed run (*err set) aborts; a successful one commits,
// and the summary lists the files then in place.
func (s *stagedDir) finish(sum *Summary, err *error) {
	if *err != nil {
		s.abort()
		return
	}
	if *err = s.commit(); *err == nil {
		sum.Files = s.files
	}
}
