package scenarios

import (
	"os"
	"strings"
	"testing"

	"nocsim/coll"
	"nocsim/config"
	"nocsim/mesh"
)

// readDoc reads a page of docs/ (the reference the README points to).
func readDoc(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile("../docs/" + page)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hasLine reports whether doc holds line as one whole line.
func hasLine(doc, line string) bool {
	return strings.Contains("\n"+doc, "\n"+line+"\n")
}

// The configuration reference documents every key exactly as the registry
// defines it (flag, unit, default, allowed values, meaning): the registry
// drives the flags, their help and the validation messages, so the
// reference cannot drift from what the program accepts.
func TestDocsDocumentEveryKey(t *testing.T) {
	doc := readDoc(t, "configuration.md")
	for _, sec := range Sections() {
		if !strings.Contains(doc, "\n`["+sec.Name+"]`: ") {
			t.Errorf("configuration.md has no table for [%s]", sec.Name)
		}
		for _, k := range sec.Keys {
			row := keyRow(k, "`--"+strings.ReplaceAll(k.Name, "_", "-")+"`")
			if !hasLine(doc, row) {
				t.Errorf("configuration.md lacks the [%s] row\n%s", sec.Name, row)
			}
		}
	}
	for _, p := range mesh.PatternNames {
		if !strings.Contains(readDoc(t, "network.md"), "| `"+p+"` |") {
			t.Errorf("network.md does not define traffic pattern %s", p)
		}
	}
}

// keyRow is a key's row in the reference: with a flag column for the keys
// that are flags, without for [workload], [output] and [sweep].
func keyRow(k config.Key, flag string) string {
	cells := []string{"`" + k.Name + "`"}
	if flag != "" {
		cells = append(cells, flag)
	}
	cells = append(cells, k.Unit, k.Default, k.AllowedText(), k.Doc)
	return "| " + strings.Join(cells, " | ") + " |"
}

// The collectives page lists every registered algorithm with its source
// and message count.
func TestDocsListEveryCollectiveAlgorithm(t *testing.T) {
	doc := readDoc(t, "collectives.md")
	for _, a := range coll.Algorithms() {
		row := "| " + a.Op + " | `" + a.Name + "` | " + a.Source + " | " + a.Messages + " |"
		if !hasLine(doc, row) {
			t.Errorf("collectives.md lacks the row %q", row)
		}
	}
}

// The configuration reference documents every [workload], [output] and
// [sweep] key as the registry defines it.
func TestDocsDocumentWorkloadAndSweepKeys(t *testing.T) {
	doc := readDoc(t, "configuration.md")
	for _, k := range append(append([]config.Key{}, WorkloadKeys...), SweepKeys...) {
		if row := keyRow(k, ""); !hasLine(doc, row) {
			t.Errorf("configuration.md lacks the row\n%s", row)
		}
	}
}
