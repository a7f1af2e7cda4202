package study

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"nocsim/calibrate"
	"nocsim/logp"
	"nocsim/scenarios"
)

// WriteFiles writes the files `nocsim calibrate` was asked for; an empty
// path is not written. out gets the fitted parameters (.toml or .json),
// refused when they are not physical: a later prediction from them would
// be nonsense. csvPath gets the measurements with the machine they were
// taken on (what --csv reads back), and plotDir the one-way chart, titled
// with machine and out's name.
func (c Calibration) WriteFiles(out, csvPath, plotDir, machine string) error {
	if out != "" {
		if err := c.Report.Params.Validate(); err != nil {
			return fmt.Errorf("the fitted parameters are not physical (%v); see the warnings above; not writing %s", err, out)
		}
		if err := scenarios.WriteFile(out, func(b *bytes.Buffer) error { return logp.EncodeParams(b, out, c.Report.Params) }); err != nil {
			return err
		}
	}
	if csvPath != "" {
		if err := scenarios.WriteFile(csvPath, func(b *bytes.Buffer) error {
			return calibrate.WriteTable(b, calibrate.Table{Machine: c.Machine, Measurements: c.Measurements})
		}); err != nil {
			return err
		}
	}
	if plotDir == "" {
		return nil
	}
	if err := os.MkdirAll(plotDir, 0o755); err != nil {
		return err
	}
	saved := ""
	if out != "" {
		saved = filepath.Base(out)
	}
	return CalibrationChart(c, machine, saved).Save(filepath.Join(plotDir, "oneway.png"), 0, 0)
}
