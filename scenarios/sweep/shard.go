package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Shard is one of N shares of a sweep's points: shard I holds the points
// whose index in the expansion is I modulo N. Round robin keeps shards
// within one point of each other in size and spreads neighbouring points
// (often of similar cost) over all shards; a point's shard depends only on
// its index and N, so every shard computes its share without knowing what
// the others do. Changing the axes or N reassigns points (a shard directory
// is named for its N, and a resumed shard matches points by configuration
// hash, so nothing stale is kept).
type Shard struct{ I, N int }

// MaxShards bounds N: more shards than points are empty, and a job array
// of more tasks than this is a mistake.
const MaxShards = 100000

// ParseShard reads "i/n" with 0 <= i < n <= MaxShards.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, erri := strconv.Atoi(a)
	n, errn := strconv.Atoi(b)
	if !ok || erri != nil || errn != nil || n < 1 || n > MaxShards || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("%q: want i/n with 0 <= i < n <= %d (shard i of n, counted from 0, e.g. 0/4)", s, MaxShards)
	}
	return Shard{I: i, N: n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// Owns says whether the point with this index belongs to the shard.
func (s Shard) Owns(index int) bool { return index%s.N == s.I }

// DirName is the shard's directory under the sweep's output directory.
func (s Shard) DirName() string { return fmt.Sprintf("shard-%d-of-%d", s.I, s.N) }

// Select keeps the points (and their scenarios) the shard owns, with their
// indices in the whole sweep.
func (s Shard) Select(pts []Point, scs []scenarios.Scenario) ([]Point, []scenarios.Scenario) {
	var sp []Point
	var ss []scenarios.Scenario
	for k, p := range pts {
		if s.Owns(p.Index) {
			sp = append(sp, p)
			ss = append(ss, scs[k])
		}
	}
	return sp, ss
}

// ShardManifestFile marks a finished shard: written last, removed when the
// shard starts, so its presence means every point of the shard is recorded.
const ShardManifestFile = "shard.json"

// ShardManifest is shard.json: which shard of which sweep a directory
// holds. ConfigSHA256 is the SHA-256 of the shard's config.toml (the
// effective configuration of the whole sweep file, so equal for shards of
// the same scenario and different otherwise).
type ShardManifest struct {
	Scenario     string `json:"scenario"`
	Shard        int    `json:"shard"`
	Shards       int    `json:"shards"`
	Points       int    `json:"sweep_points"` // points of the whole sweep
	ShardPoints  int    `json:"shard_points"` // points of this shard
	ConfigSHA256 string `json:"config_sha256"`
	Plots        bool   `json:"plots"` // [output] plots: the merge draws sweep.png
}

// StartShard removes a finished shard's manifest before the shard runs
// again, so a run that dies never leaves a directory that looks finished.
func StartShard(dir string) error {
	if err := os.Remove(filepath.Join(dir, ShardManifestFile)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// FinishShard writes shard.json once every point of the shard of sc's
// sweep is recorded (pts are the shard's points, total the sweep's).
func FinishShard(sc *scenarios.Scenario, dir string, s Shard, pts []Point, total int) error {
	cfg, err := os.ReadFile(filepath.Join(dir, "config.toml"))
	if err != nil {
		return err
	}
	for _, p := range pts {
		if p.Status == "" {
			return fmt.Errorf("shard %s: point %d has no result", s, p.Index)
		}
	}
	sum := sha256.Sum256(cfg)
	m := ShardManifest{Scenario: sc.Name, Shard: s.I, Shards: s.N, Points: total, ShardPoints: len(pts),
		ConfigSHA256: hex.EncodeToString(sum[:]), Plots: sc.Output.Plots}
	return scenarios.WriteFile(filepath.Join(dir, ShardManifestFile), func(b *bytes.Buffer) error { return report.WriteJSON(b, m) })
}
