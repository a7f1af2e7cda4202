package thesis

import (
	"fmt"
	"strings"

	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// MachineText says what the rows keep selects ran on, for the
// titles of report.ThesisCharts: "name: " and the network of each P
// among them ("2x2 mesh at P=4, 4x4 mesh at P=16", just "2x2 mesh" for
// one P), then the protocol and library.
func MachineText(res []report.ThesisResult, name string, sc *scenarios.Scenario) func(keep func(report.ThesisRow) bool) string {
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
			s, _ := rowScenario(sc, report.ThesisRow{Procs: p})
			t := s.Network.Text()
			if len(procs) > 1 {
				t += fmt.Sprintf(" at P=%d", p)
			}
			nets = append(nets, t)
		}
		return name + ": " + strings.Join(nets, ", ") + ", " + sc.MPIText()
	}
}
