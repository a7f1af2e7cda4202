package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nocsim/scenarios"
	"nocsim/scenarios/sweep"
)

// shardSweep is 3 rates x 2 repetitions: 6 points, a few milliseconds.
const shardSweep = `name = "sh"
[network]
mesh = "2x2"
[noc]
measure_cycles = 500
warmup_cycles = 100
drain_cycles = 300
[workload]
kind = "noc"
[sweep]
reps = 2
[[sweep.axis]]
key = "noc.rates"
values = [0.05, 0.1, 0.15]
`

// resultFiles are the files a single-machine sweep writes.
var resultFiles = []string{"points.jsonl", "points.csv", "summary.csv", "config.toml", "meta.json", "sweep.png"}

// sameSweep compares two sweep directories file by file, meta.json's
// wall-clock fields aside.
func sameSweep(t *testing.T, got, want string) {
	t.Helper()
	g, w := readTree(t, got), readTree(t, want)
	for _, f := range resultFiles {
		a, b := g[f], w[f]
		if f == "meta.json" {
			a, b = metaWithoutDate(t, a), metaWithoutDate(t, b)
		}
		if b == "" || a != b {
			t.Errorf("%s: merged differs from the local run:\n%.500s\nlocal:\n%.500s", f, a, b)
		}
	}
}

