// Package report presents results: the row types the runners fill (one
// per workload: NocRow, AppRow, CollRow, TierRow, PingRow, PairsRow,
// GoalResult, ThesisResult) and everything that shows them, the text
// tables, CSV and JSON files and the charts with their titles.
//
// It is separate so that how a result reads is decided in one place for
// every command and the main job alike, and so that presentation can
// change without touching the simulation. It does not import scenarios:
// the runners import report, and a chart title that names the machine
// gets that text from its caller (Scenario.MachineText and its kin).
package report
