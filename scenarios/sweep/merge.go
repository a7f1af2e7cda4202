package sweep

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MergeRefusal is a merge refused because of its input (a shard missing,
// unfinished, of another scenario or build): nothing was written.
type MergeRefusal struct{ Msg string }

func (e *MergeRefusal) Error() string { return e.Msg }

func refuse(format string, a ...any) error { return &MergeRefusal{Msg: fmt.Sprintf(format, a...)} }

// shardDir is what one finished shard directory holds.
type shardDir struct {
	dir    string
	man    ShardManifest
	config []byte
	meta   scenarios.Meta
	pts    []Point
}

// MergeResult says what Merge wrote.
type MergeResult struct {
	Scenario string
	Points   int
	Failed   int
	Files    []string // in out, in the order written
	Chart    bool     // sweep.png drawn
}

// Merge checks that dirs are the finished shards 0..n-1 of one sweep
// (same config.toml, same nocsim build, every point exactly once, each in
// its own shard) and writes into out exactly the files a single-machine
// sweep of the same file writes: points.jsonl, points.csv, summary.csv,
// config.toml, meta.json and, with [output] plots, sweep.png. meta.json is
// the shards' own but for date (the earliest shard's: when the sweep
// started) and command_line (the shards' without --shard, --out and --jobs:
// the command that runs the same sweep on one machine). Every check passes
// before any file is written; the files are staged in out and renamed into
// place only when all are written. A refusal is a *MergeRefusal.
func Merge(dirs []string, out string) (MergeResult, error) {
	var res MergeResult
	if len(dirs) == 0 {
		return res, refuse("give the shard directories to merge")
	}
	shards := make([]*shardDir, 0, len(dirs))
	for _, d := range dirs {
		if samePath(d, out) {
			return res, refuse("--out %s is one of the shard directories: merge into another directory (e.g. their parent)", out)
		}
		s, err := readShardDir(d)
		if err != nil {
			return res, err
		}
		shards = append(shards, s)
	}
	ref := shards[0]
	byIndex := map[int]*shardDir{}
	for _, s := range shards {
		if s.man.ConfigSHA256 != ref.man.ConfigSHA256 || s.man.Shards != ref.man.Shards || s.man.Points != ref.man.Points {
			return res, refuse("%s (shard %d/%d of %q, config.toml sha256 %.12s, %d points) and %s (shard %d/%d of %q, config.toml sha256 %.12s, %d points) are not shards of one sweep: refusing to mix them",
				ref.dir, ref.man.Shard, ref.man.Shards, ref.man.Scenario, ref.man.ConfigSHA256, ref.man.Points,
				s.dir, s.man.Shard, s.man.Shards, s.man.Scenario, s.man.ConfigSHA256, s.man.Points)
		}
		if a, b := buildOf(ref.meta), buildOf(s.meta); a != b {
			return res, refuse("%s was written by %s and %s by %s: merge shards run by one nocsim build", ref.dir, a, s.dir, b)
		}
		if o := byIndex[s.man.Shard]; o != nil {
			return res, refuse("shard %d/%d given twice: %s and %s", s.man.Shard, s.man.Shards, o.dir, s.dir)
		}
		byIndex[s.man.Shard] = s
	}
	n := ref.man.Shards
	var missing []string
	for i := 0; i < n; i++ {
		if byIndex[i] == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		if len(missing) > 10 {
			missing = append(missing[:10], fmt.Sprintf("and %d more", len(missing)-10))
		}
		return res, refuse("shard %s of %q missing: give the directory of every shard (run a missing one with nocsim sweep --shard i/%d FILE)",
			strings.Join(missing, ", "), ref.man.Scenario, n)
	}
	all := make([]Point, ref.man.Points)
	for i := 0; i < n; i++ {
		for _, p := range byIndex[i].pts {
			all[p.Index] = p
		}
	}
	for i, p := range all {
		if p.Status == "" {
			return res, refuse("point %d of %q is in no shard (shard %d/%d should hold it)", i, ref.man.Scenario, i%n, n)
		}
		if p.Status == "failed" {
			res.Failed++
		}
	}
	first := byIndex[0]
	m := first.meta
	for _, s := range shards {
		if s.meta.Date < m.Date {
			m.Date = s.meta.Date
		}
	}
	// The sweep's speed is that of all its shards together; a shard
	// without one (an older nocsim) leaves it unknown.
	m.Speed = nil
	if first.meta.Speed != nil {
		sum := scenarios.Speed{}
		for _, s := range shards {
			if s.meta.Speed == nil {
				sum = scenarios.Speed{}
				break
			}
			sum = sum.Add(*s.meta.Speed)
		}
		if sum.CPUSeconds > 0 {
			m.Speed = &sum
		}
	}
	m.CommandLine = withoutShardFlags(m.CommandLine)
	res.Scenario, res.Points = ref.man.Scenario, len(all)
	return res, writeMerged(out, all, first.config, m, ref.man, &res)
}

func samePath(a, b string) bool {
	x, errx := filepath.Abs(a)
	y, erry := filepath.Abs(b)
	return errx == nil && erry == nil && x == y
}

// buildOf names the build that wrote a shard, for comparison.
func buildOf(m scenarios.Meta) string {
	return fmt.Sprintf("nocsim %s (revision %s, modified %s, %s)", m.NocsimVersion, m.VCSRevision, m.VCSModified, m.GoVersion)
}

// readShardDir reads and checks one shard directory.
func readShardDir(dir string) (*shardDir, error) {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil, refuse("shard directory %s: no such directory", dir)
	}
	s := &shardDir{dir: dir}
	man, err := os.ReadFile(filepath.Join(dir, ShardManifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, refuse("%s is not a finished shard (no %s: the shard failed, was killed or is still running; run it again with --resume)", dir, ShardManifestFile)
	}
	if err != nil {
		return nil, refuse("%s: %v", dir, err)
	}
	if err := strictJSON(man, &s.man); err != nil || s.man.Shards < 1 || s.man.Shard < 0 || s.man.Shard >= s.man.Shards || s.man.Points < 0 {
		return nil, refuse("%s: unreadable %s (%v)", dir, ShardManifestFile, err)
	}
	if s.config, err = os.ReadFile(filepath.Join(dir, "config.toml")); err != nil {
		return nil, refuse("%s: %v", dir, err)
	}
	if sum := sha256.Sum256(s.config); hex.EncodeToString(sum[:]) != s.man.ConfigSHA256 {
		return nil, refuse("%s: config.toml does not match %s (edited after the shard ran?)", dir, ShardManifestFile)
	}
	meta, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return nil, refuse("%s: %v", dir, err)
	}
	if err := strictJSON(meta, &s.meta); err != nil {
		return nil, refuse("%s: unreadable meta.json (%v)", dir, err)
	}
	log := filepath.Join(dir, "points.jsonl")
	f, err := os.Open(log)
	if err != nil {
		return nil, refuse("%s: %v", dir, err)
	}
	defer f.Close()
	sh := Shard{I: s.man.Shard, N: s.man.Shards}
	seen := map[int]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for line := 1; sc.Scan(); line++ {
		var p Point
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil || p.Status == "" {
			return nil, refuse("%s line %d: not a recorded point", log, line)
		}
		if p.Index < 0 || p.Index >= s.man.Points || !sh.Owns(p.Index) || seen[p.Index] {
			return nil, refuse("%s line %d: point %d does not belong to shard %s of %d points (or is there twice)", log, line, p.Index, sh, s.man.Points)
		}
		seen[p.Index] = true
		s.pts = append(s.pts, p)
	}
	if err := sc.Err(); err != nil {
		return nil, refuse("%s: %v", log, err)
	}
	if len(s.pts) != s.man.ShardPoints {
		return nil, refuse("%s: %d points recorded, %s says the shard has %d", log, len(s.pts), ShardManifestFile, s.man.ShardPoints)
	}
	return s, nil
}

func strictJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// withoutShardFlags drops --shard, --out and --jobs (with their values)
// from a recorded command line: they say only which share of the points
// ran where, and how many at a time; what is left runs the same sweep on
// one machine.
func withoutShardFlags(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "shard" || name == "out" || name == "jobs") {
			if !hasValue {
				i++ // the value is the next argument
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// writeMerged stages every file in a hidden directory inside out, then
// renames them into out: out may already hold the shard directories (the
// default layout), which a whole-directory replace would delete.
func writeMerged(out string, pts []Point, config []byte, m scenarios.Meta, man ShardManifest, res *MergeResult) (err error) {
	if fi, err := os.Stat(out); err == nil && !fi.IsDir() {
		return refuse("--out %s is a file", out)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// A killed merge's staging directory goes with the next merge.
	scenarios.CleanStale(out, ".merge.", "")
	tmp, err := scenarios.MkStaging(out, ".merge.", "incomplete")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var names []string
	write := func(name string, fill func(*bytes.Buffer) error) error {
		names = append(names, name)
		return scenarios.WriteFile(filepath.Join(tmp, name), fill)
	}
	all := func(Point) bool { return true }
	if err := writePointLogs(filepath.Join(tmp, "points.jsonl"), filepath.Join(tmp, "points.csv"), pts, all); err != nil {
		return err
	}
	names = append(names, "points.jsonl", "points.csv")
	if err := write("summary.csv", func(b *bytes.Buffer) error { return writeSummary(b, pts) }); err != nil {
		return err
	}
	if err := write("config.toml", func(b *bytes.Buffer) error { _, err := b.Write(config); return err }); err != nil {
		return err
	}
	if err := write("meta.json", func(b *bytes.Buffer) error { return report.WriteJSON(b, m) }); err != nil {
		return err
	}
	if man.Plots {
		// The shards' effective configuration names the machine; a title
		// without it is still a chart of the points.
		var base *scenarios.Scenario
		if sc, _, err := scenarios.Decode(bytes.NewReader(config), "config.toml"); err == nil {
			base = &sc
		}
		if ch, ok := Chart(pts, man.Scenario, base); ok {
			if err := ch.Save(filepath.Join(tmp, "sweep.png"), 0, 0); err != nil {
				return err
			}
			names = append(names, "sweep.png")
			res.Chart = true
		}
	}
	if !res.Chart {
		// An older sweep's chart would describe other results.
		if err := os.Remove(filepath.Join(out, "sweep.png")); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	for _, name := range names {
		if err := os.Rename(filepath.Join(tmp, name), filepath.Join(out, name)); err != nil {
			return err
		}
		res.Files = append(res.Files, filepath.Join(out, name))
	}
	slices.Sort(res.Files)
	return nil
}
