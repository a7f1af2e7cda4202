package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// Quoted outputs. Every command output quoted in README.md and docs/ is
// a fenced block right under a marker naming the command that prints it:
//
//	<!-- nocsim-output: nocsim pingpong --mesh 4x4 --from 0 --to 15 -->
//	```
//	(what that command prints on stdout)
//	```
//
// TestDocsOutputs runs each marked command in-process and fails, naming the
// page, the command and the first differing line, when the block is not
// what the command prints now. After a change of output, regenerate every
// block with one command (docs/README.md says so too):
//
//	go generate ./cmd/nocsim
//
//go:generate go test -run TestDocsOutputs -update
var updateDocs = flag.Bool("update", false, "rewrite the quoted outputs in README.md and docs/ from the commands that print them")

// quote is one marked block of a page.
type quote struct {
	line   int      // the marker's line, 1-based
	args   []string // the command line, "nocsim" first
	varies []string // masks applied before comparing (see masks)
	start  int      // byte offsets of the block's text in the page
	end    int
}

var markerRE = regexp.MustCompile(`^<!-- nocsim-output: (.*) -->$`)

// masks are the output fields a marker may declare as varying between
// runs, each a documented rule; everything else is compared byte for byte.
// A masked field is compared as "~": the block keeps the figures of the
// run that wrote it.
var masks = map[string]struct {
	re   *regexp.Regexp
	repl string
}{
	// cpu-time: a number that carries a unit of measured time, seconds
	// ("1.42 s", "1.42 CPU s", "900ms") or a rate per second ("54797
	// cycles/s", "5.34M flit-hops/CPU s"). Simulated quantities carry
	// cycles, flits or bytes, never seconds, and stay compared.
	"cpu-time": {regexp.MustCompile(`\d+(?:\.\d+)?[kMG]?( ?(?:CPU )?m?s\b| [A-Za-z][\w-]*/(?:CPU )?s\b)`), "~$1"},
}

// parseQuotes finds a page's marked blocks. Every fence that opens with
// no language is a command's output and must be marked; text that is not
// a command's output is fenced as ```text (or its language).
func parseQuotes(doc string) ([]quote, error) {
	var qs []quote
	lines := strings.SplitAfter(doc, "\n")
	off := 0
	fence := 0 // the backticks that opened the fence we are in; 0 outside
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\n")
		off += len(lines[i])
		indented := strings.TrimLeft(l, " ")
		ticks := len(indented) - len(strings.TrimLeft(indented, "`"))
		switch {
		case fence > 0 && ticks >= fence && ticks == len(indented):
			fence = 0
			continue
		case fence == 0 && ticks >= 3:
			if ticks == len(indented) {
				return nil, fmt.Errorf("line %d: a fenced block without a language and without a <!-- nocsim-output: nocsim ... --> marker above it: mark the command that prints it, or fence it as ```text", i+1)
			}
			fence = ticks
			continue
		}
		m := markerRE.FindStringSubmatch(l)
		if fence > 0 || m == nil {
			if fence == 0 && strings.Contains(l, "nocsim-output") {
				return nil, fmt.Errorf("line %d: malformed marker %q: want <!-- nocsim-output: nocsim ARGS[; varies: MASK] -->", i+1, l)
			}
			continue
		}
		q, err := parseMarker(m[1])
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		q.line = i + 1
		if i+1 >= len(lines) || strings.TrimRight(lines[i+1], "\n") != "```" {
			return nil, fmt.Errorf("line %d: the marker is not followed by a ``` line", i+1)
		}
		q.start = off + len(lines[i+1])
		j := i + 2
		q.end = q.start
		for ; j < len(lines) && strings.TrimRight(lines[j], "\n") != "```"; j++ {
			q.end += len(lines[j])
		}
		if j == len(lines) {
			return nil, fmt.Errorf("line %d: the block is not closed", i+1)
		}
		for k := i + 1; k <= j; k++ {
			off += len(lines[k])
		}
		i = j
		qs = append(qs, q)
	}
	return qs, nil
}

