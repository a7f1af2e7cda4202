package main

import "testing"

// MPI keeps its message order under adaptive routing because its messages
// are ordered packets, which route XY whatever the routing key says: a
// collective run prints the same table, times included, under every
// routing algorithm.
func TestMPIUnchangedByAdaptiveRouting(t *testing.T) {
	run := func(routing string) string {
		code, stdout, stderr := nocsim(t, "coll", "-q", "--mesh", "4x4", "--op", "alltoall", "--procs", "16", "--sizes", "8,1000", "--routing", routing)
		if code != 0 {
			t.Fatalf("--routing %s: exit %d: %s", routing, code, stderr)
		}
		return dropSpeedLine(stdout)
	}
	xy := run("xy")
	for _, r := range []string{"west_first", "adaptive"} {
		if got := run(r); got != xy {
			t.Errorf("--routing %s changed the collectives' results:\n%s\nxy:\n%s", r, got, xy)
		}
	}
}
