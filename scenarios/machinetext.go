package scenarios

import (
	"fmt"
	"strconv"
	"strings"
)

// The texts chart titles name a run's machine by: report draws the
// charts, and the scenario, which report does not know, says what ran.

// NocTitle names the machine a latency chart ran on: mesh, packet size,
// virtual channels and buffers, and the link rate when it is not 1.
func (sc *Scenario) NocTitle() string {
	n := sc.Noc
	packets := fmt.Sprintf("%d-flit packets", n.PacketFlits)
	if len(n.PacketSizes) > 0 {
		sizes := make([]string, len(n.PacketSizes))
		for i, l := range n.PacketSizes {
			sizes[i] = strconv.Itoa(l)
		}
		packets = "packets of " + strings.Join(sizes, "/") + " flits"
	}
	if n.Injection == "on_off" {
		packets += fmt.Sprintf(" in on_off bursts of %g", n.BurstPackets)
	}
	if n.ReplyFlits > 0 {
		packets += fmt.Sprintf(" with %d-flit replies", n.ReplyFlits)
	}
	t := fmt.Sprintf("%s, %s, %d VCs x %d flits", sc.Network.Text(), packets, sc.Network.VCs, sc.Network.VCBuf)
	if w := sc.Network.LinkWidth; w > 1 {
		t += fmt.Sprintf(", %d flits/cycle links", w)
	}
	return t
}

// TilesText is MachineText without the network's topology, for charts
// that compare topologies over the same tiles.
func (sc *Scenario) TilesText() string {
	return fmt.Sprintf("%d tiles, %s", sc.Network.tiles(), sc.MPIText())
}

// MachineText names what an MPI chart ran on: the network, the protocol
// and the library profile.
func (sc *Scenario) MachineText() string {
	return sc.Network.Text() + ", " + sc.MPIText()
}

// MPIText is the protocol and library profile of MachineText.
func (sc *Scenario) MPIText() string {
	lib := sc.MPI.Library
	if lib == "" {
		lib = "nocsim"
	}
	return fmt.Sprintf("%s protocol, %s library", sc.MPI.Protocol, lib)
}