// parseMarker reads "nocsim ARGS[; varies: MASK[, MASK]]". The arguments
// are split at spaces and run as they are, with no shell: quotes,
// redirections and variables would not mean what they show.
func parseMarker(spec string) (quote, error) {
	var q quote
	cmd, vary, hasVary := strings.Cut(spec, ";")
	q.args = strings.Fields(cmd)
	if len(q.args) == 0 || q.args[0] != "nocsim" {
		return q, fmt.Errorf("marker %q: the command must start with nocsim", spec)
	}
	if strings.ContainsAny(cmd, "\"'`|&<>$\\*") {
		return q, fmt.Errorf("marker %q: no shell runs the command: no quotes, pipes, redirections, variables or globs", spec)
	}
	if hasVary {
		names, ok := strings.CutPrefix(strings.TrimSpace(vary), "varies:")
		if !ok {
			return q, fmt.Errorf("marker %q: after ';' want varies: MASK", spec)
		}
		for _, n := range strings.Split(names, ",") {
			n = strings.TrimSpace(n)
			if _, ok := masks[n]; !ok {
				return q, fmt.Errorf("marker %q: unknown mask %q (allowed: %s)", spec, n, strings.Join(slices.Sorted(mapKeysOf(masks)), ", "))
			}
			q.varies = append(q.varies, n)
		}
	}
	return q, nil
}

