package scenarios

import (
	"strings"
	"testing"
)

// Chart titles name the network a run used, not "mesh" for every one.
func TestTitlesNameTheTopology(t *testing.T) {
	for _, c := range []struct{ topo, want string }{
		{TopoMesh, "4x4 mesh"},
		{TopoTorus, "4x4 torus"},
		{TopoRing, "16-tile bidirectional ring"},
		{TopoRingUni, "16-tile unidirectional ring"},
		{TopoBus, "16-tile bus"},
	} {
		sc := Defaults()
		sc.Network.Mesh, sc.Network.Topo = "4x4", c.topo
		for name, title := range map[string]string{"NocTitle": sc.NocTitle(), "MachineText": sc.MachineText(), "FixedMachineText": sc.FixedMachineText(nil)} {
			if !strings.HasPrefix(title, c.want+",") {
				t.Errorf("%s, %s: %q, want it to start with %q", c.topo, name, title, c.want)
			}
		}
		if got := sc.FixedMachineText([]string{"network.topology"}); strings.Contains(got, c.want) {
			t.Errorf("%s: a sweep over the topology still names it in %q", c.topo, got)
		}
	}
}
