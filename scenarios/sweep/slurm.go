package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxArrayTasks caps the default number of shards (one per point).
const MaxArrayTasks = 1000

// DefaultMaxArraySize is Slurm's default MaxArraySize: array task ids
// below it, 0..1000, so a job array of at most 1001 tasks. sbatch refuses
// a larger --array with "Invalid job array specification".
const DefaultMaxArraySize = 1001

// ParseMaxArraySize reads MaxArraySize from the output of `scontrol show
// config` (a line "MaxArraySize            = 1001"); ok is false when no
// such line holds a positive integer.
func ParseMaxArraySize(config string) (n int, ok bool) {
	for _, line := range strings.Split(config, "\n") {
		k, v, found := strings.Cut(line, "=")
		if !found || strings.TrimSpace(k) != "MaxArraySize" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// SbatchArgs splits --sbatch-args into options, one #SBATCH line each: an
// option (starting with -) and the words after it up to the next option.
// Options that would break the array (--array, --wrap) are refused; so is
// anything a #SBATCH line cannot carry.
func SbatchArgs(s string) ([][]string, error) {
	var out [][]string
	for _, f := range strings.Fields(s) {
		if strings.ContainsAny(f, "'\"\\`$#") {
			return nil, fmt.Errorf("%q: %q has quotes, $, # or a backslash, which #SBATCH lines do not interpret; allowed plain sbatch options", s, f)
		}
		if strings.HasPrefix(f, "-") {
			name, _, _ := strings.Cut(f, "=")
			if name == "--array" || name == "--wrap" || (strings.HasPrefix(f, "-a") && !strings.HasPrefix(f, "--")) {
				return nil, fmt.Errorf("%q: %s is set by the script (one array task per shard); allowed other sbatch options", s, name)
			}
			out = append(out, []string{f})
			continue
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%q: %q is no option; allowed sbatch options, e.g. \"--partition=short --time=30\"", s, f)
		}
		out[len(out)-1] = append(out[len(out)-1], f)
	}
	return out, nil
}

// SlurmJob is a sweep as a Slurm job array: array task i runs shard i/N
// of the sweep file with the nocsim binary, into Base/shard-i-of-N.
type SlurmJob struct {
	Scenario string // the scenario's name (the job's name)
	Nocsim   string // absolute path of the nocsim binary
	File     string // absolute path of the scenario file
	Base     string // absolute output directory: script, Slurm logs, shard directories
	Shards   int
	Sbatch   [][]string // from SbatchArgs
}

// CheckBase says whether a directory can be named in #SBATCH --output,
// which neither quotes nor escapes (and reads % as a pattern).
func CheckBase(dir string) error {
	if strings.ContainsAny(dir, " \t\n'\"\\`$%#") {
		return fmt.Errorf("%q has white space, quotes, $, %%, # or a backslash, which a Slurm script's #SBATCH --output cannot carry; allowed a plain path", dir)
	}
	return nil
}

// Script is the batch script. Every task resumes its shard, so
// resubmitting the script (or one task: sbatch --array=i) finishes a sweep
// whose tasks failed or were killed, rerunning only missing points. A task
// runs as many points in parallel as it has CPUs (--cpus-per-task).
func (j SlurmJob) Script() string {
	var b strings.Builder
	n := j.Shards
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# nocsim sweep %q as a Slurm job array: task i runs shard i/%d into %s/shard-i-of-%d.\n", j.Scenario, n, j.Base, n)
	fmt.Fprintf(&b, "# Written by nocsim sweep --slurm. Submit: sbatch %s/%s\n", j.Base, SlurmScriptName)
	fmt.Fprintf(&b, "# A task that failed: sbatch --array=i %s/%s (it resumes its shard).\n", j.Base, SlurmScriptName)
	fmt.Fprintf(&b, "# When every task is done: %s sweep merge --out %s %s/shard-*-of-%d\n", j.Nocsim, j.Base, j.Base, n)
	fmt.Fprintf(&b, "#SBATCH --job-name=nocsim-%s\n", jobName(j.Scenario))
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", n-1)
	fmt.Fprintf(&b, "#SBATCH --output=%s/slurm-%%A_%%a.out\n", j.Base)
	for _, o := range j.Sbatch {
		fmt.Fprintf(&b, "#SBATCH %s\n", strings.Join(o, " "))
	}
	fmt.Fprintf(&b, "set -eu\n")
	fmt.Fprintf(&b, "i=$SLURM_ARRAY_TASK_ID\n")
	fmt.Fprintf(&b, "exec %s sweep --quiet --resume --jobs \"${SLURM_CPUS_PER_TASK:-1}\" --shard \"$i/%d\" --out %s/\"shard-$i-of-%d\" %s\n",
		shellQuote(j.Nocsim), n, shellQuote(j.Base), n, shellQuote(j.File))
	return b.String()
}

// SlurmScriptName is the script's file name in the output directory.
const SlurmScriptName = "sweep-slurm.sh"

// jobName keeps the characters a job name shows plainly.
func jobName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// shellQuote quotes s for bash: in single quotes, a quote inside closed,
// escaped and reopened.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
