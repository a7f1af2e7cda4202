package study

import (
	"path/filepath"
	"strings"

	"nocsim/config"
	"nocsim/logp"
	"nocsim/scenarios"

	"nocsim/logp/collgen"
)

// tierSweep is the coll workload on the LogGOPS tier: the generated
// schedules of its algorithms, with the [workload] params mapped as
// FittedTierParams does, at rank counts the mesh need not hold.
func tierSweep(sc *scenarios.Scenario) (*TierSweep, []string, error) {
	p, warnings, err := sc.WorkloadParams()
	if err != nil {
		return nil, nil, err
	}
	if p == nil {
		return nil, nil, &config.KeyError{Key: "params", Value: "(none)", Allowed: "a parameters file (nocsim calibrate --out): the LogGOPS tier needs fitted parameters"}
	}
	w := sc.Workload
	sizes := w.Sizes
	if len(sizes) == 0 {
		sizes = []int{8, 1024, 65536}
	}
	sw := &TierSweep{Op: w.Op, Algs: w.Algs, Procs: w.Procs, Sizes: sizes, Root: w.Root, Opt: collgen.DefaultOptions()}
	sw.UseFitted(sc.Workload.Params, *p)
	return sw, warnings, nil
}

// FittedParamsName names fitted parameters for a LogGOPS tier chart's
// title: the file and the machine they were fitted on (the tier simulates
// no chip, so that machine is the one its times describe).
func FittedParamsName(path string, p logp.Params) string {
	var on []string
	if p.Mesh != "" {
		on = append(on, p.Mesh+" mesh")
	}
	if p.Protocol != "" {
		on = append(on, p.Protocol+" protocol")
	}
	if strings.HasPrefix(p.Source, logp.SourceCSVPrefix) {
		on = append(on, "measured in "+filepath.Base(strings.TrimPrefix(p.Source, logp.SourceCSVPrefix)))
	}
	name := "fitted " + filepath.Base(path)
	if len(on) > 0 {
		name += ": " + strings.Join(on, ", ")
	}
	return name
}
