package sweep

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestSbatchArgs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // options joined by |, or "error: WORD"
	}{
		{"", ""},
		{"--partition=short --time=30", "--partition=short|--time=30"},
		{"-p short  -t 10 --cpus-per-task=4", "-p short|-t 10|--cpus-per-task=4"},
		{"-A acct --mem 2G", "-A acct|--mem 2G"},
		{"short", "error: no option"},
		{"--array=0-3", "error: --array"},
		{"-a 0-3", "error: -a"},
		{"-a0-3", "error: -a0-3"},
		{"--wrap=hostname", "error: --wrap"},
		{"--comment=\"x y\"", "error: quotes"},
		{"--output=$HOME/x", "error: quotes, $"},
		{"-J x#y", "error: #"},
	} {
		got, err := SbatchArgs(c.in)
		if w, isErr := strings.CutPrefix(c.want, "error: "); isErr {
			if err == nil || !strings.Contains(err.Error(), w) || !strings.Contains(err.Error(), fmt.Sprintf("%q", c.in)) {
				t.Errorf("SbatchArgs(%q) = %v, %v; want an error naming %q and the value", c.in, got, err, w)
			}
			continue
		}
		var parts []string
		for _, o := range got {
			parts = append(parts, strings.Join(o, " "))
		}
		if err != nil || strings.Join(parts, "|") != c.want {
			t.Errorf("SbatchArgs(%q) = %q, %v; want %q", c.in, parts, err, c.want)
		}
	}
}

// Whatever --sbatch-args holds, an accepted option is one line with no
// character a #SBATCH line would misread, and never sets the array.
func FuzzSbatchArgs(f *testing.F) {
	for _, s := range []string{"--time=30 -p short", "-a 1", "--array", "x\ny", "--x=\"a b\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		opts, err := SbatchArgs(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("%q: multi-line error %q", s, err)
			}
			return
		}
		for _, o := range opts {
			line := strings.Join(o, " ")
			if !strings.HasPrefix(o[0], "-") || strings.ContainsAny(line, "\n\r'\"\\`$#") || strings.HasPrefix(o[0], "--array") || strings.HasPrefix(o[0], "-a") {
				t.Fatalf("%q: accepted option line %q", s, line)
			}
		}
	})
}

// The script is valid bash, and array task i runs exactly shard i/n of the
// file into its own directory, with the binary named by absolute path: a
// stand-in nocsim records the arguments each task passes.
func TestSlurmScriptTasks(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash: cannot run the script")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "bin dir", "no'csim") // a quote and a space survive quoting
	os.MkdirAll(filepath.Dir(fake), 0o755)
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	opts, err := SbatchArgs("--time=5 -p short")
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "out")
	job := SlurmJob{Scenario: "my sweep", Nocsim: fake, File: filepath.Join(dir, "a b.toml"), Base: base, Shards: 3, Sbatch: opts}
	if err := CheckBase(base); err != nil {
		t.Fatal(err)
	}
	script := job.Script()
	for _, line := range []string{"#SBATCH --array=0-2", "#SBATCH --job-name=nocsim-my_sweep", "#SBATCH --output=" + base + "/slurm-%A_%a.out", "#SBATCH --time=5", "#SBATCH -p short"} {
		if !strings.Contains(script, "\n"+line+"\n") {
			t.Errorf("script lacks %q:\n%s", line, script)
		}
	}
	// sbatch reads #SBATCH lines only before the first command.
	head, _, _ := strings.Cut(script, "\nset ")
	if strings.Count(script, "#SBATCH") != strings.Count(head, "#SBATCH") {
		t.Errorf("an #SBATCH line follows a command:\n%s", script)
	}
	path := filepath.Join(dir, "s.sh")
	os.WriteFile(path, []byte(script), 0o755)
	for i := 0; i < 3; i++ {
		cmd := exec.Command(bash, path)
		cmd.Env = append(os.Environ(), fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i), "SLURM_CPUS_PER_TASK=4")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("task %d: %v: %s", i, err, out)
		}
		want := []string{"sweep", "--quiet", "--resume", "--jobs", "4", "--shard", fmt.Sprintf("%d/3", i),
			"--out", filepath.Join(base, fmt.Sprintf("shard-%d-of-3", i)), job.File}
		if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("task %d runs %q, want %q", i, got, want)
		}
	}
	for _, bad := range []string{"/a b", "/x%y", "/q'uote", "/d$x"} {
		if CheckBase(bad) == nil {
			t.Errorf("CheckBase(%q) accepted a path #SBATCH --output cannot carry", bad)
		}
	}
}

func TestParseMaxArraySize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int // 0: not found
	}{
		{"MaxArraySize            = 1001\nMaxJobCount = 10000\n", 1001},
		{"AccountingStorageType = x\nMaxArraySize = 40001", 40001},
		{"MaxArraySizeX = 5\n", 0},
		{"MaxArraySize = (null)\n", 0},
		{"MaxArraySize = 0\n", 0},
		{"", 0},
	} {
		n, ok := ParseMaxArraySize(c.in)
		if n != c.want || ok != (c.want > 0) {
			t.Errorf("%q: %d, %v; want %d", c.in, n, ok, c.want)
		}
	}
}

// Whatever scontrol prints, the limit read is a positive number or none.
func FuzzParseMaxArraySize(f *testing.F) {
	f.Add("MaxArraySize            = 1001\n")
	f.Add("MaxArraySize=-3")
	f.Fuzz(func(t *testing.T, s string) {
		if n, ok := ParseMaxArraySize(s); ok != (n > 0) {
			t.Fatalf("%q: %d, %v", s, n, ok)
		}
	})
}
