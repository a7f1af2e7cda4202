package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"nocsim/scenarios"
	"nocsim/scenarios/sweep"
)

// writeSlurmScript writes the sweep's job-array script into dir and, with
// --submit, submits it. The script names this binary and the scenario
// file by absolute path, so the tasks run wherever Slurm starts them.
func writeSlurmScript(c *cli.Context, sc *scenarios.Scenario, dir string, so shardOptions, points int) error {
	what := "[output] dir"
	if so.out != "" {
		what = "--out"
	}
	base, err := filepath.Abs(dir)
	if err != nil {
		return usageErr("%s = %q: %v", what, dir, err)
	}
	if err := sweep.CheckBase(base); err != nil {
		return usageErr("--slurm: %s %v", what, err)
	}
	if err := checkOutputDir(what, dir); err != nil {
		return err
	}
	file, err := filepath.Abs(c.Args().First())
	if err != nil {
		return usageErr("%s: %v", c.Args().First(), err)
	}
	var sbatch string
	if so.submit {
		if sbatch, err = exec.LookPath("sbatch"); err != nil {
			return usageErr("--submit: sbatch is not on PATH (run where Slurm's commands are, or submit %s with sbatch there)", filepath.Join(base, sweep.SlurmScriptName))
		}
	}
	if validateOnly {
		return nil
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return runErr(fmt.Errorf("--slurm: cannot find the nocsim binary to name in the script: %v", err))
	}
	if strings.Contains(self, "go-build") {
		fmt.Fprintf(c.App.ErrWriter, "warning: --slurm: this nocsim is a temporary go run build (%s), which the tasks cannot run once it is gone: build nocsim with go build and use that binary\n", self)
	}
	n := so.shards
	if n == 0 {
		n = min(max(points, 1), sweep.MaxArrayTasks, so.arrayLimit)
	}
	job := sweep.SlurmJob{Scenario: sc.Name, Nocsim: self, File: file, Base: base, Shards: n, Sbatch: so.sbatch}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return runErr(err)
	}
	script := filepath.Join(base, sweep.SlurmScriptName)
	if err := scenarios.WriteFile(script, func(b *bytes.Buffer) error { _, err := b.WriteString(job.Script()); return err }); err != nil {
		return runErr(err)
	}
	if err := os.Chmod(script, 0o755); err != nil {
		return runErr(err)
	}
	fmt.Fprintf(c.App.Writer, "slurm: %s: a job array of %d shards of %d points; Slurm logs %s/slurm-JOB_TASK.out\n", script, n, points, base)
	merge := fmt.Sprintf("nocsim sweep merge --out %s %s/shard-*-of-%d", base, base, n)
	if !so.submit {
		fmt.Fprintf(c.App.Writer, "submit: sbatch %s\nthen merge: %s\n", script, merge)
		return nil
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(sbatch, "--parsable", script)
	cmd.Dir, cmd.Stdout, cmd.Stderr = base, &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return runErr(fmt.Errorf("sbatch %s: %s", script, strings.ReplaceAll(msg, "\n", "; ")))
	}
	// --parsable prints "jobid" or "jobid;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(out.String()), ";")
	fmt.Fprintf(c.App.Writer, "submitted job %s (array tasks 0-%d)\nwhen it is done: %s\n", id, n-1, merge)
	return nil
}

// slurmArrayLimit is the largest job array sbatch accepts here: the
// cluster's MaxArraySize as `scontrol show config` reports it when scontrol
// is on PATH, else Slurm's default. It says where the figure came from.
func slurmArrayLimit() (int, string) {
	path, err := exec.LookPath("scontrol")
	if err != nil {
		return sweep.DefaultMaxArraySize, "Slurm's default; no scontrol on PATH to ask the cluster"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "show", "config").Output()
	if n, ok := sweep.ParseMaxArraySize(string(out)); err == nil && ok {
		return n, "scontrol show config"
	}
	return sweep.DefaultMaxArraySize, "Slurm's default; scontrol show config did not say"
}
