package scenarios

import (
	"bytes"
	"nocsim/scenarios/report"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
)

// Provenance says which build of nocsim, run how, produced a result.
type Provenance struct {
	Version  string // nocsim's own version
	Revision string // VCS revision the binary was built from, or "unknown"
	Modified string // "true" if built from a modified tree, "false", or "unknown"
	// RevisionSource says where Revision and Modified came from:
	// RevisionFromBuildInfo, RevisionFromGit or "unknown".
	RevisionSource string
	GoVersion      string   // the Go toolchain that built it
	CommandLine    []string // the program name (without its directory) and arguments
}

// Where a Provenance's revision came from.
const (
	RevisionFromBuildInfo = "build info" // the VCS stamp go build writes into the binary
	RevisionFromGit       = "git"        // git asked in the source directory at run time
)

// BuildProvenance reads the VCS stamp from the binary's build information.
// go run, go test and builds in a git worktree carry none; then git is
// asked in the directory this file was compiled from (see gitStamp), and
// where that fails too revision and modified are "unknown". Only the base
// name of args[0] is kept: go run builds into a fresh temporary directory
// each time, which would make meta.json differ between identical runs.
func BuildProvenance(version string, args []string) Provenance {
	p := Provenance{Version: version, GoVersion: runtime.Version(), CommandLine: slices.Clone(args)}
	if len(p.CommandLine) > 0 {
		p.CommandLine[0] = filepath.Base(p.CommandLine[0])
	}
	var settings []debug.BuildSetting
	if bi, ok := debug.ReadBuildInfo(); ok {
		settings = bi.Settings
	}
	p.Revision, p.Modified, p.RevisionSource = vcsStamp(settings, sourceDirGit)
	return p
}

// vcsStamp is the revision, modified flag and their source: the build
// settings' vcs.revision when present, else what git says (git returns
// ok false when it cannot tell), else "unknown" for all three.
func vcsStamp(settings []debug.BuildSetting, git func() (rev, modified string, ok bool)) (rev, modified, source string) {
	rev, modified = "unknown", "unknown"
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "unknown" {
		return rev, modified, RevisionFromBuildInfo
	}
	if r, m, ok := git(); ok {
		return r, m, RevisionFromGit
	}
	return "unknown", "unknown", "unknown"
}

// sourceDirGit asks git once per process about the tree this package was
// compiled from. The path runtime.Caller reports is the source file's at
// build time: absolute under go run and go test, module-relative under
// -trimpath (then there is nothing to ask).
func sourceDirGit() (rev, modified string, ok bool) {
	g := sourceDirGitOnce()
	return g.rev, g.modified, g.ok
}

var sourceDirGitOnce = sync.OnceValue(func() (g struct {
	rev, modified string
	ok            bool
}) {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		g.rev, g.modified, g.ok = GitStamp(filepath.Dir(file))
	}
	return g
})

// GitStamp is what go build would stamp for a build in dir: the commit
// checked out (git rev-parse HEAD) and whether the tree differs from it,
// untracked files included (git status --porcelain, as go build asks).
// ok is false where git is missing or dir is not in a repository.
func GitStamp(dir string) (rev, modified string, ok bool) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", "", false
	}
	out, err := exec.Command(git, "-C", dir, "rev-parse", "HEAD").Output()
	rev = strings.TrimSpace(string(out))
	if err != nil || len(rev) < 40 {
		return "", "", false
	}
	status, err := exec.Command(git, "-C", dir, "status", "--porcelain").Output()
	if err != nil {
		return "", "", false
	}
	modified = "false"
	if len(bytes.TrimSpace(status)) > 0 {
		modified = "true"
	}
	return rev, modified, true
}

// Meta is meta.json: what produced a result directory. Date and Speed are
// the only wall-clock fields; everything else is the same for the same
// inputs.
type Meta struct {
	NocsimVersion string `json:"nocsim_version"`
	VCSRevision   string `json:"vcs_revision"`
	VCSModified   string `json:"vcs_modified"`
	// VCSRevisionSource says where the two came from: "build info",
	// "git" (asked at run time: go run, go test, a git worktree) or
	// "unknown".
	VCSRevisionSource string   `json:"vcs_revision_source"`
	GoVersion         string   `json:"go_version"`
	Date              string   `json:"date"` // UTC, RFC 3339; wall clock
	CommandLine       []string `json:"command_line"`
	Scenario          string   `json:"scenario"`
	Workload          string   `json:"workload"`
	Seed              int64    `json:"seed"`     // [noc] seed
	AppSeed           int64    `json:"app_seed"` // [workload] app_seed
	SweepReps         int      `json:"sweep_reps,omitempty"`
	// Speed is written once the run is done (absent where the platform
	// has no process CPU time, and in a directory still being filled).
	Speed *Speed `json:"speed,omitempty"`
}

// MetaWallClockKeys are the keys of meta.json that depend on when it was
// written, not on the inputs.
var MetaWallClockKeys = []string{"date", "speed"}

// Meta is meta.json for a run of workload on the named scenario.
func (p Provenance) Meta(scenario, workload string, seed, appSeed int64) Meta {
	return Meta{NocsimVersion: p.Version, VCSRevision: p.Revision, VCSModified: p.Modified, VCSRevisionSource: p.RevisionSource, GoVersion: p.GoVersion,
		Date: time.Now().UTC().Format(time.RFC3339), CommandLine: p.CommandLine,
		Scenario: scenario, Workload: workload, Seed: seed, AppSeed: appSeed}
}

// RecordFiles fills config.toml (the effective configuration) and
// meta.json, as every result directory holds them.
func RecordFiles(eff string, m Meta, write func(name string, fill func(*bytes.Buffer) error) error) error {
	if err := write("config.toml", func(b *bytes.Buffer) error { _, err := b.WriteString(eff); return err }); err != nil {
		return err
	}
	return write("meta.json", func(b *bytes.Buffer) error { return report.WriteJSON(b, m) })
}