func metaWithoutDate(t *testing.T, s string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("meta.json %q: %v", s, err)
	}
	for _, k := range scenarios.MetaWallClockKeys {
		delete(m, k)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// nocsim sweep --shard i/2 for both shards, then sweep merge, writes what
// nocsim sweep writes on one machine; a shard resumes on its own.
func TestSweepShardsCLI(t *testing.T) {
	dir := t.TempDir()
	file := writeScenario(t, dir, "s.toml", shardSweep)
	out := filepath.Join(dir, "results", "sh")
	for i, shard := range []string{"1/2", "0/2"} {
		code, stdout, stderr := nocsim(t, "sweep", "--quiet", "--shard", shard, file)
		if code != 0 || !strings.Contains(stdout, "shard "+shard+": 3 of 6 points") {
			t.Fatalf("shard %s: exit %d: %s %s", shard, code, stdout, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "shard-"+string(shard[0])+"-of-2", sweep.ShardManifestFile)); err != nil {
			t.Errorf("shard %s (run %d): %v", shard, i, err)
		}
	}
	// A killed shard: one point lost and the manifest gone; --resume
	// recomputes just that point.
	s1 := filepath.Join(out, "shard-1-of-2")
	log := filepath.Join(s1, "points.jsonl")
	full, _ := os.ReadFile(log)
	lines := strings.SplitAfter(string(full), "\n")
	os.WriteFile(log, []byte(strings.Join(lines[:2], "")), 0o644)
	os.Remove(filepath.Join(s1, sweep.ShardManifestFile))
	code, stdout, stderr := nocsim(t, "sweep", "merge", "--out", out, filepath.Join(out, "shard-0-of-2"), s1)
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, s1) || !strings.Contains(stderr, "not a finished shard") {
		t.Errorf("merge of an unfinished shard: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "points.jsonl")); !os.IsNotExist(err) {
		t.Error("a refused merge wrote points.jsonl")
	}
	code, _, stderr = nocsim(t, "sweep", "--quiet", "--resume", "--shard", "1/2", file)
	if code != 0 || !strings.Contains(stderr, "2 points reused, 1 recomputed") {
		t.Fatalf("resumed shard: exit %d: %s", code, stderr)
	}
	if again, _ := os.ReadFile(log); string(again) != string(full) {
		t.Error("the resumed shard's points differ from its first run")
	}
	code, stdout, stderr = nocsim(t, "sweep", "merge", "--out", out, filepath.Join(out, "shard-0-of-2"), s1)
	if code != 0 || !strings.Contains(stdout, "2 shards merged, 6 points") {
		t.Fatalf("merge: exit %d: %s %s", code, stdout, stderr)
	}
	// The same file, the same command line but for --shard: the merged
	// meta.json records the command that runs the sweep on one machine.
	if err := os.Rename(out, filepath.Join(dir, "merged")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := nocsim(t, "sweep", "--quiet", file); code != 0 {
		t.Fatalf("local sweep: exit %d: %s", code, stderr)
	}
	sameSweep(t, filepath.Join(dir, "merged"), out)
}

// Bad sharding input: exit 2, one line naming the flag and value, before
// anything runs or is written.
func TestSweepShardBadInput(t *testing.T) {
	dir := t.TempDir()
	file := writeScenario(t, dir, "s.toml", shardSweep)
	t.Setenv("PATH", t.TempDir()) // no sbatch
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"sweep", "--shard", "2/2", file}, []string{"--shard", "2/2", "0 <= i < n"}},
		{[]string{"sweep", "--shard", "x", file}, []string{"--shard", "x"}},
		{[]string{"sweep", "--shard", "0/0", file}, []string{"--shard", "0/0"}},
		{[]string{"sweep", "--shard", "", file}, []string{"--shard"}},
		{[]string{"sweep", "--out", "", file}, []string{"--out"}},
		{[]string{"sweep", "--shards", "4", file}, []string{"--shards", "--slurm"}},
		{[]string{"sweep", "--submit", file}, []string{"--submit", "--slurm"}},
		{[]string{"sweep", "--sbatch-args", "-p x", file}, []string{"--sbatch-args", "--slurm"}},
		{[]string{"sweep", "--slurm", "--shards", "0", file}, []string{"--shards", "0", "allowed"}},
		{[]string{"sweep", "--slurm", "--shard", "0/2", file}, []string{"--shard", "--shards"}},
		{[]string{"sweep", "--slurm", "--resume", file}, []string{"--resume", "--slurm"}},
		{[]string{"sweep", "--slurm", "--jobs", "2", file}, []string{"--jobs", "2", "--cpus-per-task"}},
		{[]string{"sweep", "--slurm", "--sbatch-args", "--array=0-9", file}, []string{"--sbatch-args", "--array"}},
		{[]string{"sweep", "--slurm", "--out", filepath.Join(dir, "a b"), file}, []string{"--out", "a b"}},
		{[]string{"sweep", "--slurm", "--submit", file}, []string{"--submit", "sbatch", "PATH"}},
		{[]string{"sweep", "merge", filepath.Join(dir, "x")}, []string{"--out"}},
		{[]string{"sweep", "merge", "--out", filepath.Join(dir, "m")}, []string{"shard directories"}},
		{[]string{"sweep", "merge", "--out", filepath.Join(dir, "m"), filepath.Join(dir, "nope")}, []string{"nope", "no such directory"}},
		{[]string{"sweep", "merge", "--bogus", "--out", filepath.Join(dir, "m"), dir}, []string{"bogus"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := nocsim(t, append([]string{"--quiet"}, c.args...)...)
			msg := strings.TrimSuffix(stderr, "\n")
			if code != exitUsage || stdout != "" || strings.Contains(msg, "\n") {
				t.Fatalf("exit %d, stdout %q, stderr %q: want exit 2 and one line", code, stdout, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not contain %q", msg, w)
				}
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("refused commands wrote into %s: %d entries", dir, len(entries))
	}
}

// --slurm writes the script into the output directory, naming this binary
// and the scenario file by absolute path, and simulates nothing.
func TestSweepSlurmScript(t *testing.T) {
	dir := t.TempDir()
	file := writeScenario(t, dir, "s.toml", shardSweep)
	t.Chdir(dir)
	code, stdout, stderr := nocsim(t, "sweep", "--slurm", "--shards", "3", "--sbatch-args", "--time=5", "s.toml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	base := filepath.Join(dir, "results", "sh")
	script, err := os.ReadFile(filepath.Join(base, sweep.SlurmScriptName))
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	self, _ = filepath.EvalSymlinks(self)
	for _, w := range []string{"#SBATCH --array=0-2\n", "#SBATCH --time=5\n", "'" + self + "' sweep", "'" + file + "'\n", "--out '" + base + "'/"} {
		if !strings.Contains(string(script), w) {
			t.Errorf("script lacks %q:\n%s", w, script)
		}
	}
	if !strings.Contains(stdout, "sbatch "+filepath.Join(base, sweep.SlurmScriptName)) {
		t.Errorf("stdout does not say how to submit: %s", stdout)
	}
	if entries, _ := os.ReadDir(base); len(entries) != 1 {
		t.Errorf("--slurm wrote more than the script: %d entries", len(entries))
	}
	// One task per point by default.
	if code, _, stderr := nocsim(t, "sweep", "--slurm", "s.toml"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	script, _ = os.ReadFile(filepath.Join(base, sweep.SlurmScriptName))
	if !strings.Contains(string(script), "#SBATCH --array=0-5\n") {
		t.Errorf("default shards: want one per point (6):\n%s", script)
	}
}

// nocsim help CMD lists every flag and subcommand of each command that has
// subcommands (urfave/cli's own template for such a command stops early).
func TestSubcommandHelpListsFlags(t *testing.T) {
	for _, cmd := range newApp(io.Discard, io.Discard).Commands {
		if len(cmd.Subcommands) == 0 {
			continue
		}
		for _, args := range [][]string{{"help", cmd.Name}, {cmd.Name, "--help"}} {
			code, stdout, stderr := nocsim(t, args...)
			if code != 0 {
				t.Fatalf("%q: exit %d: %s", args, code, stderr)
			}
			var want []string
			for _, sub := range cmd.Subcommands {
				want = append(want, "\n   "+sub.Name+" ")
			}
			for _, f := range cmd.Flags {
				want = append(want, "\n   --"+strings.Join(f.Names(), ", -")+" ")
			}
			for _, w := range want {
				if !strings.Contains(stdout, w) {
					t.Errorf("%q does not list %q:\n%s", args, w, stdout)
				}
			}
		}
	}
}
