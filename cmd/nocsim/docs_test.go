package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/urfave/cli/v2"
)

// Every command has its page in docs/commands/, and every flag of the
// command its entry there: a flag written `--name` (or `-n` for a one-letter
// alias). Subcommands have their own section on the parent's page, headed
// "## nocsim CMD SUB", and their flags must appear in that section. A flag
// made from a configuration key (its help category is the key's section)
// is documented once, in docs/configuration.md: the section must name the
// key section (`[network]`) and link to the reference.
func TestDocsDescribeEveryCommandAndFlag(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	root := readPage(t, "nocsim.md")
	checkFlags(t, "nocsim.md", "nocsim", root, app.Flags)
	index := readPage(t, "README.md")
	for _, c := range app.Commands {
		page := c.Name + ".md"
		doc := readPage(t, page)
		if !strings.Contains(index, "`nocsim "+c.Name) || !strings.Contains(index, "("+page+")") {
			t.Errorf("docs/commands/README.md neither lists nocsim %s nor links %s", c.Name, page)
		}
		if !strings.HasPrefix(doc, "# nocsim "+c.Name+"\n") {
			t.Errorf("docs/commands/%s does not open with the heading \"# nocsim %s\"", page, c.Name)
		}
		own := doc
		if len(c.Subcommands) > 0 {
			own = section(doc, "## nocsim "+c.Name)
			if own == "" && len(c.Flags) > 0 {
				t.Errorf("docs/commands/%s has no section \"## nocsim %s\" for its own flags", page, c.Name)
			}
		}
		checkFlags(t, page, "nocsim "+c.Name, own, c.Flags)
		for _, s := range c.Subcommands {
			name := "nocsim " + c.Name + " " + s.Name
			sec := section(doc, "## "+name)
			if sec == "" {
				t.Errorf("docs/commands/%s has no section \"## %s\"", page, name)
				continue
			}
			checkFlags(t, page, name, sec, s.Flags)
		}
	}
}

// checkFlags requires each flag's names in doc.
func checkFlags(t *testing.T, page, cmd, doc string, flags []cli.Flag) {
	t.Helper()
	keySections := map[string]bool{}
	for _, f := range flags {
		if c, ok := f.(cli.CategorizableFlag); ok && c.GetCategory() != "" {
			keySections[c.GetCategory()] = true
			continue
		}
		for _, n := range f.Names() {
			if !documentsFlag(doc, n) {
				t.Errorf("docs/commands/%s: %s's flag %s is not documented there", page, cmd, dashes(n))
			}
		}
	}
	for s := range keySections {
		if !strings.Contains(doc, "`["+s+"]`") || !strings.Contains(doc, "configuration.md") {
			t.Errorf("docs/commands/%s: %s takes the [%s] keys as flags but does not name `[%s]` and link configuration.md", page, cmd, s, s)
		}
	}
}

func dashes(n string) string {
	if len(n) == 1 {
		return "-" + n
	}
	return "--" + n
}

// documentsFlag reports whether doc shows the flag in code: `--name`,
// or `--name VALUE`. A one-letter name is accepted with one dash or two,
// as the command line accepts it (`-q`, `--L`).
func documentsFlag(doc, name string) bool {
	forms := []string{"`--" + name}
	if len(name) == 1 {
		forms = append(forms, "`-"+name)
	}
	for _, f := range forms {
		if strings.Contains(doc, f+"`") || strings.Contains(doc, f+" ") {
			return true
		}
	}
	return false
}

func readPage(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "commands", page))
	if err != nil {
		t.Fatalf("a command has no page: %v", err)
	}
	return string(b)
}

// section returns the text under the heading line (exactly), up to the next
// heading of the same or a higher level; "" if there is no such heading.
func section(doc, heading string) string {
	i := strings.Index("\n"+doc, "\n"+heading+"\n")
	if i < 0 {
		return ""
	}
	rest := doc[i+len(heading)+1:]
	level := strings.Index(heading, " ")
	for _, l := range []string{"\n# ", "\n## ", "\n### "}[:level] {
		if j := strings.Index(rest, l); j >= 0 {
			rest = rest[:j]
		}
	}
	return rest
}

// Every relative link in README.md, docs/ and the package READMEs leads to a file that exists
// and, with a #fragment, to a heading of that file (GitHub's anchors), so
// moving text between pages cannot leave a reader at a dead end.
func TestDocsLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	pages := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The package folders' READMEs (for contributors) link into docs/ and
	// to their packages' files, which move with the code.
	for _, pattern := range []string{"*/README.md", "*/*/README.md"} {
		readmes, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, r := range readmes {
			if rel, _ := filepath.Rel(root, r); !strings.HasPrefix(filepath.ToSlash(rel), "docs/") {
				pages = append(pages, r)
			}
		}
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			dest := p
			if file != "" {
				dest = filepath.Join(filepath.Dir(p), file)
			}
			db, err := os.ReadFile(dest)
			if err != nil {
				t.Errorf("%s: link %s: %v", p, target, err)
				continue
			}
			if frag != "" && !slices.Contains(anchors(string(db)), frag) {
				t.Errorf("%s: link %s: %s has no heading with anchor #%s", p, target, dest, frag)
			}
		}
	}
}

// anchors are the fragments GitHub gives a Markdown file's headings: lower
// case, punctuation dropped, spaces as hyphens.
func anchors(doc string) []string {
	var out []string
	inCode := false
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}
