package scenarios

import (
	"os"
	"strings"
	"testing"

	"nocsim/mesh"
	"nocsim/mpi"
	"nocsim/router"
)

// The README documents every configuration key with its flag, and every
// traffic pattern: the key registry and the docs cannot drift apart.
func TestREADMEDocumentsEveryKey(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, sec := range Sections() {
		keys := names(sec.Keys)
		for _, k := range keys {
			row := "| `" + k + "` | `--" + strings.ReplaceAll(k, "_", "-") + "` |"
			if !strings.Contains(doc, row) {
				t.Errorf("README.md has no row for key %s (want a line starting %q)", k, row)
			}
		}
	}
	for _, p := range mesh.PatternNames {
		if !strings.Contains(doc, "| `"+p+"` |") {
			t.Errorf("README.md does not define traffic pattern %s", p)
		}
	}
	for _, col := range nocColumns {
		if !strings.Contains(doc, "`"+col+"`") {
			t.Errorf("README.md does not document output column %s", col)
		}
	}
}

func names(ks []router.Key) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.Name
	}
	return out
}

// The README's collectives table lists every registered algorithm with
// its source and message count.
func TestREADMEListsEveryCollectiveAlgorithm(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range mpi.Algorithms() {
		row := "| " + a.Op + " | `" + a.Name + "` | " + a.Source + " | " + a.Messages + " |"
		if !strings.Contains(string(b), row) {
			t.Errorf("README.md lacks the row %q", row)
		}
	}
}

// The README documents every [workload] and [output] key.
func TestREADMEDocumentsWorkloadKeys(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range WorkloadKeys {
		if !strings.Contains(string(b), "| `"+k.Name+"` | "+k.Unit+" |") {
			t.Errorf("README.md has no row for [workload]/[output] key %s", k.Name)
		}
	}
}

// The README documents the [sweep] keys.
func TestREADMEDocumentsSweepKeys(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range SweepKeys {
		if !strings.Contains(string(b), "| `"+k.Name+"` | "+k.Unit+" |") {
			t.Errorf("README.md has no row for [sweep] key %s", k.Name)
		}
	}
}
