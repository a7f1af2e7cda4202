package scenarios

import (
	"fmt"

	"nocsim/plots"
)

// PingPongChart draws the one-way time against message size (log-log);
// the title names the pair, its distance and the machine
// (Scenario.MachineText: mesh, protocol, library).
func PingPongChart(rows []PingRow, machine string) plots.Chart {
	r0 := rows[0]
	hops := "hops"
	if r0.Hops == 1 {
		hops = "hop"
	}
	c := plots.Chart{Title: fmt.Sprintf("ping-pong rank %d <-> %d, %d %s (%s)", r0.From, r0.To, r0.Hops, hops, machine),
		XLabel: "message size (bytes, log scale)", YLabel: "one-way time (cycles, log scale)", LogX: true, LogY: true}
	s := plots.Series{Name: "one way (round trip / 2)"}
	for _, r := range rows {
		if r.SizeBytes > 0 && r.OneWayCycles > 0 {
			s.X = append(s.X, float64(r.SizeBytes))
			s.Y = append(s.Y, r.OneWayCycles)
		}
	}
	c.Series = []plots.Series{s}
	return c
}
