package main

import (
	"os"
	"strings"
	"testing"
)

// docs/api.md shows this program in full; the copy there must be this file,
// so the snippet a reader copies compiles and runs.
func TestDocsShowThisProgram(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```go\n"+string(src)+"```\n") {
		t.Fatal("docs/api.md's minimal program is not examples/sendrecv/main.go verbatim: update one from the other")
	}
}

func TestRuns(t *testing.T) {
	main() // panics on an MPI error or a deadlock
}
