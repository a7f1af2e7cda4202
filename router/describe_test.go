package router

import (
	"fmt"
	"strings"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
)

// A head waiting for an output VC is reported with the input VC holding
// it, which the router finds as the one active with that output VC (it
// keeps no owner per output VC). On a 3x1 mesh with one VC, node 1's
// packet to node 2 takes router 1's east VC first, straight from its
// local port, and node 0's, a hop behind, waits for it in router 1's
// west input; node 2 ejects slowly, so both stay there.
func TestDescribeNamesTheHolder(t *testing.T) {
	spec := DefaultSpec()
	spec.VCs = 1
	b := newBench(t, 3, 1, spec)
	b.nis[2].slow = 20
	first := b.send(1, 2, 30, 0, KindSynth)
	b.send(0, 2, 30, 0, KindSynth)
	// Which packet went east from router 1 first, by the trace, so that
	// the report is checked against what happened, not assumed.
	holder := mesh.Port(-1)
	b.net.SetTrace(func(node int, in, out mesh.Port, f Flit) {
		if node == 1 && out == mesh.East && holder < 0 {
			holder = in
			if f.Packet != first {
				t.Errorf("packet %d left router 1 first, want %d", f.Packet, first)
			}
		}
	})
	var report string
	b.watch(60, 60, func(des.Time) {
		report = b.net.Describe(func(id int32) string { return fmt.Sprint("p", id) })
	})
	b.run(t)
	want := fmt.Sprintf("waiting for an output VC -> out E; all output VCs held by: vc0<-%v vc0", holder)
	if holder != mesh.Local || !strings.Contains(report, want) {
		t.Errorf("report at cycle 60 does not say %q (holder %v):\n%s", want, holder, report)
	}
}

// ownerName picks the input VC active with the output VC asked for, by
// port and VC index both: here input VCs hold VC 1 of two outputs and VC
// 0 of one, and each is named by its own.
func TestOwnerNameMatchesPortAndVC(t *testing.T) {
	spec := DefaultSpec()
	spec.VCs = 2
	b := newBench(t, 2, 2, spec)
	r := b.net.Routers[0]
	hold := func(in mesh.Port, i int, out mesh.Port, oc int8) {
		vc := r.inVC(in, i)
		vc.state, vc.out, vc.outVC = vcActive, out, oc
	}
	hold(mesh.Local, 1, mesh.North, 1)
	hold(mesh.West, 0, mesh.East, 1)
	hold(mesh.South, 1, mesh.East, 0)
	for _, c := range []struct {
		out  mesh.Port
		vc   int
		want string
	}{
		{mesh.North, 1, "L vc1"},
		{mesh.East, 1, "W vc0"},
		{mesh.East, 0, "S vc1"},
		{mesh.North, 0, "none"},
	} {
		if got := r.ownerName(c.out, c.vc); got != c.want {
			t.Errorf("output %v vc%d: held by %q, want %q", c.out, c.vc, got, c.want)
		}
	}
}
