package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Output flags of the commands, by what they name: a file, or a directory
// the command fills. --csv is an output of noc and pairs only (calibrate
// and predict read it).
var (
	outputFileFlags = []string{"plot", "energy-plot", "power-map", "time-plot", "ratio-plot", "breakeven-plot", "tier-plot", "aggregate-plot", "compare-plot", "goal-out", "out", "save-csv", "trace"}
	outputDirFlags  = []string{"plots", "plot-dir"}
	csvWriters      = []string{"noc", "pairs"}
)

// docCommand is one nocsim command line of a ```sh block.
type docCommand struct {
	page string
	line int
	args []string // after "nocsim"
}

// docCommands are the nocsim command lines of the ```sh blocks of a page,
// continuation lines joined and comments dropped.
func docCommands(page, doc string) []docCommand {
	var out []docCommand
	in := false
	var cur string
	start := 0
	for i, l := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(l, "```sh"):
			in = true
			continue
		case strings.HasPrefix(l, "```"):
			in = false
			continue
		case !in:
			continue
		}
		if cur == "" {
			start = i + 1
		}
		l, _, _ = strings.Cut(l, "#")
		cur += " " + strings.TrimSpace(l)
		if strings.HasSuffix(cur, "\\") {
			cur = strings.TrimSuffix(cur, "\\")
			continue
		}
		f := strings.Fields(cur)
		cur = ""
		for j, w := range f {
			if w == "./cmd/nocsim" || w == "nocsim" {
				out = append(out, docCommand{page, start, f[j+1:]})
				break
			}
		}
	}
	return out
}

// outputs are the paths a command line writes, as "path" for a file and
// "dir/" for a directory.
func (c docCommand) outputs() []string {
	var out []string
	csv := len(c.args) > 0 && (c.args[0] == "noc" || c.args[0] == "pairs")
	for i := 0; i+1 < len(c.args); i++ {
		name, ok := strings.CutPrefix(c.args[i], "--")
		if !ok {
			continue
		}
		switch v := c.args[i+1]; {
		case name == "trace" && c.args[0] == "noc":
			// noc's --trace reads a Netrace trace; it writes nothing.
		case contains(outputFileFlags, name) || name == "csv" && csv:
			out = append(out, v)
		case contains(outputDirFlags, name):
			out = append(out, strings.TrimSuffix(v, "/")+"/")
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Running the quick start leaves the source tree clean: every file the
// README's commands write goes into ./results or ./nocsim-results (a
// plots directory once landed in the plots package, and every later
// build said vcs_modified). Every other example command of the docs, run
// from the repository root, writes only where git ignores it, or rewrites
// a committed file on purpose (thesis fit --out the thesis machine).
func TestDocsCommandsWriteOnlyResults(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, quickStart, _ := strings.Cut(string(readme), "\n## Quick start\n")
	quickStart, _, _ = strings.Cut(quickStart, "\n## ")
	quick := docCommands("README.md", quickStart)
	if len(quick) < 5 {
		t.Fatalf("README.md's quick start has %d nocsim commands", len(quick))
	}
	written := 0
	for _, c := range quick {
		for _, o := range c.outputs() {
			written++
			if !strings.HasPrefix(o, "results/") && !strings.HasPrefix(o, "nocsim-results/") {
				t.Errorf("README.md quick start, line %d: nocsim %s writes %s, outside ./results and ./nocsim-results", c.line, strings.Join(c.args, " "), o)
			}
		}
	}
	if written == 0 {
		t.Error("the quick start writes no file: the test reads it wrong")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: cannot ask what it ignores")
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not in a git checkout")
	}
	for _, page := range docPages(t, root) {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range docCommands(page, string(b)) {
			for _, o := range c.outputs() {
				p := o
				if strings.HasSuffix(o, "/") {
					p += "chart.png" // a file the command writes there
				}
				ignored := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", p).Run() == nil
				tracked := exec.Command("git", "-C", root, "ls-files", "--error-unmatch", p).Run() == nil
				if !ignored && !tracked {
					t.Errorf("%s:%d: nocsim %s writes %s, which git neither ignores nor tracks: write under results/, or add the name to .gitignore", page, c.line, strings.Join(c.args, " "), o)
				}
			}
		}
	}
}
