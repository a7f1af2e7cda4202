package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Imports flow one way (docs/architecture.md): every package imports only
// the nocsim packages listed below it, and logp none. A sub-package is held
// to its top-level package's rule (logp/goal imports nothing of the
// simulator either); examples are programs, like cmd, and may import any.
// mpi may import logp/goal alone of logp: GOAL schedules are a plain data
// format that imports nothing of nocsim, and mpi converts its recorded
// traces to and from them.
func TestImportsFlowOneWay(t *testing.T) {
	allowed := map[string][]string{
		"des":       {},
		"mesh":      {},
		"logp":      {},
		"plots":     {},
		"router":    {"des", "mesh"},
		"endpoint":  {"des", "mesh", "router"},
		"mpi":       {"des", "mesh", "router", "endpoint", "logp/goal"},
		"calibrate": {"des", "mesh", "router", "endpoint", "mpi", "logp"},
		"scenarios": {"des", "mesh", "router", "endpoint", "mpi", "logp", "calibrate", "plots"},
	}
	for pkg, ok := range allowed {
		var files []string
		root := filepath.Join("..", "..", pkg)
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
				files = append(files, path)
			}
			return err
		})
		if err != nil || len(files) == 0 {
			t.Fatalf("package %s not found: %v", pkg, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				dep, mine := strings.CutPrefix(path, "nocsim/")
				if !mine {
					continue
				}
				found := dep == pkg || strings.HasPrefix(dep, pkg+"/")
				for _, a := range ok {
					found = found || a == dep || strings.HasPrefix(dep, a+"/")
				}
				if !found {
					t.Errorf("%s imports %s: %s may import only %v", f, path, pkg, ok)
				}
			}
		}
	}
}
