package scenarios

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// StagedDir is a result directory written whole or not at all: every file
// goes into a hidden directory beside the target (.NAME.incomplete-*),
// which commit renames into place, replacing an older result only then. A
// run that fails removes it; a killed run leaves only that clearly named
// directory, never a new config.toml beside old results, and the next run
// of the same name removes it (see CleanStale).
type StagedDir struct {
	target, tmp string
	files       []string // final paths, in the order written
	notes       []string // stale staging directories removed or found
}

// StageDir starts writing the result directory target.
func StageDir(target string) (*StagedDir, error) {
	if fi, err := os.Stat(target); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("output directory %s is a file", target)
	}
	if err := CheckReplaceable(target); err != nil {
		return nil, err
	}
	parent := filepath.Dir(target)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	prefix := "." + filepath.Base(target) + "."
	notes := CleanStale(parent, prefix, target)
	tmp, err := MkStaging(parent, prefix, "incomplete")
	if err != nil {
		return nil, err
	}
	return &StagedDir{target: target, tmp: tmp, notes: notes}, nil
}

// Write puts one file into the staged directory.
func (s *StagedDir) Write(name string, fill func(*bytes.Buffer) error) error {
	return s.Save(name, func(p string) error { return WriteFile(p, fill) })
}

// Save lets save write one file (a chart) into the staged directory.
func (s *StagedDir) Save(name string, save func(path string) error) error {
	if err := save(filepath.Join(s.tmp, name)); err != nil {
		return err
	}
	s.files = append(s.files, filepath.Join(s.target, name))
	return nil
}

// commit moves the finished directory into place. An old result is moved
// aside first and removed only once the new one is in place; if the final
// rename fails the old one is put back.
func (s *StagedDir) commit() error {
	old := ""
	if _, err := os.Lstat(s.target); err == nil {
		aside, err := MkStaging(filepath.Dir(s.target), "."+filepath.Base(s.target)+".", "old")
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
func (s *StagedDir) abort() { os.RemoveAll(s.tmp) }

// FS reads the files written so far (to render the report page from
// them before the directory is moved into place).
func (s *StagedDir) FS() fs.FS { return os.DirFS(s.tmp) }

// Name is the target directory's base name: what the files are called
// once in place, never the staging directory's name.
func (s *StagedDir) Name() string { return filepath.Base(s.target) }

// Rewrite replaces a file already written (meta.json, once the run's
// speed is known); the list of files stays as it was.
func (s *StagedDir) Rewrite(name string, fill func(*bytes.Buffer) error) error {
	return WriteFile(filepath.Join(s.tmp, name), fill)
}

// Finish ends a writer's use of the directory, deferred with the writer's
// named error: a failed run (*err set) aborts; a successful one commits
// and returns the files then in place and the notes on stale staging
// directories removed or found.
func (s *StagedDir) Finish(err *error) (files, notes []string) {
	if *err != nil {
		s.abort()
		return nil, nil
	}
	if *err = s.commit(); *err == nil {
		return s.files, s.notes
	}
	return nil, nil
}
