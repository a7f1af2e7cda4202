package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Imports flow one way (docs/architecture.md): every package imports only
// the nocsim packages listed below it, and logp none. A sub-package with
// no entry of its own is part of its top-level package and held to its
// rule (logp/goal imports nothing of the simulator either); one with an
// entry (endpoint/traffic) is a package of its own, so that endpoint may
// not import it and only the packages that list it may. Examples are
// programs, like cmd, and may import any. logp/goal has an entry so that
// mpi/trace may import it alone of logp: GOAL schedules are a plain data
// format that imports nothing of nocsim, and mpi/trace converts recorded
// traces to and from them; mpi imports mpi/trace, never the reverse.
var importRules = map[string][]string{
	"config":           {},
	"coll":             {},
	"des":              {},
	"mesh":             {},
	"logp":             {"coll", "logp/goal"},
	"logp/goal":        {},
	"plots":            {},
	"router":           {"config", "des", "mesh"},
	"endpoint":         {"config", "des", "mesh", "router"},
	"endpoint/traffic": {"config", "des", "mesh", "router", "endpoint"},
	"mpi/trace":        {"logp/goal"},
	"mpi/mpierr":       {},
	"mpi/datatype":     {"mpi/mpierr"},
	"mpi/group":        {"mpi/mpierr"},
	"mpi/chrome":       {"des"},
	"mpi":              {"config", "coll", "des", "mesh", "router", "endpoint", "mpi/trace", "mpi/mpierr", "mpi/datatype", "mpi/group", "mpi/chrome"},
	"calibrate":        {"config", "des", "mesh", "router", "endpoint", "mpi", "mpi/datatype", "logp", "logp/goal"},
	"scenarios/apps":   {"config", "des", "mesh", "router", "endpoint", "mpi", "mpi/datatype", "mpi/group"},
	"scenarios/report": {"coll", "des", "endpoint/traffic", "mpi", "logp", "plots"},
	// The HTML page of a results directory reads files, nothing of nocsim.
	"scenarios/report/html": {},
	"scenarios":             {"config", "coll", "des", "mesh", "router", "endpoint", "endpoint/traffic", "mpi", "mpi/datatype", "mpi/trace", "mpi/chrome", "logp", "calibrate", "plots", "scenarios/apps", "scenarios/report"},
	"scenarios/sweep":       {"plots", "scenarios", "scenarios/report"},
	"scenarios/thesis":      {"config", "scenarios", "scenarios/apps", "scenarios/report"},
	"scenarios/study":       {"config", "coll", "des", "mesh", "endpoint", "endpoint/traffic", "mpi", "mpi/datatype", "mpi/group", "mpi/trace", "mpi/chrome", "logp", "logp/goal", "calibrate", "plots", "scenarios", "scenarios/apps", "scenarios/report", "scenarios/report/html", "scenarios/thesis"},

	// The progress display observes the kernel's heartbeat, nothing else.
	"scenarios/progress": {"des"},
}

// ruleOf is the entry of importRules a package (a path below nocsim/)
// belongs to: the longest entry that is the package or one of its parents;
// "" for one outside them all.
func ruleOf(pkg string) string {
	best := ""
	for k := range importRules {
		if (pkg == k || strings.HasPrefix(pkg, k+"/")) && len(k) > len(best) {
			best = k
		}
	}
	return best
}

// importAllowed reports whether a file of package pkg may import dep.
func importAllowed(pkg, dep string) bool {
	own, to := ruleOf(pkg), ruleOf(dep)
	return to == own || slices.Contains(importRules[own], to)
}

// The rule itself: a listed sub-package is neither importable by its
// parent nor by a package that lists only the parent.
func TestImportRules(t *testing.T) {
	for _, c := range []struct {
		pkg, dep string
		want     bool
	}{
		{"endpoint/traffic", "endpoint", true},
		{"endpoint", "endpoint/traffic", false},
		{"mpi", "endpoint", true},
		{"mpi", "endpoint/traffic", false},
		{"scenarios", "endpoint/traffic", true},
		{"logp", "logp/goal", true},
		{"mpi/trace", "logp/goal", true},
		{"mpi", "mpi/trace", true},
		{"mpi/trace", "mpi", false},
		{"mpi", "mpi/mpierr", true},
		{"mpi/mpierr", "mpi", false},
		{"mpi", "mpi/datatype", true},
		{"mpi/datatype", "mpi", false},
		{"mpi/datatype", "mpi/mpierr", true},
		{"mpi", "mpi/group", true},
		{"mpi/group", "mpi", false},
		{"mpi", "mpi/chrome", true},
		{"mpi/chrome", "mpi", false},
		{"mpi", "logp/goal", false},
		{"mpi", "logp", false},
		{"logp/loggops", "logp/goal", true},
		{"logp/goal", "router", false},
		{"router", "endpoint", false},
		{"scenarios", "scenarios/apps", true},
		{"scenarios/apps", "scenarios", false},
		{"scenarios", "scenarios/report", true},
		{"scenarios/report", "scenarios", false},
		{"scenarios/sweep", "scenarios", true},
		{"scenarios/report", "scenarios/report/html", false},
		{"scenarios/study", "scenarios/report/html", true},
		{"scenarios", "scenarios/sweep", false},
	} {
		if got := importAllowed(c.pkg, c.dep); got != c.want {
			t.Errorf("%s importing %s: allowed %v, want %v", c.pkg, c.dep, got, c.want)
		}
	}
}

func TestImportsFlowOneWay(t *testing.T) {
	for pkg, ok := range importRules {
		var files []string
		root := filepath.Join("..", "..", filepath.FromSlash(pkg))
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != root {
				// A sub-package with its own entry is checked under it.
				rel, _ := filepath.Rel(filepath.Join("..", ".."), path)
				if _, own := importRules[filepath.ToSlash(rel)]; own {
					return filepath.SkipDir
				}
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") {
				files = append(files, path)
			}
			return nil
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
				if mine && !importAllowed(pkg, dep) {
					t.Errorf("%s imports %s: %s may import only %v", f, path, pkg, ok)
				}
			}
		}
	}
}
