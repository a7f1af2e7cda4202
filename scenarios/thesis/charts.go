package thesis

import (
	"os"
	"path/filepath"

	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// ChartWidth and ChartHeight are the figures' size, inches: wide enough
// for the thesis's and nocsim's curves side by side.
const ChartWidth, ChartHeight = 8, 4.5

// Charts are the figures of res's table (report.ThesisCharts), titled
// with name and the machine sc each row ran on (MachineText).
func Charts(res []report.ThesisResult, name string, sc *scenarios.Scenario) []report.ThesisChart {
	return report.ThesisCharts(res, MachineText(res, name, sc))
}

// SaveCharts draws Charts into dir, made if missing: what `nocsim thesis
// --plot-dir` writes.
func SaveCharts(dir string, res []report.ThesisResult, name string, sc *scenarios.Scenario) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, ch := range Charts(res, name, sc) {
		if err := ch.Chart.Save(filepath.Join(dir, ch.File), ChartWidth, ChartHeight); err != nil {
			return err
		}
	}
	return nil
}
