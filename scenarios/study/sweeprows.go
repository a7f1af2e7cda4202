package study

import (
	"fmt"

	"nocsim/scenarios"
)

// sweepRunners run one point of a sweep, by [workload] kind: its rows
// and the name of the column the sweep summarises. Kinds without an entry
// cannot be swept.
var sweepRunners = map[string]func(sc *scenarios.Scenario, opt scenarios.RunOptions) (any, string, error){
	"noc": func(sc *scenarios.Scenario, opt scenarios.RunOptions) (any, string, error) {
		pts, err := sc.NocPoints(nil)
		if err != nil {
			return nil, "", err
		}
		res, err := RunNoc(pts, opt)
		if err != nil {
			return nil, "", err
		}
		return NocRows(pts, res), "avg_packet_latency_cycles", nil
	},
	"pingpong": func(sc *scenarios.Scenario, opt scenarios.RunOptions) (any, string, error) {
		rows, _, err := pingPong(sc).Run(sc)
		return rows, "one_way_cycles", err
	},
	"coll": func(sc *scenarios.Scenario, opt scenarios.RunOptions) (any, string, error) {
		if sc.OnTier() {
			ts, _, err := tierSweep(sc)
			if err != nil {
				return nil, "", err
			}
			rows, err := ts.Run(opt)
			return rows, "cycles", err
		}
		rows, err := collSweep(sc).Run(sc, opt)
		return rows, "cycles", err
	},
	"app": func(sc *scenarios.Scenario, opt scenarios.RunOptions) (any, string, error) {
		rows, err := appSweep(sc).Run(sc, opt)
		return rows, "cycles", err
	},
	"pairs": func(sc *scenarios.Scenario, opt scenarios.RunOptions) (any, string, error) {
		rows, err := pairsBench(sc).Run(sc, opt)
		return rows, "mean_pair_bandwidth_bytes_per_cycle", err
	},
}

// WorkloadRows runs one point of a sweep (sweep.Options.Run): the
// workload's rows and the name of the metric a sweep summarises, one
// worker per point (the sweep runs points in parallel).
func WorkloadRows(sc *scenarios.Scenario) (any, string, error) {
	run, ok := sweepRunners[sc.Workload.Kind]
	if !ok {
		return nil, "", fmt.Errorf("sweeps run noc, pingpong, coll, app and pairs workloads, not %q", sc.Workload.Kind)
	}
	return run(sc, scenarios.RunOptions{Workers: 1})
}
