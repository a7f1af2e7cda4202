package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

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
		n = sweep.ArrayTasks(points, so.arrayLimit)
	}
	job := sweep.SlurmJob{Scenario: sc.Name, Nocsim: self, File: file, Base: base, Shards: n, Sbatch: so.sbatch}
	script, err := job.Write()
	if err != nil {
		return runErr(err)
	}
	fmt.Fprintf(c.App.Writer, "slurm: %s: a job array of %d shards of %d points; Slurm logs %s/slurm-JOB_TASK.out\n", script, n, points, base)
	merge := fmt.Sprintf("nocsim sweep merge --out %s %s/shard-*-of-%d", base, base, n)
	if !so.submit {
		fmt.Fprintf(c.App.Writer, "submit: sbatch %s\nthen merge: %s\n", script, merge)
		return nil
	}
	id, err := sweep.Submit(sbatch, script, base)
	if err != nil {
		return runErr(err)
	}
	fmt.Fprintf(c.App.Writer, "submitted job %s (array tasks 0-%d)\nwhen it is done: %s\n", id, n-1, merge)
	return nil
}
