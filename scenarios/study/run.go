package study

import (
	"bytes"
	"reflect"

	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// Summary is what `nocsim run` reports.
type Summary struct {
	Dir   string
	Files []string
	Lines []string         // a few lines of headline results
	Speed *scenarios.Speed // with RunOptions.Speed: how fast the run went (also in meta.json)
}

// Run performs the scenario's workload and writes, into its output
// directory, the results (JSON and CSV), the effective configuration, the
// provenance (meta.json) and the charts. The directory is staged beside
// the target and renamed into place only when every file is written: a
// run that fails or is killed leaves an older result untouched. Check
// must have passed.
func Run(sc *scenarios.Scenario, src scenarios.Source, prov scenarios.Provenance, opt scenarios.RunOptions) (sum Summary, err error) {
	dir := sc.OutputDir()
	out, err := scenarios.StageDir(dir)
	if err != nil {
		return Summary{}, err
	}
	defer finish(out, &sum, &err)
	sum.Dir = dir
	write := out.Write
	if err := sc.RecordTo(src, prov, write); err != nil {
		return sum, err
	}
	var rec *GoalRecording
	if sc.Output.Goal != "" {
		rec = NewGoalRecording()
		opt.Record = rec.Record
	}
	res, err := kinds[sc.Workload.Kind].Run(sc, opt)
	if err != nil {
		return sum, err
	}
	sum.Lines = append(sum.Lines, res.Lines...)
	for _, f := range res.Files {
		if err := write(f.Name, func(b *bytes.Buffer) error { _, err := b.Write(f.Text); return err }); err != nil {
			return sum, err
		}
	}
	rows := res.Rows
	if err := write("results.json", func(b *bytes.Buffer) error { return report.WriteJSON(b, rows) }); err != nil {
		return sum, err
	}
	if rec != nil {
		files, err := rec.Files(sc.Output.Goal)
		if err != nil {
			return sum, err
		}
		for _, f := range files {
			if err := write(f.Path, func(b *bytes.Buffer) error { _, err := b.Write(f.Text); return err }); err != nil {
				return sum, err
			}
		}
	}
	if reflect.ValueOf(rows).Kind() == reflect.Slice {
		if err := write("results.csv", func(b *bytes.Buffer) error { return report.WriteRowsCSV(b, rows) }); err != nil {
			return sum, err
		}
	}
	if sc.Output.Plots {
		for _, c := range res.Charts {
			if err := out.Save(c.File, func(p string) error { return c.Draw().Save(p, c.Width, c.Height) }); err != nil {
				return sum, err
			}
		}
	}
	if opt.Speed != nil {
		// Measured before the charts are drawn would leave their CPU time
		// out; measured here it counts everything but the final rename.
		if sp, ok := opt.Speed.Speed(res.FlitHops); ok {
			sum.Speed = &sp
			if err := out.Rewrite("meta.json", func(b *bytes.Buffer) error { return report.WriteJSON(b, sc.RunMeta(prov, &sp)) }); err != nil {
				return sum, err
			}
		}
	}
	if opt.Report {
		if err := writeReport(out); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// finish ends a run's use of its staged directory, deferred with the
// run's named results: a failed run's directory goes, a successful one's
// files are in place and listed in the summary, with any notes on stale
// staging directories.
func finish(out *scenarios.StagedDir, sum *Summary, err *error) {
	files, notes := out.Finish(err)
	if *err == nil {
		sum.Files = files
		sum.Lines = append(sum.Lines, notes...)
	}
}
