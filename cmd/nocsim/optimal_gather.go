package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"nocsim/logp"
	"nocsim/scenarios/report"
)

// capacityText is ceil(L/g), or "unbounded" when g = 0.
func capacityText(L, g float64) string {
	if c := logp.Capacity(L, g); c > 0 {
		return fmt.Sprint(c)
	}
	return "unbounded"
}

// printGather is `nocsim predict --optimal gather`: every other rank sends
// the root one item at time 0, and LogP's capacity makes all but ceil(L/g)
// of them stall until the root takes a message off the network.
func printGather(c *cli.Context, P int, L, o, g float64) error {
	fg := logp.OptimalGather(P, L, o, g, true)
	_, inTransit := logp.MaxInTransit(fg.Transits())
	stalled, most := 0, 0.0
	for _, s := range fg.Stall {
		if s > 0 {
			stalled++
			most = max(most, s)
		}
	}
	out := c.App.Writer
	if c.Bool("json") {
		return report.WriteJSON(out, map[string]any{"optimal": "gather", "L": L, "o": o, "g": g, "procs": P, "finish_cycles": fg.Finish,
			"capacity": fg.Capacity, "max_in_transit_to_root": inTransit, "enter_cycles": fg.Enter, "stall_cycles": fg.Stall, "taken_cycles": fg.Taken})
	}
	fmt.Fprintf(out, "flat gather (LogP L=%g o=%g g=%g), P=%d: %g cycles at the root\n", L, o, g, P, fg.Finish)
	fmt.Fprintf(out, "capacity ceil(L/g) = %s messages in transit to the root: %d of %d senders stall, the longest %g cycles (the root is not delayed)\n",
		capacityText(L, g), stalled, max(P-1, 0), most)
	return report.WriteGatherSchedule(out, fg)
}
