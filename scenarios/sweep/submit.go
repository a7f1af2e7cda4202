package sweep

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"nocsim/scenarios"
)

// What sweep --slurm does with the cluster: ask it how large a job array
// may be, write the script, submit it with sbatch.

// ArrayLimit is the largest job array sbatch accepts here: the cluster's
// MaxArraySize as `scontrol show config` reports it when scontrol is on
// PATH, else Slurm's default. from says where the figure came from.
func ArrayLimit() (n int, from string) {
	path, err := exec.LookPath("scontrol")
	if err != nil {
		return DefaultMaxArraySize, "Slurm's default; no scontrol on PATH to ask the cluster"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "show", "config").Output()
	if n, ok := ParseMaxArraySize(string(out)); err == nil && ok {
		return n, "scontrol show config"
	}
	return DefaultMaxArraySize, "Slurm's default; scontrol show config did not say"
}

// ArrayTasks is the default number of shards: one per point, at most
// MaxArrayTasks and the cluster's limit.
func ArrayTasks(points, limit int) int {
	return min(max(points, 1), MaxArrayTasks, limit)
}

// Write writes the script, executable, into Base (made if missing) and
// returns its path.
func (j SlurmJob) Write() (string, error) {
	if err := os.MkdirAll(j.Base, 0o755); err != nil {
		return "", err
	}
	script := filepath.Join(j.Base, SlurmScriptName)
	if err := scenarios.WriteFile(script, func(b *bytes.Buffer) error { _, err := b.WriteString(j.Script()); return err }); err != nil {
		return "", err
	}
	return script, os.Chmod(script, 0o755)
}

// Submit runs sbatch on the script from dir and returns the job id; an
// error carries sbatch's own message on one line.
func Submit(sbatch, script, dir string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(sbatch, "--parsable", script)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("sbatch %s: %s", script, strings.ReplaceAll(msg, "\n", "; "))
	}
	// --parsable prints "jobid" or "jobid;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(out.String()), ";")
	return id, nil
}
