package scenarios

import (
	"bytes"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"time"
)

// Provenance says which build of nocsim, run how, produced a result.
type Provenance struct {
	Version     string   // nocsim's own version
	Revision    string   // VCS revision the binary was built from, or "unknown"
	Modified    string   // "true" if built from a modified tree, "false", or "unknown"
	GoVersion   string   // the Go toolchain that built it
	CommandLine []string // the program name (without its directory) and arguments
}

// BuildProvenance reads the VCS stamp from the binary's build information;
// where there is none (go test, a build outside a repository) revision and
// modified are "unknown". Only the base name of args[0] is kept: go run
// builds into a fresh temporary directory each time, which would make
// meta.json differ between identical runs.
func BuildProvenance(version string, args []string) Provenance {
	p := Provenance{Version: version, Revision: "unknown", Modified: "unknown", GoVersion: runtime.Version(),
		CommandLine: slices.Clone(args)}
	if len(p.CommandLine) > 0 {
		p.CommandLine[0] = filepath.Base(p.CommandLine[0])
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				p.Revision = s.Value
			case "vcs.modified":
				p.Modified = s.Value
			}
		}
	}
	return p
}

// Meta is meta.json: what produced a result directory. Date and Speed are
// the only wall-clock fields; everything else is the same for the same
// inputs.
type Meta struct {
	NocsimVersion string   `json:"nocsim_version"`
	VCSRevision   string   `json:"vcs_revision"`
	VCSModified   string   `json:"vcs_modified"`
	GoVersion     string   `json:"go_version"`
	Date          string   `json:"date"` // UTC, RFC 3339; wall clock
	CommandLine   []string `json:"command_line"`
	Scenario      string   `json:"scenario"`
	Workload      string   `json:"workload"`
	Seed          int64    `json:"seed"`     // [noc] seed
	AppSeed       int64    `json:"app_seed"` // [workload] app_seed
	SweepReps     int      `json:"sweep_reps,omitempty"`
	// Speed is written once the run is done (absent where the platform
	// has no process CPU time, and in a directory still being filled).
	Speed *Speed `json:"speed,omitempty"`
}

// MetaWallClockKeys are the keys of meta.json that depend on when it was
// written, not on the inputs.
var MetaWallClockKeys = []string{"date", "speed"}

func (p Provenance) meta(scenario, workload string, seed, appSeed int64) Meta {
	return Meta{NocsimVersion: p.Version, VCSRevision: p.Revision, VCSModified: p.Modified, GoVersion: p.GoVersion,
		Date: time.Now().UTC().Format(time.RFC3339), CommandLine: p.CommandLine,
		Scenario: scenario, Workload: workload, Seed: seed, AppSeed: appSeed}
}

// recordFiles fills config.toml (the effective configuration) and
// meta.json, as every result directory holds them.
func recordFiles(eff string, m Meta, write func(name string, fill func(*bytes.Buffer) error) error) error {
	if err := write("config.toml", func(b *bytes.Buffer) error { _, err := b.WriteString(eff); return err }); err != nil {
		return err
	}
	return write("meta.json", func(b *bytes.Buffer) error { return WriteJSON(b, m) })
}
