package main

import (
	"os"
	"strings"
	"testing"
)

// The README shows this program in full; the copy there must be this file,
// so the snippet a reader copies compiles and runs.
func TestReadmeShowsThisProgram(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(src)+"```\n") {
		t.Fatal("README.md's API example is not examples/sendrecv/main.go verbatim: update one from the other")
	}
}

func TestRuns(t *testing.T) {
	main() // panics on an MPI error or a deadlock
}