func mapKeysOf[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// masked applies the quote's masks to text.
func (q quote) masked(text string) string {
	for _, n := range q.varies {
		text = masks[n].re.ReplaceAllString(text, masks[n].repl)
	}
	return text
}

// firstDifference is "" when want and got agree after the masks, else
// the first line that differs, numbered in the block (1-based).
func (q quote) firstDifference(want, got string) string {
	mw, mg := q.masked(want), q.masked(got)
	if mw == mg {
		return ""
	}
	w, g := strings.Split(mw, "\n"), strings.Split(mg, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	line := func(ls []string) string {
		if i >= len(ls) || i == len(ls)-1 && ls[i] == "" {
			return "(no such line)"
		}
		return fmt.Sprintf("%q", ls[i])
	}
	return fmt.Sprintf("line %d of the block:\n  page: %s\n  now:  %s", i+1, line(w), line(g))
}

// docPages are README.md and every page under docs/, relative to root.
func docPages(t *testing.T, root string) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			pages = append(pages, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// repoView is a fresh directory in which the repository's input folders
// (cmd, for its test schedules, and scenarios, for the example files)
// appear under their own names, so a quoted command reads them by the
// path a reader types at the repository's root, while what it writes
// lands in the fresh directory.
func repoView(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	// endpoint and logp: the Netrace and SimGrid test traces the workloads
	// page replays.
	for _, name := range []string{"cmd", "scenarios", "endpoint", "logp"} {
		if err := os.Symlink(filepath.Join(root, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Each page's commands run in order in a fresh directory of their own (a
// later command may read what an earlier one wrote), in-process, stdout
// compared with the block. With -update, differing blocks are rewritten.
func TestDocsOutputs(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range docPages(t, root) {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		qs, err := parseQuotes(doc)
		if err != nil {
			t.Errorf("%s: %v", page, err)
			continue
		}
		if len(qs) == 0 || testing.Short() {
			continue // -short checks the markers only; CI runs the commands
		}
		t.Run(page, func(t *testing.T) {
			t.Chdir(repoView(t, root))
			var rewritten strings.Builder
			last := 0
			for _, q := range qs {
				shown := strings.Join(q.args[1:], " ")
				if shown != "" && !strings.Contains(stripComments(doc[:q.start]), "nocsim "+shown) {
					t.Errorf("%s:%d: the page does not show the command it quotes, nocsim %s, before the block", page, q.line, shown)
				}
				var stdout, stderr bytes.Buffer
				began := time.Now()
				code := run(q.args, &stdout, &stderr)
				t.Logf("%s:%d: %s: %.1f s", page, q.line, strings.Join(q.args, " "), time.Since(began).Seconds())
				want := doc[q.start:q.end]
				rewritten.WriteString(doc[last:q.start])
				last = q.end
				if code != 0 {
					t.Errorf("%s:%d: %s: exit %d: %s", page, q.line, strings.Join(q.args, " "), code, strings.TrimSpace(stderr.String()))
					rewritten.WriteString(want)
					continue
				}
				diff := q.firstDifference(want, stdout.String())
				if diff == "" {
					rewritten.WriteString(want)
					continue
				}
				rewritten.WriteString(stdout.String())
				if !*updateDocs {
					t.Errorf("%s:%d: %s prints something else than the page quotes, %s\n(go generate ./cmd/nocsim rewrites every quoted output)", page, q.line, strings.Join(q.args, " "), diff)
				}
			}
			rewritten.WriteString(doc[last:])
			if *updateDocs && !t.Failed() && rewritten.String() != doc {
				if err := os.WriteFile(filepath.Join(root, page), []byte(rewritten.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("rewrote the quoted outputs of %s", page)
			}
		})
	}
}

var commentRE = regexp.MustCompile(`(?s)<!--.*?-->`)

// stripComments is what a reader sees of a page's source: no HTML comments.
func stripComments(doc string) string { return commentRE.ReplaceAllString(doc, "") }

// The parser finds a marked block, refuses an unmarked plain fence, a
// marker without its block and a command a shell would be needed for.
func TestQuoteMarkers(t *testing.T) {
	page := "intro\n<!-- nocsim-output: nocsim noc --mesh 2x2; varies: cpu-time -->\n```\nrow 1\nrow 2\n```\n```sh\nnocsim noc\n```\n```text\nnot an output\n```\n"
	qs, err := parseQuotes(page)
	if err != nil || len(qs) != 1 {
		t.Fatalf("got %v, %v; want one quote", qs, err)
	}
	q := qs[0]
	if !slices.Equal(q.args, []string{"nocsim", "noc", "--mesh", "2x2"}) || !slices.Equal(q.varies, []string{"cpu-time"}) || q.line != 2 || page[q.start:q.end] != "row 1\nrow 2\n" {
		t.Errorf("parsed %+v, block %q", q, page[q.start:q.end])
	}
	// An example of a marker inside a longer fence is text, not a quote.
	if qs, err := parseQuotes("````text\n<!-- nocsim-output: nocsim noc -->\n```\nx\n```\n````\n  ```sh\n  nocsim noc\n  ```\n"); err != nil || len(qs) != 0 {
		t.Errorf("a marker shown inside a ````text fence: %v, %v; want no quote", qs, err)
	}
	for _, bad := range []string{
		"  ```\n  unmarked output, indented in a list\n  ```\n",
		"```\nunmarked output\n```\n",
		"<!-- nocsim-output: nocsim noc -->\ntext\n",
		"<!-- nocsim-output: nocsim noc -->\n```\nnever closed\n",
		"<!-- nocsim-output: noc --mesh 2x2 -->\n```\n```\n",
		"<!-- nocsim-output: nocsim noc > out.txt -->\n```\n```\n",
		"<!-- nocsim-output: nocsim noc; varies: dates -->\n```\n```\n",
		"<!-- nocsim-output nocsim noc -->\n```\n```\n",
	} {
		if _, err := parseQuotes(bad); err == nil {
			t.Errorf("parseQuotes accepted %q", bad)
		}
	}
}

// cpu-time masks measured seconds and rates per second and nothing
// simulated; without the mask every character counts.
func TestQuoteMaskCPUTime(t *testing.T) {
	q := quote{varies: []string{"cpu-time"}}
	page := "simulated 77954 cycles, 5813397 events in 1.42 s of CPU time: 54797 cycles/s, 5.34M flit-hops/CPU s, 900ms\n"
	now := "simulated 77954 cycles, 5813397 events in 12.07 s of CPU time: 6458 cycles/s, 0.61M flit-hops/CPU s, 15ms\n"
	if d := q.firstDifference(page, now); d != "" {
		t.Errorf("measured times still compared: %s", d)
	}
	for _, changed := range []string{
		strings.Replace(now, "77954 cycles", "77955 cycles", 1),
		strings.Replace(now, "5813397 events", "6900407 events", 1),
		strings.Replace(now, "CPU time", "wall time", 1),
	} {
		if q.firstDifference(page, changed) == "" {
			t.Errorf("a simulated figure or a word was masked: %q", changed)
		}
	}
	if (quote{}).firstDifference(page, now) == "" {
		t.Error("an unmasked quote ignored a difference")
	}
}

// The first differing line is named with both versions, also when one
// text is longer.
func TestQuoteFirstDifference(t *testing.T) {
	var q quote
	if d := q.firstDifference("a\nb\nc\n", "a\nB\nc\n"); !strings.Contains(d, "line 2") || !strings.Contains(d, `"b"`) || !strings.Contains(d, `"B"`) {
		t.Errorf("got %q", d)
	}
	if d := q.firstDifference("a\n", "a\nextra\n"); !strings.Contains(d, "line 2") || !strings.Contains(d, "(no such line)") {
		t.Errorf("got %q", d)
	}
	if d := q.firstDifference("a\nb\n", "a\nb\n"); d != "" {
		t.Errorf("equal texts differ: %q", d)
	}
}
