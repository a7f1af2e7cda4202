package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// slurmWait bounds how long the test waits for the job array to finish
// (a 2-task array of a 6-point sweep takes a few seconds on an idle node).
const slurmWait = 3 * time.Minute

// slurmUp says why Slurm cannot run the test, or "" when a node is up.
func slurmUp() string {
	for _, b := range []string{"sinfo", "sbatch", "squeue"} {
		if _, err := exec.LookPath(b); err != nil {
			return b + " is not on PATH: no Slurm here (scripts/slurm/start-single-node.sh --install starts a one-node cluster)"
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "sinfo", "-h", "-o", "%T").CombinedOutput()
	if err != nil {
		return "sinfo does not answer (" + strings.TrimSpace(string(out)) + "): slurmctld is not running (scripts/slurm/start-single-node.sh starts it)"
	}
	up := false
	for _, st := range strings.Fields(string(out)) {
		up = up || st == "idle" || st == "mixed" || st == "allocated"
	}
	if !up {
		return "no Slurm node is up (sinfo says " + strings.Join(strings.Fields(string(out)), " ") + "; scripts/slurm/start-single-node.sh starts one)"
	}
	// A test must not submit jobs to a real cluster (whose nodes may not
	// even see this machine's temporary directory) unless asked to.
	conf, _ := exec.CommandContext(ctx, "scontrol", "show", "config").Output()
	name := regexp.MustCompile(`(?m)^ClusterName\s*=\s*(\S+)`).FindSubmatch(conf)
	if (name == nil || string(name[1]) != testCluster) && os.Getenv("NOCSIM_SLURM_TEST") != "1" {
		return fmt.Sprintf("Slurm answers, but its cluster is not %q (the one scripts/slurm/start-single-node.sh starts): set NOCSIM_SLURM_TEST=1 to submit the test's job array to it", testCluster)
	}
	return ""
}

// testCluster is the ClusterName scripts/slurm/start-single-node.sh sets.
const testCluster = "nocsim"

// A 2-shard job array of a small sweep, submitted to a real Slurm, merged,
// equals the sweep run on this machine byte for byte (meta.json's date
// aside). It runs the nocsim binary as Slurm does, so it builds one.
func TestSlurmJobArray(t *testing.T) {
	if why := slurmUp(); why != "" {
		t.Skip(why)
	}
	start := time.Now()
	dir := t.TempDir()
	bin := filepath.Join(dir, "nocsim")
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	built := time.Now()
	file := writeScenario(t, dir, "s.toml", shardSweep)
	run := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("nocsim %q: %v: %s%s", args, err, out.String(), errb.String())
		}
		return out.String()
	}
	// The local run, with the command line the array tasks use but for
	// --shard, --out and --jobs (which the merge leaves out of meta.json).
	run("sweep", "--quiet", "--resume", file)
	out := filepath.Join(dir, "results", "sh")
	local := filepath.Join(dir, "local")
	if err := os.Rename(out, local); err != nil {
		t.Fatal(err)
	}
	submit := time.Now()
	submitted := run("sweep", "--slurm", "--shards", "2", "--submit", "--sbatch-args", "--time=10", file)
	m := regexp.MustCompile(`submitted job (\d+)`).FindStringSubmatch(submitted)
	if m == nil {
		t.Fatalf("no job id in %q", submitted)
	}
	job := m[1]
	t.Cleanup(func() { exec.Command("scancel", job).Run() })
	deadline := time.Now().Add(slurmWait)
	for {
		q, err := exec.Command("squeue", "-h", "-j", job, "-o", "%i %T %R").CombinedOutput()
		// Once the job has left the queue squeue lists nothing (or, after
		// MinJobAge, no longer knows the id).
		if strings.TrimSpace(string(q)) == "" || err != nil && strings.Contains(string(q), "Invalid job id") {
			break
		}
		if err != nil {
			t.Fatalf("squeue -j %s: %v: %s", job, err, q)
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s not done after %v; squeue says:\n%s%s", job, slurmWait, q, slurmLogs(out))
		}
		time.Sleep(500 * time.Millisecond)
	}
	finished := time.Now()
	merged := run("sweep", "merge", "--out", out, filepath.Join(out, "shard-0-of-2"), filepath.Join(out, "shard-1-of-2"))
	if !strings.Contains(merged, "2 shards merged, 6 points, 0 failed") {
		t.Fatalf("merge said %q%s", merged, slurmLogs(out))
	}
	sameSweep(t, out, local)
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	t.Logf("go build %v, local sweep %v, job %s submitted and done in %v, merge and compare %v; total %v",
		ms(built.Sub(start)), ms(submit.Sub(built)), job, ms(finished.Sub(submit)), ms(time.Since(finished)), ms(time.Since(start)))
}

// slurmLogs is what the array tasks wrote, for a failure message.
func slurmLogs(dir string) string {
	var b strings.Builder
	logs, _ := filepath.Glob(filepath.Join(dir, "slurm-*.out"))
	for _, l := range logs {
		text, _ := os.ReadFile(l)
		b.WriteString("\n" + l + ":\n" + string(text))
	}
	return b.String()
}
