package scenarios

import (
	"fmt"
	"strings"

	"nocsim/scenarios/report"
)

// The texts chart titles name a run's machine by: report draws the
// charts, and the scenario, which report does not know, says what ran.

// NocTitle names the machine a latency chart ran on: mesh, packet size,
// virtual channels and buffers, and the link rate when it is not 1.
func (sc *Scenario) NocTitle() string {
	t := fmt.Sprintf("%s, %d-flit packets, %d VCs x %d flits", sc.Network.text(), sc.Noc.PacketFlits, sc.Network.VCs, sc.Network.VCBuf)
	if w := sc.Network.LinkWidth; w > 1 {
		t += fmt.Sprintf(", %d flits/cycle links", w)
	}
	return t
}

// TilesText is MachineText without the network's topology, for charts
// that compare topologies over the same tiles.
func (sc *Scenario) TilesText() string {
	return fmt.Sprintf("%d tiles, %s", sc.Network.tiles(), sc.mpiText())
}

// MachineText names what an MPI chart ran on: the network, the protocol
// and the library profile.
func (sc *Scenario) MachineText() string {
	return sc.Network.text() + ", " + sc.mpiText()
}

// mpiText is the protocol and library profile of MachineText.
func (sc *Scenario) mpiText() string {
	lib := sc.MPI.Library
	if lib == "" {
		lib = "nocsim"
	}
	return fmt.Sprintf("%s protocol, %s library", sc.MPI.Protocol, lib)
}

// ThesisMachineText says what the rows keep selects ran on, for the
// titles of report.ThesisCharts: "name: " and the network of each P
// among them ("2x2 mesh at P=4, 4x4 mesh at P=16", just "2x2 mesh" for
// one P), then the protocol and library.
func ThesisMachineText(res []report.ThesisResult, name string, sc *Scenario) func(keep func(report.ThesisRow) bool) string {
	return func(keep func(report.ThesisRow) bool) string {
		var rs []report.ThesisResult
		for _, r := range res {
			if keep(r.Row) {
				rs = append(rs, r)
			}
		}
		procs := report.ProcsOf(rs)
		var nets []string
		for _, p := range procs {
			s, _ := thesisScenario(sc, report.ThesisRow{Procs: p})
			t := s.Network.text()
			if len(procs) > 1 {
				t += fmt.Sprintf(" at P=%d", p)
			}
			nets = append(nets, t)
		}
		return name + ": " + strings.Join(nets, ", ") + ", " + sc.mpiText()
	}
}
