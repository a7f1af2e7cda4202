package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

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

// Staging directories are named PREFIX+WHAT-HOST.PID-N: WHAT is incomplete
// (being written) or old (a replaced result being removed), HOST and PID
// the process that made it, N random. The name says whose it is, so that
// a later run can tell a killed run's leftovers from a live run's work.

// maxHostBytes bounds the host part of a staging name.
const maxHostBytes = 32

// MaxResultNameBytes is the longest name a result directory can have: its
// staging directory's name, the longest name beside it, adds
// ".", ".incomplete-", HOST (up to 32 bytes), ".", PID, "-" and N (up to
// 10 digits each) and must fit 255 bytes.
const MaxResultNameBytes = maxNameBytes - len(".") - len(".incomplete-") - maxHostBytes - len(".") - 10 - len("-") - 10

// stagingOwner is this process's HOST.PID: the host name cut to
// maxHostBytes of letters, digits and dashes.
func stagingOwner() string {
	h, _ := os.Hostname()
	var b strings.Builder
	for _, r := range h {
		if b.Len() == maxHostBytes {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		b.WriteString("host")
	}
	return fmt.Sprintf("%s.%d", b.String(), os.Getpid())
}

// MkStaging makes dir/PREFIX+WHAT-HOST.PID-N, readable as any result
// directory is.
func MkStaging(dir, prefix, what string) (string, error) {
	tmp, err := os.MkdirTemp(dir, prefix+what+"-"+stagingOwner()+"-")
	if err != nil {
		return "", err
	}
	// MkdirTemp uses 0700; a result directory is an ordinary one.
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return tmp, nil
}

// CleanStale removes, in dir, the staging directories of PREFIX (of runs
// writing the same target) whose process is gone: made on this host by a
// process that no longer exists. Those of a live process (a concurrent
// run), of another host (which this one cannot ask) or named the way
// nocsim named them before it recorded the process are left alone and
// reported. A gone process's old result (.old-*) is put back as target
// when target is missing (the run was killed between its two renames);
// otherwise it is removed too. It returns one line per directory
// removed, restored or left.
func CleanStale(dir, prefix, target string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	host, _, _ := strings.Cut(stagingOwner(), ".")
	var notes []string
	for _, e := range entries {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || !e.IsDir() {
			continue
		}
		owner, ok := strings.CutPrefix(rest, "incomplete-")
		old := false
		if !ok {
			if owner, old = strings.CutPrefix(rest, "old-"); !old {
				continue
			}
		}
		p := filepath.Join(dir, name)
		h, pid, known := stagingProcess(owner)
		switch {
		case !known:
			notes = append(notes, fmt.Sprintf("left %s: a staging directory of an earlier nocsim, whose process is unknown; remove it if no run is writing it", p))
		case h != host:
			notes = append(notes, fmt.Sprintf("left %s: a staging directory of host %s, which this host cannot check; remove it if no run there is writing it", p, h))
		case processAlive(pid):
			notes = append(notes, fmt.Sprintf("left %s: process %d, another run of the same name, is still writing it", p, pid))
		case old && target != "" && !exists(target):
			if err := os.Rename(p, target); err != nil {
				notes = append(notes, fmt.Sprintf("could not put back %s, the result a killed run (process %d) had moved aside: %v", p, pid, err))
			} else {
				notes = append(notes, fmt.Sprintf("put back %s as %s: a killed run (process %d) had moved it aside", p, target, pid))
			}
		default:
			if err := os.RemoveAll(p); err != nil {
				notes = append(notes, fmt.Sprintf("could not remove %s, left by process %d, which is gone: %v", p, pid, err))
			} else {
				notes = append(notes, fmt.Sprintf("removed %s, left by process %d, which is gone (a killed run)", p, pid))
			}
		}
	}
	return notes
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// stagingProcess reads HOST.PID-N.
func stagingProcess(owner string) (host string, pid int, ok bool) {
	i := strings.LastIndexByte(owner, '-')
	if i < 0 {
		return "", 0, false
	}
	h, p, found := strings.Cut(owner[:i], ".")
	if !found || h == "" {
		return "", 0, false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return "", 0, false
	}
	return h, pid, true
}

// processAlive says whether a process pid runs on this host (signal 0
// checks without signalling; EPERM means it exists under another user). A
// zombie, killed and not yet reaped by its parent, writes nothing more.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc to ask: it exists
	}
	// "pid (comm) state ...": comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// CheckReplaceable says whether a run may replace dir, as it replaces its
// whole output directory: dir must not exist yet, be empty, or be an
// earlier nocsim result (one holding meta.json, which every run, sweep and
// the main job write). Anything else, such as the scenario's own
// directory named by [output] dir = ".", is refused before it is touched.
func CheckReplaceable(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return nil // nothing there to lose (a file in the way is refused elsewhere)
	}
	if _, err := os.Stat(filepath.Join(dir, "meta.json")); err == nil {
		return nil
	}
	return fmt.Errorf("%s holds %d entries and no meta.json, so it is no earlier nocsim result, and a run replaces its whole output directory; allowed a new or empty directory, or an earlier result", dir, len(entries))
}
