package main

import (
	"github.com/urfave/cli/v2"

	"nocsim/plots"
	"nocsim/scenarios"
)

// Output paths are checked (plots.CheckFile, plots.CheckDir) before any
// simulation starts, so that a long run never ends in "cannot write": a
// bad path is bad input (exit 2), named by its flag or key.

func checkOutputFile(what, path string) error {
	if err := plots.CheckFile(path); err != nil {
		return usageErr("%s = %q: %v", what, path, err)
	}
	return nil
}

func checkOutputDir(what, path string) error {
	if err := plots.CheckDir(path); err != nil {
		return usageErr("%s = %q: %v", what, path, err)
	}
	return nil
}

// checkOutputFlags checks the output files and directories named by the
// given flags, those that are set, and that no two of the files are one:
// the second would replace the first.
func checkOutputFlags(c *cli.Context, files []string, dirs []string) error {
	named := map[string]string{} // plots.SameFile -> flag
	for _, f := range files {
		p := c.String(f)
		if p == "" {
			continue
		}
		if err := checkOutputFile("--"+f, p); err != nil {
			return err
		}
		id := plots.SameFile(p)
		if g, ok := named[id]; ok && id != "" {
			return usageErr("--%s = %q and --%s = %q name one file; allowed a different file for each output (the second would replace the first)", g, c.String(g), f, p)
		}
		named[id] = f
	}
	for _, d := range dirs {
		if p := c.String(d); p != "" {
			if err := checkOutputDir("--"+d, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkScenarioDir checks a scenario's [output] dir.
func checkScenarioDir(dir string) error {
	return checkOutputDir("[output] dir", dir)
}

// checkRunDir checks the directory a scenario's run writes (validate
// checks it too, so that it accepts what run accepts): writable, and, as
// a run replaces it whole, new, empty or an earlier result. A sweep
// writes into its directory instead, replacing nothing but its own files.
func checkRunDir(sc *scenarios.Scenario) error {
	dir := sc.OutputDir()
	if err := checkScenarioDir(dir); err != nil {
		return err
	}
	if len(sc.Sweep.Axis) > 0 || sc.Sweep.Reps > 1 {
		return nil
	}
	if err := scenarios.CheckReplaceable(dir); err != nil {
		if sc.Output.Dir == "" {
			return usageErr("name = %q: %v", sc.Name, err)
		}
		return usageErr("[output] dir = %q: %v", sc.Output.Dir, err)
	}
	return nil
}
